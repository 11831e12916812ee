import { JOB_COLUMNS, rowToJobSnapshot, type JobSnapshot } from '../domain/job.js';
import type { Pool } from './pool.js';
import { startedRuns } from './runs/end-rules.js';
import { JOB } from './runs/vocabulary.js';

/** A job whose slots may come due: ACTIVE, or PAUSED until an instant. */
export interface SchedulableJob {
  job: JobSnapshot;
  /** Its next slots still to be recorded SKIPPED (skipNextRuns). */
  skipRemaining: number;
  /** Runs its `maxRuns` still allows; null without `maxRuns`. */
  runsLeft: number | null;
}

const COLUMNS = `${JOB_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}, j.skip_remaining,
  CASE WHEN j.max_runs IS NULL THEN NULL ELSE j.max_runs - ${startedRuns('j')} END AS runs_left`;
const SCHEDULABLE = `(j.status = ${JOB.ACTIVE} OR (j.status = ${JOB.PAUSED} AND j.paused_until IS NOT NULL))`;

const toSchedulable = (row: Record<string, unknown>): SchedulableJob => ({
  job: rowToJobSnapshot(row),
  skipRemaining: Number(row.skip_remaining ?? 0),
  runsLeft: row.runs_left == null ? null : Math.max(0, Number(row.runs_left)),
});

/** Every job whose slots may come due (ACTIVE, or PAUSED until an instant); with `ids`, only those that still are. */
export async function loadSchedulableJobs(pool: Pool, ids?: readonly string[]): Promise<SchedulableJob[]> {
  const res = ids
    ? await pool.query(`SELECT ${COLUMNS} FROM cron_job_definitions j WHERE j.id = ANY($1::uuid[]) AND ${SCHEDULABLE}`, [ids])
    : await pool.query(`SELECT ${COLUMNS} FROM cron_job_definitions j WHERE ${SCHEDULABLE}`);
  return res.rows.map(toSchedulable);
}

/**
 * What changes of these jobs without a notification: the slots left to skip (the fire path counts
 * them down) and the runs left (each run started counts).
 */
export async function loadCounts(pool: Pool, ids: readonly string[]): Promise<Map<string, { skipRemaining: number; runsLeft: number | null }>> {
  if (ids.length === 0) return new Map();
  const res = await pool.query(
    `SELECT j.id, j.skip_remaining, CASE WHEN j.max_runs IS NULL THEN NULL ELSE j.max_runs - ${startedRuns('j')} END AS runs_left
     FROM cron_job_definitions j WHERE j.id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id as string, { skipRemaining: Number(r.skip_remaining), runsLeft: r.runs_left == null ? null : Math.max(0, Number(r.runs_left)) }]));
}
