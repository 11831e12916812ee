/**
 * Array parameters of the fire path, as PostgreSQL array literals built in one pass: pg would
 * serialise a `Date[]` element by element in local time with padding and escape every string,
 * ~2 µs an element here — 10,000 co-due slots sent three arrays of 10,000 before the statement
 * left (~20–40 ms of the event loop between the slot and the database; BENCHMARKS.md, "Co-due
 * as a user feels it"). Only for values that need no quoting: uuids read from the database and
 * instants as ISO 8601 (no comma, brace, quote, backslash or space in either).
 */

/** `{id,id,…}` for a `uuid[]` parameter. */
export const uuidArray = (ids: readonly string[]): string => `{${ids.join(',')}}`;

/**
 * `{2026-…Z,NULL,…}` for a `timestamptz[]` parameter (null: SQL NULL). Co-due slots share their
 * instant: its text is made once for a run of equal instants, not once per element.
 */
export function instantArray(instants: readonly (Date | null)[]): string {
  const texts = new Array<string>(instants.length);
  let lastMs = NaN;
  let lastText = '';
  for (let i = 0; i < instants.length; i++) {
    const at = instants[i];
    if (at === null) {
      texts[i] = 'NULL';
      continue;
    }
    const ms = at.getTime();
    if (ms !== lastMs) {
      lastMs = ms;
      lastText = at.toISOString();
    }
    texts[i] = lastText;
  }
  return `{${texts.join(',')}}`;
}
