import { useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { useQuery, useSubmit } from './hooks.js';
import { Q, type ApiTokenRow } from './queries.js';
import { useSession } from './session-context.js';
import { ConfirmDialog, Dialog, ErrorBox, FieldError, Time } from './ui.js';

const ROLES = ['VIEWER', 'OPERATOR', 'ADMIN'] as const;
type TokenRole = (typeof ROLES)[number];

/** `datetime-local` value (browser zone) → ISO instant, or null when empty. */
const toInstant = (local: string): string | null => {
  if (!local) return null;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

/**
 * The Tokens page (docs/security.md, "Named tokens"): the named tokens, revoked ones included,
 * newest first. ADMIN creates one (its secret shown once, here, and never again: the server keeps
 * only its hash) and revokes one (after a confirmation). The API answers `apiTokens` to ADMIN
 * only: any other role sees who it is and no action.
 */
export function TokensView() {
  const { role, name } = useSession();
  if (role !== 'ADMIN') {
    return (
      <section aria-labelledby="tokens-title">
        <h1 id="tokens-title">API tokens</h1>
        <p role="note" data-testid="tokens-not-admin">
          You are signed in as <strong>{name}</strong> ({role}). API tokens are listed, created and revoked with an ADMIN token.
        </p>
      </section>
    );
  }
  return <AdminTokens />;
}

function AdminTokens() {
  const { data, error, reload } = useQuery(Q.apiTokens, {}, '');
  const [created, setCreated] = useState<{ name: string; secret: string } | null>(null);
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">API tokens</h1>
      <p class="muted">
        A named token calls the API with its role (and, for OPERATOR and VIEWER, only the jobs its label selector matches); the audit log records its name. A revoked
        token is refused from its next request on every instance.
      </p>
      <CreateTokenForm
        onCreated={(c) => {
          setCreated(c);
          reload();
        }}
      />
      {created && <SecretOnce name={created.name} secret={created.secret} onClose={() => setCreated(null)} />}
      <ErrorBox error={error} />
      {!data ? (
        !error && <p aria-busy="true">Loading…</p>
      ) : data.apiTokens.length === 0 ? (
        <p>No named tokens yet: only the environment's (CRONQL_ADMIN_TOKEN, CRONQL_VIEWER_TOKEN).</p>
      ) : (
        <table data-testid="tokens">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Role</th>
              <th scope="col">Label selector</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">Revoked</th>
              <th scope="col" />
            </tr>
          </thead>
          <tbody>
            {data.apiTokens.map((t) => (
              <TokenLine token={t} onRevoked={reload} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function TokenLine({ token: t, onRevoked }: { token: ApiTokenRow; onRevoked(): void }) {
  const [confirming, setConfirming] = useState(false);
  const expired = !t.revokedAt && t.expiresAt !== null && t.expiresAt !== undefined && Date.parse(t.expiresAt) <= Date.now();
  return (
    <tr data-token={t.name} class={t.revokedAt || expired ? 'muted' : undefined}>
      <th scope="row">{t.name}</th>
      <td>{t.role}</td>
      <td class="mono">{t.labelSelector ?? <span class="muted">all jobs</span>}</td>
      <td>
        <Time iso={t.createdAt} />
      </td>
      <td>
        {t.expiresAt ? <Time iso={t.expiresAt} /> : <span class="muted">never</span>}
        {expired && ' (expired)'}
      </td>
      <td>
        <Time iso={t.lastUsedAt} />
      </td>
      <td data-testid="token-revoked">
        <Time iso={t.revokedAt} />
      </td>
      <td>
        {!t.revokedAt && (
          <button type="button" class="danger small" aria-label={`Revoke ${t.name}`} onClick={() => setConfirming(true)}>
            Revoke
          </button>
        )}
        {confirming && (
          <RevokeDialog
            token={t}
            onClose={() => setConfirming(false)}
            onDone={() => {
              setConfirming(false);
              onRevoked();
            }}
          />
        )}
      </td>
    </tr>
  );
}

function RevokeDialog({ token, onClose, onDone }: { token: ApiTokenRow; onClose(): void; onDone(): void }) {
  const { api } = useSession();
  const revoke = async () => {
    await api.request(Q.revokeApiToken, { id: token.id });
    onDone();
  };
  return (
    <ConfirmDialog title={`Revoke ${token.name}`} testId="revoke-token-dialog" confirm="Revoke" action={revoke} onClose={onClose}>
      <p>
        Every instance refuses it from its next request (<code>TOKEN_REVOKED</code>) and closes its open WebSockets. This cannot be undone: a caller using it needs a new
        token.
      </p>
    </ConfirmDialog>
  );
}

function CreateTokenForm({ onCreated }: { onCreated(created: { name: string; secret: string }): void }) {
  const { api } = useSession();
  const [name, setName] = useState('');
  const [role, setRole] = useState<TokenRole>('VIEWER');
  const [selector, setSelector] = useState('');
  const [expires, setExpires] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const { createApiToken } = await api.request(Q.createApiToken, {
      name: name.trim(),
      role,
      labelSelector: selector.trim() || null,
      expiresAt: toInstant(expires),
    });
    setName('');
    setSelector('');
    setExpires('');
    onCreated({ name: createApiToken.token.name, secret: createApiToken.secret });
  });
  const fieldError = (field: string) => (error instanceof ApiError && error.field === field ? error : undefined);
  const shown = fieldError('name') ?? fieldError('labelSelector') ?? fieldError('expiresAt');
  return (
    <form onSubmit={submit} aria-label="Create a token" class="token-form">
      <label>
        Name <input name="token-name" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required aria-invalid={!!fieldError('name')} />
      </label>
      <label>
        Role{' '}
        <select name="token-role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as TokenRole)}>
          {ROLES.map((r) => (
            <option value={r}>{r}</option>
          ))}
        </select>
      </label>
      <label>
        Label selector{' '}
        <input
          name="token-selector"
          class="mono"
          placeholder={role === 'ADMIN' ? 'none: an ADMIN sees all jobs' : 'team=billing (empty: all jobs)'}
          disabled={role === 'ADMIN'}
          value={role === 'ADMIN' ? '' : selector}
          onInput={(e) => setSelector((e.target as HTMLInputElement).value)}
          aria-invalid={!!fieldError('labelSelector')}
        />
      </label>
      <label>
        Expires (your zone; empty: never) <input name="token-expires" type="datetime-local" value={expires} onInput={(e) => setExpires((e.target as HTMLInputElement).value)} />
      </label>
      <button type="submit" class="primary" disabled={busy}>
        Create token
      </button>
      <FieldError error={shown} id="token-error" />
      {!shown && <ErrorBox error={error} />}
    </form>
  );
}

/** The new token's secret, shown this once: the server keeps only its hash. */
function SecretOnce({ name, secret, onClose }: { name: string; secret: string; onClose(): void }) {
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      // No clipboard (an insecure origin, a refused permission): the secret stays selectable.
      setCopied('failed');
    }
  };
  return (
    <Dialog title={`Token ${name} created`} onClose={onClose} testId="token-secret-dialog">
      <p role="alert">
        <strong>Copy its secret now: you will not see it again.</strong> cronql keeps only its hash; a lost secret means a new token.
      </p>
      <p>
        <code class="secret mono" data-testid="token-secret" tabIndex={0}>
          {secret}
        </code>
      </p>
      <div class="dialog-buttons">
        <button type="button" class="primary" onClick={copy}>
          {copied === 'yes' ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onClose}>
          I have copied it
        </button>
      </div>
      {copied === 'failed' && <p class="muted">The browser refused the clipboard: select the secret and copy it.</p>}
    </Dialog>
  );
}
