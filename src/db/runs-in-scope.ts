import type { LabelSelector } from '../domain/label-selector.js';
import { labelSelectorSql } from './label-selector-sql.js';

/**
 * The runs of the job versions a selector matches, as a condition on a runs query's job column
 * (`job_definition_id`, `r.job_definition_id`): a run is its job version's, and the versions'
 * labels are matched through their index (db/label-selector-sql.ts). What a scoped token sees of
 * run history (domain/scope.ts), and a `labelSelector` of a run filter, both read it. `TRUE`
 * without a selector. Values are appended to `params`.
 */
export function runsOfSelectorSql(jobColumn: string, selector: LabelSelector | null | undefined, params: unknown[]): string {
  if (!selector || selector.terms.length === 0) return 'TRUE';
  return `${jobColumn} IN (SELECT id FROM cron_job_definitions WHERE ${labelSelectorSql('labels', selector, params)})`;
}
