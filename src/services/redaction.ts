/**
 * What a read-only caller (VIEWER: the token handed to frontends) may not read: credentials.
 * In job payloads, run payload snapshots, outputs and failure details, the value of every key that
 * looks like a credential — `authorization`, `token`, `secret`, `password`, `api-key`/`api_key`/
 * `apikey`, anywhere in the key, any case, at any depth — and every value under a `headers`
 * object (the `http` target sends them as is) becomes REDACTED. ADMIN reads everything.
 */
export const REDACTED = '[redacted]';

const CREDENTIAL_KEY = /authorization|token|secret|password|passwd|api[-_]?key|cookie|credential|private[-_]?key/i;

/** Deeper than this, whatever is below is replaced whole (outputs are not depth-checked). */
const MAX_DEPTH = 64;

export function redactCredentials(value: unknown): unknown {
  return walk(value, 0, false);
}

function walk(value: unknown, depth: number, secret: boolean): unknown {
  if (value === null || typeof value !== 'object') return secret && value !== null ? REDACTED : value;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1, secret));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const hidden = secret || CREDENTIAL_KEY.test(key);
    out[key] = key.toLowerCase() === 'headers' ? walk(v, depth + 1, true) : walk(v, depth + 1, hidden);
  }
  return out;
}
