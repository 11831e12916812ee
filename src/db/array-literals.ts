/**
 * Array parameters of the fire path and of the ends that follow it, as PostgreSQL array literals
 * built in one pass: pg would serialise a `Date[]` element by element in local time with padding
 * and escape every string, ~2 µs an element here — 10,000 co-due slots sent three arrays of 10,000
 * before the statement left (~20–40 ms of the event loop between the slot and the database;
 * BENCHMARKS.md, "Co-due as a user feels it"), and their 10,000 ends eleven. Only for values that
 * need no quoting: uuids read from the database, instants as ISO 8601 (no comma, brace, quote,
 * backslash or space in either) and enum names.
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

/**
 * `{SUCCEEDED,FAILED,…}` for a `text[]` of words that need no quoting: the names of cronql's own
 * enums (letters and underscores; never the word NULL).
 */
export const wordArray = (words: readonly string[]): string => `{${words.join(',')}}`;

/**
 * A nullable array parameter: `{NULL,NULL,…}` when every element is null — the common case of a
 * batch of ends (no output, no failure, no report) — else the values, for pg to serialise.
 */
export function nullsOr<T>(values: readonly (T | null)[]): string | readonly (T | null)[] {
  for (const v of values) if (v !== null) return values;
  return values.length === 0 ? '{}' : `{${'NULL,'.repeat(values.length - 1)}NULL}`;
}
