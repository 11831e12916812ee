import type { JobQuery } from '../db/job-store.js';
import type { JobSnapshot } from '../domain/job.js';
import { matchesSelector, parseLabelSelector } from '../domain/label-selector.js';
import { checkText } from './stored-input.js';

/** A filter of jobs as the API takes it (`JobFilter`): the selector as text. */
export type JobFilter = Omit<JobQuery, 'selector'> & { labelSelector?: string | null };

/**
 * The filter as the data layer takes it: its text checked (BAD_USER_INPUT), its label selector
 * parsed (INVALID_SELECTOR). Null or omitted: no selector; empty: one that matches every job.
 */
export function toJobQuery(filter: JobFilter): JobQuery {
  const { labelSelector, ...rest } = filter;
  checkText('filter.target', rest.target);
  checkText('filter.key', rest.key);
  checkText('filter.keyContains', rest.keyContains);
  return { ...rest, selector: labelSelector == null ? null : parseLabelSelector(labelSelector) };
}

/** Whether nothing in the query narrows the jobs. */
export const filtersNothing = (q: JobQuery): boolean =>
  !q.status?.length && !q.target && !q.key && !q.keyContains && !q.scheduleType && !q.selector?.terms.length;

/** The in-memory form of the same query (what the upcoming timeline filters its jobs with). */
export function jobMatches(j: JobSnapshot, q: JobQuery): boolean {
  const contains = q.keyContains?.toLowerCase();
  return (
    (!q.status?.length || q.status.includes(j.status)) &&
    (!q.target || j.target === q.target) &&
    (!q.key || j.jobKey === q.key) &&
    (!contains || j.jobKey.toLowerCase().includes(contains)) &&
    (!q.scheduleType || j.scheduleType === q.scheduleType) &&
    (!q.selector || matchesSelector(q.selector, j.labels))
  );
}
