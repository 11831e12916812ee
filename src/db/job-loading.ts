import { PARTITION_OF_KEY, PARTITIONS } from '../domain/partitions.js';
import { JOB_COLUMNS, rowToJobSnapshot, type JobSnapshot } from '../domain/job.js';
import type { Pool } from './pool.js';
import { JOB, SCHEDULED } from './runs/vocabulary.js';

/** An ACTIVE job as the runtime arms it, with how far its slots are accounted for. */
export interface ArmableJob {
  job: JobSnapshot;
  /**
   * The job's ledger: the latest SCHEDULED run's slot, or the instant the job became ACTIVE,
   * whichever is later. Slots after it and before now were missed.
   */
  ledger: Date;
}

/**
 * The ACTIVE jobs of `partitions` (null or every partition: all of them) with their ledger. The
 * share by partition (an expression index answers it), not every job filtered in memory; the
 * latest SCHEDULED run per job from the slot key's index.
 */
export async function loadActiveJobs(pool: Pool, partitions: ReadonlySet<number> | null): Promise<ArmableJob[]> {
  const all = partitions === null || partitions.size === PARTITIONS;
  const res = await pool.query(
    `SELECT ${JOB_COLUMNS}, greatest(j.active_since,
       (SELECT max(r.scheduled_at) FROM cron_job_runs r WHERE r.job_definition_id = j.id AND r.trigger_type = ${SCHEDULED} AND r.attempt = 1)) AS ledger
     FROM cron_job_definitions j WHERE j.status = ${JOB.ACTIVE}${all ? '' : ` AND ${PARTITION_OF_KEY} = ANY($1::int[])`}`,
    all ? [] : [[...partitions!]],
  );
  return res.rows.map((row) => ({ job: rowToJobSnapshot(row), ledger: new Date(row.ledger) }));
}

/** The current definitions of these jobs (uuids), whatever their status; a job that no longer exists is absent. */
export async function loadJobs(pool: Pool, jobIds: readonly string[]): Promise<JobSnapshot[]> {
  const res = await pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE id = ANY($1::uuid[])`, [jobIds]);
  return res.rows.map(rowToJobSnapshot);
}
