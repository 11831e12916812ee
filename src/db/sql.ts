/**
 * SQL text built from the domain's own values, so that a status or a code is written once (in
 * `domain/enums.ts`) and statements never spell it again (the run statements' words are in
 * `runs/vocabulary.ts`; test/db/sql-vocabulary.test.ts finds any value quoted by hand in src/db).
 * Only identifiers-like values are accepted: these are fixed vocabulary, never user input (that
 * always goes in parameters).
 */
const SAFE = /^[A-Z][A-Z0-9_]*$/;

/** `'VALUE'`, a SQL string literal of a vocabulary value. */
export function lit(value: string): string {
  if (!SAFE.test(value)) throw new Error(`not a vocabulary value: ${value}`);
  return `'${value}'`;
}

/** `'A', 'B'`, for `IN (…)`. */
export const litList = (values: readonly string[]): string => values.map(lit).join(', ');
