import type { LabelSelector, SelectorTerm } from '../domain/label-selector.js';

/**
 * A label selector (domain/label-selector.ts) as a SQL condition over a jsonb `labels` column,
 * its values appended to `params` as `$n` parameters (node-postgres). The in-memory evaluation,
 * `matchesSelector`, is the rule; this is the same rule for the database
 * (test/graphql/labels.test.ts compares the two over generated selectors).
 *
 * Positive terms are written with the operators a GIN index (jsonb_ops) serves — `=` as
 * `labels @> '{"k":"v"}'`, `in` as an OR of those, exists as `labels ? 'k'` — so a selector with
 * one of them reads the index (cron_job_definitions_labels_gin). Negative terms (`!=`, `notin`,
 * `!k`) are their negations and filter what the rest of the query reads.
 *
 * `column` is the labels column as the query names it (`labels`, `d.labels`).
 */
export function labelSelectorSql(column: string, selector: LabelSelector, params: unknown[]): string {
  if (selector.terms.length === 0) return 'TRUE';
  return selector.terms.map((term) => termSql(column, term, params)).join(' AND ');
}

function termSql(column: string, term: SelectorTerm, params: unknown[]): string {
  const param = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
  const contains = (value: string) => `${column} @> ${param(JSON.stringify({ [term.key]: value }), 'jsonb')}`;
  switch (term.op) {
    case 'eq':
      return contains(term.value);
    case 'neq':
      return `NOT (${contains(term.value)})`;
    case 'in':
      return `(${term.values.map(contains).join(' OR ')})`;
    case 'notin':
      return `NOT (${term.values.map(contains).join(' OR ')})`;
    case 'exists':
      return `${column} ? ${param(term.key, 'text')}`;
    case 'notexists':
      return `NOT (${column} ? ${param(term.key, 'text')})`;
  }
}
