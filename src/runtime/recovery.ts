import type { Pool } from '../db/pool.js';
import { FailureCode, TERMINAL_RUN_STATUSES } from '../domain/enums.js';
import { afterRunsEnd, changedRows } from './run-recorder.js';
import { RUN_COLUMNS, rowToRun, type RunRecord } from '../domain/run.js';

export interface RecoveryResult {
  /** RUNNING runs older than the stale threshold, now FAILED (STALE_TIMEOUT). */
  staled: RunRecord[];
  /** One-time jobs retired because their run had ended before the previous process stopped. */
  retiredJobIds: string[];
}

/**
 * PENDING runs (created before `createdBefore`, if given), oldest first, at most `limit`. At startup they are
 * claimed, then executed, each by exactly one instance (the claim is a conditional update).
 */
export async function pendingRunIds(pool: Pool, createdBefore?: Date, limit = 10_000): Promise<string[]> {
  const res = await pool.query(
    `SELECT id FROM cron_job_runs WHERE status = 'PENDING' AND ($1::timestamptz IS NULL OR created_at < $1)
     ORDER BY created_at, id LIMIT $2`,
    [createdBefore ?? null, limit],
  );
  return res.rows.map((r) => r.id as string);
}

/**
 * Startup recovery, before any timer is armed (PRODUCT.md rule 3). Runs that were recorded but
 * never finished are settled; windows that were never recorded are not replayed (rule 4).
 */
export async function recover(pool: Pool, now: Date, staleAfterMs: number, instanceId: string): Promise<RecoveryResult> {
  const staleBefore = new Date(now.getTime() - staleAfterMs);
  // Stale: started longer ago than the threshold. Also, whatever age, runs recorded as running on
  // this very instance id (a fixed CRONQL_INSTANCE_ID restarted): nothing of this process runs
  // them yet, so their runner is gone.
  const staled = await pool.query(
    `WITH done AS (
       UPDATE cron_job_runs SET status = 'FAILED', finished_at = $2, updated_at = $2, failure_code = $3,
         failure_message = CASE WHEN started_at < $1 THEN $4 ELSE $6 END,
         failure_details = jsonb_build_object('staleAfterMs', $5::bigint, 'runnerInstanceId', runner_instance_id)
       WHERE status = 'RUNNING' AND (started_at < $1 OR runner_instance_id = $7)
       RETURNING ${RUN_COLUMNS}
     ), ${afterRunsEnd('done', '$2')}
     ${changedRows('done')}`,
    [
      staleBefore,
      now,
      FailureCode.STALE_TIMEOUT,
      'the run was still RUNNING when cronql started, and had started longer ago than the stale threshold',
      staleAfterMs,
      'the run was still RUNNING on this instance id when it restarted',
      instanceId,
    ],
  );
  // A one-time job whose scheduled run ended but which was not retired: runs of a version of
  // cronql that retired in a separate statement (today the run's end retires it, atomically).
  const retired = await pool.query(
    `UPDATE cron_job_definitions d SET status = 'RETIRED', updated_at = $1
     WHERE d.schedule_type = 'ONE_TIME' AND d.status <> 'RETIRED' AND EXISTS (
       SELECT 1 FROM cron_job_runs r WHERE r.job_definition_id = d.id AND r.trigger_type = 'SCHEDULED'
         AND r.status = ANY($2::text[]))
     RETURNING d.id`,
    [now, TERMINAL_RUN_STATUSES],
  );
  return {
    staled: staled.rows.map(rowToRun),
    retiredJobIds: retired.rows.map((r) => r.id as string),
  };
}
