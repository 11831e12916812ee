import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';

/** Name of the file, inside `CRONQL_DATA_DIR`, that keeps a generated secrets key. */
export const SECRETS_KEY_FILE = 'secrets-key';

/**
 * A 32-byte AES-256 key from its text form: 64 hex digits, or base64 / base64url of 32 bytes.
 * @throws ConfigError naming `CRONQL_SECRETS_KEY` (or the file) when it is anything else
 */
export function parseSecretsKey(text: string, source = 'CRONQL_SECRETS_KEY'): Buffer {
  const t = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, 'hex') : /^[A-Za-z0-9+/_-]{43}=?$/.test(t) ? Buffer.from(t, 'base64') : null;
  if (!key || key.length !== 32) {
    throw new ConfigError(source, 'must be a 32-byte key, as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)');
  }
  return key;
}

/**
 * The key that encrypts secrets at rest, by precedence: `CRONQL_SECRETS_KEY`; the key generated
 * into `<dataDir>/secrets-key` by an earlier start; a new one written there (mode 0600, created
 * atomically like the admin token) when `create` — only when no secret exists yet, so a missing
 * file never silently replaces the key existing secrets were written with.
 * Several instances on several hosts must share one key: set CRONQL_SECRETS_KEY on all of them.
 */
export async function loadSecretsKey(o: { secretsKey?: string; dataDir: string; create: boolean }): Promise<Buffer | null> {
  if (o.secretsKey) return parseSecretsKey(o.secretsKey);
  const file = join(o.dataDir, SECRETS_KEY_FILE);
  try {
    return parseSecretsKey(await readFile(file, 'utf8'), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (!o.create) return null;
  await mkdir(o.dataDir, { recursive: true });
  const key = randomBytes(32);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await chmod(tmp, 0o600);
    await link(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // Another process created it first: use theirs.
    return parseSecretsKey(await readFile(file, 'utf8'), file);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return key;
}
