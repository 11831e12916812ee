import type { JobStatus, ScheduleType } from '../domain/enums.js';
import type { JobRecord } from '../domain/job.js';
import type { LabelSelector } from '../domain/label-selector.js';
import { labelSelectorSql } from './label-selector-sql.js';
import { RECORD_SELECT, rowToJobRecord } from './job-loading.js';
import type { Pool } from './pool.js';

/** Which job versions a list shows (the caller checked the text and parsed the selector). */
export interface JobQuery {
  status?: JobStatus[] | null;
  target?: string | null;
  key?: string | null;
  /** Keys containing this text, ignoring case. */
  keyContains?: string | null;
  scheduleType?: ScheduleType | null;
  /** Versions whose labels match (domain/label-selector.ts); null: every version. */
  selector?: LabelSelector | null;
}

/** The WHERE conditions of a job query over `cron_job_definitions j`, its values appended to `params`. */
export function jobQuerySql(query: JobQuery, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (query.status?.length) add('j.status = ANY(?::text[])', query.status);
  if (query.target) add('j.target = ?', query.target);
  if (query.key) add('j.job_key = ?', query.key);
  // A search box's text: LIKE's own wildcards in it are literal characters.
  if (query.keyContains) add(`j.job_key ILIKE ?`, `%${query.keyContains.replace(/[\\%_]/g, '\\$&')}%`);
  if (query.scheduleType) add('j.schedule_type = ?', query.scheduleType);
  // Positive terms read the labels' GIN index (label-selector-sql.ts).
  if (query.selector && query.selector.terms.length > 0) where.push(labelSelectorSql('j.labels', query.selector, params));
  return where;
}

const hasPositiveTerm = (q: JobQuery): boolean => !!q.selector?.terms.some((t) => t.op === 'eq' || t.op === 'in' || t.op === 'exists');

/**
 * Up to `limit` versions matching `query` after `position`, newest first (createdAt, then id),
 * and how many match in all: two plain statements at once. A selector's positive terms narrow
 * both through the GIN index on labels; without one, the page reads the (created_at, id) index.
 */
export async function listJobs(
  pool: Pool,
  query: JobQuery,
  position: { at: Date; id: string } | undefined,
  limit: number,
): Promise<{ rows: JobRecord[]; total: number }> {
  const params: unknown[] = [];
  const where = jobQuerySql(query, params);
  const countParams = [...params];
  const countWhere = where.length ? ` WHERE ${where.join(' AND ')}` : '';
  if (position) {
    params.push(position.at, position.id);
    where.push(`(j.created_at, j.id) < ($${params.length - 1}, $${params.length}::uuid)`);
  }
  params.push(limit);
  // A selector with a positive term: its versions found through the GIN index first, then
  // sorted. Left to itself the planner reads the (created_at, id) index newest first and filters
  // each row (its estimate of a label's rows is a constant): fine for a common label, the whole
  // table for a rare one. Materialized, a page costs what its count costs.
  const from = hasPositiveTerm(query)
    ? `(WITH m AS MATERIALIZED (SELECT * FROM cron_job_definitions j WHERE ${where.join(' AND ')}) SELECT * FROM m) j`
    : `cron_job_definitions j${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const [rows, count] = await Promise.all([
    pool.query(`SELECT ${RECORD_SELECT} FROM ${from} ORDER BY j.created_at DESC, j.id DESC LIMIT $${params.length}`, params),
    pool.query(`SELECT count(*)::int AS n FROM cron_job_definitions j${countWhere}`, countParams),
  ]);
  return { rows: rows.rows.map(rowToJobRecord), total: count.rows[0].n };
}
