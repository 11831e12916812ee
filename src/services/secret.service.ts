import { auditActor } from './audit-actor.js';
import { ConfigError, CronqlError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { SecretStore, type SecretRow } from '../db/secret-store.js';
import type { Pool } from '../db/pool.js';
import { seal, unseal, type Sealed } from '../secrets/cipher.js';
import { loadSecretsKey, SECRETS_KEY_FILE } from '../secrets/key.js';
import { SECRET_NAME } from '../secrets/references.js';
import { checkText } from './stored-input.js';

/** What the key check seals: decrypting it proves the key is the one the secrets were written with. */
const KEY_CHECK = 'cronql secrets key check v1';
const KEY_CHECK_NAME = '__key_check';
/** Shorter values could not be redacted without mangling everything a handler returns. */
export const MIN_SECRET_LENGTH = 4;
export const MAX_SECRET_BYTES = 65_536;

export interface SecretDeps {
  pool: Pool;
  clock: Clock;
  /** CRONQL_SECRETS_KEY; unset: `<dataDir>/secrets-key`, generated with the first secret. */
  secretsKey?: string;
  dataDir: string;
}

/** A run's payload names a secret that does not exist (any more). */
export class UnknownSecretError extends Error {
  readonly code = 'UNKNOWN_SECRET';
  constructor(readonly names: string[]) {
    super(`the payload references ${names.map((n) => `\${secrets.${n}}`).join(', ')}, which does not exist`);
  }
}

/**
 * Secrets: set, delete, list (never a value), and the values a run's payload references, read
 * when the run starts (so a rotation takes effect at the next run). Values are encrypted at rest
 * with AES-256-GCM; the key never leaves this process.
 */
export class SecretService {
  private readonly store: SecretStore;
  private key: Buffer | null = null;

  constructor(private readonly d: SecretDeps) {
    this.store = new SecretStore(d.pool);
  }

  /**
   * At start: with secrets stored, the key must be the one they were written with.
   * @throws ConfigError (one line, naming CRONQL_SECRETS_KEY) when it is missing or another key
   */
  async init(): Promise<void> {
    const check = await this.store.keyCheck();
    if (!check) return; // no secret was ever written: the key is made with the first one
    const key = await loadSecretsKey({ secretsKey: this.d.secretsKey, dataDir: this.d.dataDir, create: false });
    if (!key) {
      throw new ConfigError('CRONQL_SECRETS_KEY', `secrets are stored in this database, but no key is set and ${SECRETS_KEY_FILE} is not in the data dir; set the key they were written with`);
    }
    this.verify(key, check);
    this.key = key;
  }

  private verify(key: Buffer, check: Sealed): void {
    let ok = false;
    try {
      ok = unseal(key, KEY_CHECK_NAME, check) === KEY_CHECK;
    } catch {
      ok = false;
    }
    if (!ok) throw new ConfigError('CRONQL_SECRETS_KEY', 'this key does not decrypt the secrets stored in this database (they were written with another key); set the key they were written with');
  }

  /** The key, made (and its check stored) with the first secret. */
  private async ensureKey(): Promise<Buffer> {
    if (this.key) return this.key;
    const key = (await loadSecretsKey({ secretsKey: this.d.secretsKey, dataDir: this.d.dataDir, create: true }))!;
    const stored = await this.store.initKeyCheck(seal(key, KEY_CHECK_NAME, KEY_CHECK));
    this.verify(key, stored); // another instance may have written the first secret with its own key
    this.key = key;
    return key;
  }

  async set(name: unknown, value: unknown, actor: string | null = null): Promise<SecretRow> {
    const n = validateSecretName(name);
    if (typeof value !== 'string') throw new CronqlError('BAD_USER_INPUT', 'value must be a string', { field: 'value' });
    checkText('value', value);
    if (value.length < MIN_SECRET_LENGTH) {
      throw new CronqlError('BAD_USER_INPUT', `value must be at least ${MIN_SECRET_LENGTH} characters (shorter ones could not be redacted from outputs)`, { field: 'value' });
    }
    if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) {
      throw new CronqlError('BAD_USER_INPUT', `value must be at most ${MAX_SECRET_BYTES} bytes`, { field: 'value' });
    }
    const key = await this.ensureKey();
    // The entry names the secret, never its value.
    return this.store.upsert(n, seal(key, n, value), actor, this.d.clock.now(), { actor: auditActor(actor), action: 'setSecret' });
  }

  async delete(name: unknown, actor: string | null = null): Promise<boolean> {
    return this.store.delete(validateSecretName(name), { actor: auditActor(actor), action: 'deleteSecret' }, this.d.clock.now());
  }

  async list(): Promise<(SecretRow & { usedBy: string[] })[]> {
    const rows = await this.store.list();
    const used = await this.store.usedBy(rows.map((r) => r.name));
    return rows.map((r) => ({ ...r, usedBy: used.get(r.name) ?? [] }));
  }

  /** @throws CronqlError UNKNOWN_SECRET when a name is not a stored secret (job create and version). */
  async assertExist(names: Iterable<string>): Promise<void> {
    const wanted = [...names];
    if (wanted.length === 0) return;
    const found = await this.store.existing(wanted);
    const missing = wanted.filter((n) => !found.has(n));
    if (missing.length) {
      throw new CronqlError('UNKNOWN_SECRET', `the payload references ${missing.map((n) => `\${secrets.${n}}`).join(', ')}, which does not exist; create it with setSecret`, {
        field: 'payload',
        secrets: missing,
      });
    }
  }

  /**
   * The values of the secrets a run references, decrypted now.
   * @throws UnknownSecretError when one was deleted since the job was written
   */
  async resolve(names: Iterable<string>): Promise<Map<string, string>> {
    const wanted = [...names];
    const sealed = await this.store.sealed(wanted);
    const missing = wanted.filter((n) => !sealed.has(n));
    if (missing.length) throw new UnknownSecretError(missing);
    const key = this.key ?? (await this.init(), this.key);
    if (!key) throw new UnknownSecretError(wanted);
    return new Map([...sealed].map(([name, s]) => [name, unseal(key, name, s)]));
  }

  /**
   * Seals another credential with the secrets' key (a notification channel's URL and secret):
   * `label` is its additional authenticated data, so a value copied to another row does not open.
   */
  async sealCredential(label: string, value: string): Promise<Sealed> {
    return seal(await this.ensureKey(), label, value);
  }

  /** The plaintext of a credential `sealCredential` sealed. @throws when no key is loaded or it does not open */
  async openCredential(label: string, sealed: Sealed): Promise<string> {
    const key = this.key ?? (await this.init(), this.key);
    if (!key) throw new Error('no secrets key is loaded');
    return unseal(key, label, sealed);
  }
}

export function validateSecretName(name: unknown): string {
  if (typeof name !== 'string' || !SECRET_NAME.test(name)) {
    throw new CronqlError('INVALID_SECRET_NAME', 'a secret name is an upper-case letter, then upper-case letters, digits and _ (at most 64 characters)', {
      field: 'name',
    });
  }
  return name;
}
