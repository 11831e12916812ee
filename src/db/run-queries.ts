import type { RunStatus, TriggerType } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import { rowToRun } from './runs/record.js';
import { RUN_COLUMNS } from './runs/vocabulary.js';
import type { Pool } from './pool.js';
import type { LabelSelector } from '../domain/label-selector.js';
import { labelSelectorSql } from './label-selector-sql.js';

/**
 * The reads of run history the API serves (lists, counts, pages per job, latest run per job).
 * What the runtime writes and reads while it fires is run-store.ts's; runs by id, run-loading.ts.
 */

export interface RunFilter {
  jobId?: string | null;
  jobKey?: string | null;
  status?: RunStatus[] | null;
  target?: string | null;
  triggerType?: TriggerType[] | null;
  scheduledAfter?: Date | null;
  scheduledBefore?: Date | null;
  /** Runs of the job versions whose labels match (parsed by the caller); none or no terms: every run. */
  selector?: LabelSelector | null;
}

/**
 * A selector's runs are read by job: when it matches at most this many job versions, a page reads
 * each one's newest runs through the (job, scheduled_at) index and merges them (bounded by this
 * many times a page, wherever in time the runs are); beyond, the history is read newest first and
 * filtered by the versions' ids (a hashed list, up to SELECTOR_JOBS_LISTED; a semi-join past it):
 * the runs of that many versions are dense enough in the history that a page is found soon.
 */
export const SELECTOR_JOBS_BY_INDEX = 200;
export const SELECTOR_JOBS_LISTED = 20_000;

/** Where a page resumes: after the run at (scheduledAt, id), newest first. */
export interface RunPosition {
  at: Date;
  id: string;
}

/**
 * The WHERE conditions of a run filter, its values appended to `params`. The caller checked the
 * filter (its text; its job id is a uuid).
 */
export function runFilterSql(filter: RunFilter, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.jobId) add('job_definition_id = ?', filter.jobId);
  // A run's key is its job version's: the versions' runs are found through the job index.
  if (filter.jobKey) add('job_definition_id IN (SELECT id FROM cron_job_definitions WHERE job_key = ?)', filter.jobKey);
  if (filter.status?.length) add('status = ANY(?::text[])', filter.status);
  // A run's target is its job version's: found through the jobs' target index (runs have none).
  if (filter.target) add('job_definition_id IN (SELECT id FROM cron_job_definitions WHERE target = ?)', filter.target);
  if (filter.triggerType?.length) add('trigger_type = ANY(?::text[])', filter.triggerType);
  if (filter.scheduledAfter) add('scheduled_at > ?', filter.scheduledAfter);
  if (filter.scheduledBefore) add('scheduled_at < ?', filter.scheduledBefore);
  // A run's labels are its job version's: the versions found through the labels' GIN index.
  if (filter.selector?.terms.length) {
    where.push(`job_definition_id IN (SELECT d.id FROM cron_job_definitions d WHERE ${labelSelectorSql('d.labels', filter.selector, params)})`);
  }
  return where;
}

const whereClause = (where: string[]) => (where.length ? ` WHERE ${where.join(' AND ')}` : '');

/** How many runs match `filter`. */
export async function countRuns(pool: Pool, filter: RunFilter): Promise<number> {
  const params: unknown[] = [];
  const where = runFilterSql(filter, params);
  const res = await pool.query(`SELECT count(*)::int AS n FROM cron_job_runs${whereClause(where)}`, params);
  return res.rows[0].n;
}

/**
 * Up to `limit` runs matching `filter` after `position`, newest scheduledAt first. With `byKey`
 * (one job's runs over all its versions) each version's runs are read newest first and merged:
 * a page reads at most a page per version, however long the job's history is.
 */
export async function pageRuns(
  pool: Pool,
  filter: RunFilter,
  byKey: string | undefined,
  position: RunPosition | undefined,
  limit: number,
): Promise<RunRecord[]> {
  // A selector that matches few job versions: those versions' runs by the (job, time) index.
  let versions: string[] | undefined;
  let listed: string[] | undefined;
  if (!byKey && !filter.jobId && filter.selector?.terms.length) {
    const params: unknown[] = [];
    const res = await pool.query(
      `SELECT d.id FROM cron_job_definitions d WHERE ${labelSelectorSql('d.labels', filter.selector, params)} LIMIT ${SELECTOR_JOBS_LISTED + 1}`,
      params,
    );
    const ids = res.rows.map((r) => r.id as string);
    if (ids.length === 0) return [];
    if (ids.length <= SELECTOR_JOBS_BY_INDEX) versions = ids;
    else if (ids.length <= SELECTOR_JOBS_LISTED) listed = ids;
  }
  const params: unknown[] = [];
  const where = runFilterSql(byKey ? { ...filter, jobKey: undefined } : versions || listed ? { ...filter, selector: null } : filter, params);
  if (listed) {
    params.push(listed);
    where.push(`job_definition_id = ANY($${params.length}::uuid[])`);
  }
  if (position) {
    params.push(position.at, position.id);
    where.push(`(scheduled_at, id) < ($${params.length - 1}, $${params.length}::uuid)`);
  }
  params.push(limit);
  const limitParam = `$${params.length}`;
  let text: string;
  if (byKey || versions) {
    params.push(byKey ?? versions);
    const jobs = byKey ? `SELECT id FROM cron_job_definitions WHERE job_key = $${params.length}` : `SELECT unnest($${params.length}::uuid[]) AS id`;
    text = `SELECT r.* FROM (${jobs}) v
      CROSS JOIN LATERAL (SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE ${['job_definition_id = v.id', ...where].join(' AND ')}
        ORDER BY scheduled_at DESC, id DESC LIMIT ${limitParam}) r
      ORDER BY r.scheduled_at DESC, r.id DESC LIMIT ${limitParam}`;
  } else {
    text = `SELECT ${RUN_COLUMNS} FROM cron_job_runs${whereClause(where)}
     ORDER BY scheduled_at DESC, id DESC LIMIT ${limitParam}`;
  }
  const res = await pool.query(text, params);
  return res.rows.map(rowToRun);
}

/**
 * For each of `jobIds`, up to `limit` of its runs (of `status`, when given) after `position`,
 * newest first, and how many it has (of `status`): two statements for all the jobs.
 */
export async function runPagesOfJobs(
  pool: Pool,
  jobIds: readonly string[],
  status: RunStatus[] | null,
  position: RunPosition | undefined,
  limit: number,
): Promise<{ runs: RunRecord[]; totals: Map<string, number> }> {
  if (jobIds.length === 0) return { runs: [], totals: new Map() };
  const params: unknown[] = [jobIds, status, limit];
  let keyset = '';
  if (position) {
    params.push(position.at, position.id);
    keyset = 'AND (scheduled_at, id) < ($4, $5::uuid)';
  }
  const [rows, counts] = await Promise.all([
    pool.query(
      `SELECT r.* FROM unnest($1::uuid[]) AS j(id)
       CROSS JOIN LATERAL (
         SELECT ${RUN_COLUMNS} FROM cron_job_runs
         WHERE job_definition_id = j.id AND ($2::text[] IS NULL OR status = ANY($2::text[])) ${keyset}
         ORDER BY scheduled_at DESC, id DESC LIMIT $3) r`,
      params,
    ),
    pool.query(
      `SELECT job_definition_id AS id, count(*)::int AS n FROM cron_job_runs
       WHERE job_definition_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR status = ANY($2::text[]))
       GROUP BY job_definition_id`,
      [jobIds, status],
    ),
  ]);
  return { runs: rows.rows.map(rowToRun), totals: new Map(counts.rows.map((c) => [c.id as string, c.n as number])) };
}

/** The latest run (by scheduledAt) of each of `jobIds` that has one. */
export async function lastRunsOfJobs(pool: Pool, jobIds: readonly string[]): Promise<RunRecord[]> {
  if (jobIds.length === 0) return [];
  const res = await pool.query(
    `SELECT r.* FROM unnest($1::uuid[]) AS j(id)
     CROSS JOIN LATERAL (
       SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE job_definition_id = j.id
       ORDER BY scheduled_at DESC, id DESC LIMIT 1) r`,
    [jobIds],
  );
  return res.rows.map(rowToRun);
}
