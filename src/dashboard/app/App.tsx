import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, createApi, inputError } from './api.js';
import { JobDetailView } from './JobDetailView.js';
import { JobFormView } from './JobForm.js';
import { InstancesView } from './InstancesView.js';
import { CalendarsView } from './CalendarsView.js';
import { PoolsView } from './PoolsView.js';
import { UpcomingView } from './UpcomingView.js';
import { AuditView } from './AuditView.js';
import { TokensView } from './TokensView.js';
import { JobsView } from './JobsView.js';
import { createLiveFeed, type LiveFeed, type LiveState } from './live.js';
import { Q } from './queries.js';
import { href, useRoute } from './router.js';
import { RunDetailView } from './RunDetailView.js';
import { RunsView } from './RunsView.js';
import { SessionContext, useSession, type Session } from './session-context.js';
import { storeToken } from './session.js';
import { ErrorBox } from './ui.js';

/**
 * The page: sign-in when there is no (valid) token, else the header (views, live indicator,
 * role) and the view of the fragment.
 */
export function App({ endpoint, initialToken }: { endpoint: string; initialToken: string | null }) {
  const [token, setToken] = useState(initialToken);
  const [problem, setProblem] = useState<unknown>(null);
  if (!token) {
    return (
      <SignIn
        problem={problem}
        onToken={(t) => {
          storeToken(t);
          setProblem(null);
          setToken(t);
        }}
      />
    );
  }
  return (
    <SignedIn
      key={token}
      endpoint={endpoint}
      token={token}
      onSignOut={(why) => {
        storeToken(null);
        setProblem(why);
        setToken(null);
      }}
    />
  );
}

function SignedIn({ endpoint, token, onSignOut }: { endpoint: string; token: string; onSignOut(why: unknown): void }) {
  const api = useMemo(() => createApi(endpoint, token), [endpoint, token]);
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live: LiveFeed | undefined;
    let cancelled = false;
    (async () => {
      // Who the token is: `whoami` answers every token its name and role (docs/api.md).
      const { whoami } = await api.request(Q.role);
      const role: Session['role'] = whoami?.role ?? 'VIEWER';
      const name = whoami?.name ?? '';
      const { targets } = await api.request(Q.targets);
      if (cancelled) return;
      live = createLiveFeed(endpoint, token, (reason) => onSignOut(inputError(reason, 'UNAUTHENTICATED')));
      setSession({ api, live, role, name, targets });
    })().catch((err: unknown) => {
      if (cancelled) return;
      // A revoked or expired named token is refused like an unknown one: sign in again.
      if (err instanceof ApiError && (err.code === 'UNAUTHENTICATED' || err.code === 'TOKEN_REVOKED' || err.code === 'TOKEN_EXPIRED')) onSignOut(err);
      else setError(err);
    });
    return () => {
      cancelled = true;
      live?.dispose();
    };
  }, [api]);

  if (error) {
    return (
      <main class="page">
        <ErrorBox error={error} />
        <button type="button" onClick={() => location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (!session) return <p class="loading" aria-busy="true">Signing in…</p>;
  return (
    <SessionContext.Provider value={session}>
      <Shell onSignOut={() => onSignOut(null)} />
    </SessionContext.Provider>
  );
}

function Shell({ onSignOut }: { onSignOut(): void }) {
  const route = useRoute();
  const session = useSession();
  const section = route.view === 'runs' || route.view === 'run' ? 'runs' : route.view === 'instances' ? 'instances' : route.view === 'upcoming' ? 'upcoming' : route.view === 'calendars' ? 'calendars' : route.view === 'pools' ? 'pools' : route.view === 'audit' ? 'audit' : route.view === 'tokens' ? 'tokens' : 'jobs';
  useEffect(() => {
    document.title = `cronql — ${section === 'runs' ? 'Execution jobs' : section === 'instances' ? 'Instances' : section === 'upcoming' ? 'Upcoming' : section === 'calendars' ? 'Calendars' : section === 'pools' ? 'Pools' : section === 'audit' ? 'Audit' : section === 'tokens' ? 'API tokens' : 'Scheduled jobs'}`;
  }, [section]);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">cronql</span>
        <nav aria-label="Views">
          <a href={href.jobs()} aria-current={section === 'jobs' ? 'page' : undefined}>
            Scheduled jobs
          </a>
          <a href={href.runs()} aria-current={section === 'runs' ? 'page' : undefined}>
            Execution jobs
          </a>
          <a href={href.upcoming()} aria-current={section === 'upcoming' ? 'page' : undefined}>
            Upcoming
          </a>
          <a href={href.calendars()} aria-current={section === 'calendars' ? 'page' : undefined}>
            Calendars
          </a>
          <a href={href.pools()} aria-current={section === 'pools' ? 'page' : undefined}>
            Pools
          </a>
          {session.role === 'ADMIN' && (
            <a href={href.instances()} aria-current={section === 'instances' ? 'page' : undefined}>
              Instances
            </a>
          )}
          {session.role === 'ADMIN' && (
            <a href={href.audit()} aria-current={section === 'audit' ? 'page' : undefined}>
              Audit
            </a>
          )}
          {session.role === 'ADMIN' && (
            <a href={href.tokens()} aria-current={section === 'tokens' ? 'page' : undefined}>
              Tokens
            </a>
          )}
        </nav>
        <LiveIndicator live={session.live} />
        <span class={`role role-${session.role.toLowerCase()}`} data-testid="role" title={session.name ? `signed in as ${session.name}` : undefined}>
          {session.role}
        </span>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" class="page" tabIndex={-1}>
        {route.view === 'jobs' && <JobsView />}
        {route.view === 'runs' && <RunsView />}
        {route.view === 'job' && <JobDetailView key={route.id} id={route.id} />}
        {route.view === 'new-job' && <JobFormView />}
        {route.view === 'new-version' && <JobFormView key={route.id} versionOf={route.id} />}
        {route.view === 'run' && <RunDetailView key={route.id} id={route.id} />}
        {route.view === 'instances' && <InstancesView />}
        {route.view === 'calendars' && <CalendarsView />}
        {route.view === 'pools' && <PoolsView />}
        {route.view === 'upcoming' && <UpcomingView />}
        {route.view === 'audit' && <AuditView />}
        {route.view === 'tokens' && <TokensView />}
      </main>
    </>
  );
}

const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  lost: 'Connection lost — reconnecting…',
};

/** Whether the live feed is up; announced to screen readers when it changes. */
function LiveIndicator({ live }: { live: LiveFeed }) {
  const [state, setState] = useState(live.state);
  const [reconnections, setReconnections] = useState(live.reconnections);
  useEffect(() => {
    const sync = () => {
      setState(live.state);
      setReconnections(live.reconnections);
    };
    const off = live.onState(sync);
    // The socket may have connected between the first render and this effect (effects run
    // after paint): that change reached no listener, so read the state once more.
    sync();
    return off;
  }, [live]);
  return (
    <span class={`live live-${state}`} role="status" aria-live="polite" data-testid="live" data-state={state} data-reconnections={reconnections}>
      <span class="dot" aria-hidden="true" />
      {LIVE_TEXT[state]}
      {state === 'live' && reconnections > 0 ? ' (reconnected)' : ''}
    </span>
  );
}

function SignIn({ problem, onToken }: { problem: unknown; onToken(token: string): void }) {
  const [value, setValue] = useState('');
  return (
    <main class="page sign-in">
      <h1>cronql dashboard</h1>
      <p>
        Open the link cronql prints at startup (<code>…/dashboard#token=…</code>), or paste a token. It is kept for this tab only and sent only in the
        Authorization header.
      </p>
      <ErrorBox error={problem} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autoComplete="off" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
    </main>
  );
}
