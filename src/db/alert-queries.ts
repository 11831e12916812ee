import type { JobStatus } from '../domain/enums.js';
import type { Pool } from './pool.js';

/** What a failure alert says of a job, and what tells whether the failure paused it. */
export interface JobAlertState {
  id: string;
  key: string;
  version: number;
  target: string;
  status: JobStatus;
  updatedBy: string | null;
  pauseReason: string | null;
  consecutiveFailures: number;
  pauseAfterFailures: number | null;
}

/** The job a failed run belongs to, as its end left it; null when it no longer exists. */
export async function jobAlertState(pool: Pool, jobId: string): Promise<JobAlertState | null> {
  const res = await pool.query(
    `SELECT id, job_key, version, target, status, updated_by, pause_reason, consecutive_failures, pause_after_failures
     FROM cron_job_definitions WHERE id = $1`,
    [jobId],
  );
  const row = res.rows[0];
  if (!row) return null;
  return {
    id: row.id,
    key: row.job_key,
    version: Number(row.version),
    target: row.target,
    status: row.status,
    updatedBy: row.updated_by,
    pauseReason: row.pause_reason,
    consecutiveFailures: Number(row.consecutive_failures),
    pauseAfterFailures: row.pause_after_failures == null ? null : Number(row.pause_after_failures),
  };
}
