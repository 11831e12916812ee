import type { ErrorCode } from '../errors.js';

/**
 * Whether the JSON text of `value` would be longer than `limit` bytes, found without writing it:
 * the walk adds up sizes and stops as soon as the limit is passed, so an oversized answer is
 * refused before anything of it is serialised.
 */
export function exceedsBytes(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += Buffer.byteLength(v, 'utf8') + 2;
    else if (v === null || v === undefined || typeof v === 'boolean' || typeof v === 'number') size += 5;
    else if (Array.isArray(v)) {
      size += 2 + v.length;
      for (const item of v) stack.push(item);
    } else if (v instanceof Date) size += 26;
    else if (typeof v === 'object') {
      const entries = Object.entries(v);
      size += 2 + entries.length * 2;
      for (const [k, item] of entries) {
        size += Buffer.byteLength(k, 'utf8') + 2;
        stack.push(item);
      }
    }
    if (size > limit) return true;
  }
  return false;
}

export const RESPONSE_TOO_LARGE: ErrorCode = 'RESPONSE_TOO_LARGE';

export const tooLargeError = (limit: number) => ({
  message: `The answer is larger than the limit of ${limit} bytes (CRONQL_MAX_RESPONSE_BYTES); ask for fewer rows or fields`,
  extensions: { code: RESPONSE_TOO_LARGE },
});
