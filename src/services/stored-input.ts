import { CronqlError } from '../errors.js';

/**
 * What PostgreSQL can store, checked before it is asked to: text without NUL characters and
 * without lone UTF-16 surrogates (PostgreSQL refuses the first; the second is refused in jsonb and
 * silently replaced in text), JSON numbers within JSON's range (`1e999` parses as Infinity, which
 * JSON.stringify would store as null — data lost without a word), and JSON no deeper than
 * MAX_JSON_DEPTH (a payload 10,000 levels deep would overflow the stack of every recursive
 * walker after this one). Every text and JSON input that reaches the database passes here, so
 * bad input fails with BAD_USER_INPUT and changes nothing.
 */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored, or null. */
function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return null;
}

const bad = (field: string, problem: string) => new CronqlError('BAD_USER_INPUT', `${field} ${problem}`, { field });

/** A text input (reason, filter, name): throws BAD_USER_INPUT when the database cannot store it. */
export function checkText(field: string, value: string | null | undefined): void {
  if (typeof value !== 'string') return;
  const problem = textProblem(value);
  if (problem) throw bad(field, problem);
}

/**
 * A JSON input (payload): walked without recursion, so no depth can overflow the stack here;
 * throws BAD_USER_INPUT naming the first offending path.
 */
export function checkJson(field: string, value: unknown): void {
  const stack: { v: unknown; path: string; depth: number }[] = [{ v: value, path: field, depth: 0 }];
  while (stack.length > 0) {
    const { v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) throw bad(path, problem);
    } else if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw bad(path, 'is a number outside the range JSON can represent');
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_JSON_DEPTH) throw bad(field, `is nested deeper than ${MAX_JSON_DEPTH} levels`);
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1 });
      } else {
        for (const [k, child] of Object.entries(v)) {
          const problem = textProblem(k);
          if (problem) throw bad(`${path} key ${JSON.stringify(k.replaceAll('\u0000', '\\u0000'))}`, problem);
          stack.push({ v: child, path: `${path}.${k}`, depth: depth + 1 });
        }
      }
    } else if (v !== null && typeof v !== 'boolean') {
      throw bad(path, `holds a ${typeof v}, which is not JSON`);
    }
  }
}
