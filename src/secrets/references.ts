/**
 * `${secrets.NAME}` references in payloads (pure functions). A payload stores the reference as
 * written; it is resolved only in the handler's own copy, just before the handler runs, and every
 * value resolved is redacted from what the handler returns, throws and logs.
 */

/** A secret's name: an upper-case letter, then upper-case letters, digits and `_`; at most 64. */
export const SECRET_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

const REFERENCE = /\$\{secrets\.([A-Z][A-Z0-9_]{0,63})\}/g;

/** The names a value references, in any string inside it (keys included). */
export function secretNames(value: unknown): Set<string> {
  const names = new Set<string>();
  visitStrings(value, (s) => {
    for (const m of s.matchAll(REFERENCE)) names.add(m[1]);
  });
  return names;
}

/** `value` with every reference replaced by its secret's value (`values` holds each name referenced). */
export function resolveReferences<T>(value: T, values: ReadonlyMap<string, string>): T {
  return mapStrings(value, (s) => s.replace(REFERENCE, (ref, name: string) => values.get(name) ?? ref)) as T;
}

/** `value` with every occurrence of a secret's value replaced by `[secret:NAME]` (longest values first). */
export function redactSecrets<T>(value: T, values: ReadonlyMap<string, string>): T {
  if (values.size === 0) return value;
  const byLength = [...values].filter(([, v]) => v.length > 0).sort((a, b) => b[1].length - a[1].length);
  return mapStrings(value, (s) => {
    let out = s;
    for (const [name, secret] of byLength) if (out.includes(secret)) out = out.split(secret).join(`[secret:${name}]`);
    return out;
  }) as T;
}

function visitStrings(value: unknown, fn: (s: string) => void, depth = 0): void {
  if (depth > 100) return;
  if (typeof value === 'string') fn(value);
  else if (Array.isArray(value)) for (const v of value) visitStrings(v, fn, depth + 1);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      fn(k);
      visitStrings(v, fn, depth + 1);
    }
  }
}

/** A copy of a JSON-like value with `fn` applied to every string (keys included); other values as they are. */
function mapStrings(value: unknown, fn: (s: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return fn(value);
  if (depth > 100 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, fn, depth + 1));
  if (value instanceof Error) {
    const copy = new Error(fn(value.message));
    copy.name = value.name;
    for (const [k, v] of Object.entries(value)) (copy as unknown as Record<string, unknown>)[k] = mapStrings(v, fn, depth + 1);
    if (value.stack) copy.stack = fn(value.stack);
    return copy;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[fn(k)] = mapStrings(v, fn, depth + 1);
  return out;
}
