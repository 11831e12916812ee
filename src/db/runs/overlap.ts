import { FailureCode } from '../../domain/enums.js';
import { Channel } from '../notifier.js';
import type { Query } from './context.js';
import { afterRunsEnd, changedRows } from './end-rules.js';
import { BUFFER_LANE, OVERLAP, S, qualified } from './vocabulary.js';

/**
 * What a new run does while its job is busy (the job's overlap policy), as the pieces of the
 * statements that create runs: which lane it takes, whether a buffered slot holds it back, and
 * how CANCEL_PREVIOUS ends the runs it replaces. The lanes' unique index is what enforces it.
 */

/**
 * The lane a new run of job `j` takes: the first free one of an ALLOW job that may run several
 * at once (a race for it is settled by the unique index: the loser inserts nothing), else 0 —
 * where a busy lane makes the insert do nothing, and the slot goes on to its overlap policy.
 */
export const FREE_LANE = `CASE WHEN j.overlap = ${OVERLAP.ALLOW} AND j.max_concurrent_runs > 1 THEN coalesce((
    SELECT min(l) FROM generate_series(0, j.max_concurrent_runs - 1) l
    WHERE NOT EXISTS (SELECT 1 FROM cron_job_runs a WHERE a.job_definition_id = j.id AND a.lane = l AND a.status IN (${S.ACTIVE_RUN}))
  ), 0) ELSE 0 END`;

/**
 * The lane a new run of job `j` takes (`FREE_LANE`) holds no active run: what the lanes' unique
 * index would refuse, asked first by a statement that must not meet the index (fire.ts,
 * `claimRunning`: a job still running its last slot is common, and inserts nothing, as before).
 */
export const LANE_IS_FREE = `NOT EXISTS (SELECT 1 FROM cron_job_runs busy
    WHERE busy.job_definition_id = j.id AND busy.lane = ${FREE_LANE} AND busy.status IN (${S.ACTIVE_RUN}))`;

/** A BUFFER_ONE job with a slot waiting: that slot starts first, a new one cannot overtake it. */
export const NOT_BEHIND_BUFFER = `(j.overlap <> ${OVERLAP.BUFFER_ONE} OR NOT EXISTS (
    SELECT 1 FROM cron_job_runs b WHERE b.job_definition_id = j.id AND b.lane = ${BUFFER_LANE} AND b.status = ${S.PENDING}))`;

/** The message of a slot (or run-now) SKIPPED/OVERLAP. */
export const OVERLAP_MESSAGE = 'skipped: a run of this job was still active when the slot came due';
const REPLACED_MESSAGE = 'canceled: a newer run of this job replaced it (overlap: CANCEL_PREVIOUS)';

/** Within a transaction: waits for the job's advisory lock (CANCEL_PREVIOUS's cancel-and-start, one instance at a time). */
export const lockJob = (q: Query, jobId: string) => q('SELECT pg_advisory_xact_lock(hashtextextended($1::text, 7))', [jobId]);

/** Within a transaction: the job's PENDING and RUNNING runs end CANCELED/REPLACED (rows of `changedRows`). */
export async function cancelActive(q: Query, jobId: string, now: Date): Promise<Record<string, unknown>[]> {
  const res = await q(
    `WITH done AS (
         UPDATE cron_job_runs r SET status = ${S.CANCELED}, finished_at = $2, updated_at = $2, failure_code = $3, failure_message = $4
         FROM (SELECT id, status FROM cron_job_runs WHERE job_definition_id = $1 AND status IN (${S.ACTIVE_RUN}) ORDER BY id FOR UPDATE) before
         WHERE r.id = before.id
         RETURNING ${qualified('r')}, before.status AS previous_status
       ), cancel_notices AS (SELECT count(pg_notify('${Channel.RUN_CANCELED}', id::text)) AS n FROM done),
       ${afterRunsEnd('done', '$2')}
       ${changedRows('done', ['previous_status'], ['cancel_notices'])}`,
    [jobId, now, FailureCode.REPLACED, REPLACED_MESSAGE],
  );
  return res.rows;
}
