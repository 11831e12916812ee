import { PARTITION_OF_KEY, PARTITIONS } from '../domain/partitions.js';
import { JOB_COLUMNS, rowToJobSnapshot, type JobRecord, type JobSnapshot } from '../domain/job.js';
import type { Pool } from './pool.js';
import { JOB, S, SCHEDULED } from './runs/vocabulary.js';

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

/** A job's last success, read from its runs (as the entity's formula does), for a query over `cron_job_definitions j`. */
export const LAST_SUCCESS_AT = `(SELECT max(r.finished_at) FROM cron_job_runs r WHERE r.job_definition_id = j.id AND r.status = ${S.SUCCEEDED}) AS last_success_at`;

/**
 * A job record's columns beyond the snapshot's, and its last success (read from the runs, as the
 * entity's formula does), for a query over `cron_job_definitions j`.
 */
export const RECORD_COLUMNS = `j.final_slot_at, j.consecutive_failures, j.last_failure_at, j.pause_reason, j.skip_remaining, j.skip_reason, j.supersedes_job_id,
  j.created_by, j.updated_by, j.created_at,
  ${LAST_SUCCESS_AT}`;

/** Every column of a job record, for a query over `cron_job_definitions j`. */
export const RECORD_SELECT = `${JOB_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}, ${RECORD_COLUMNS}`;

/**
 * The records of these job versions (uuids), in no particular order: one plain statement, what
 * every page of runs asks for its runs' jobs (GraphQL loaders) — an ORM unit of work per page
 * cost more than the statement.
 */
export async function loadJobRecords(pool: Pool, jobIds: readonly string[]): Promise<JobRecord[]> {
  const res = await pool.query(
    `SELECT ${RECORD_SELECT} FROM cron_job_definitions j WHERE j.id = ANY($1::uuid[])`,
    [jobIds],
  );
  return res.rows.map(rowToJobRecord);
}

/**
 * The newest version of each of these keys (its live one, or its last if the key is RETIRED), in
 * no particular order: what an AFTER job's upstreams are shown as (`Job.after`).
 */
export async function loadNewestByKeys(pool: Pool, keys: readonly string[]): Promise<JobRecord[]> {
  if (keys.length === 0) return [];
  const res = await pool.query(
    `SELECT DISTINCT ON (j.job_key) ${JOB_COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}, ${RECORD_COLUMNS}
     FROM cron_job_definitions j WHERE j.job_key = ANY($1::text[]) ORDER BY j.job_key, j.version DESC`,
    [keys],
  );
  return res.rows.map(rowToJobRecord);
}

/** The record of a job row read with `RECORD_COLUMNS` (or just inserted: no last success yet). */
export function rowToJobRecord(row: Record<string, unknown>): JobRecord {
  const at = (v: unknown) => (v == null ? null : new Date(v as string | Date));
  return {
    ...rowToJobSnapshot(row),
    finalSlotAt: at(row.final_slot_at),
    consecutiveFailures: Number(row.consecutive_failures),
    lastSuccessAt: at(row.last_success_at),
    lastFailureAt: at(row.last_failure_at),
    pauseReason: (row.pause_reason as string | null) ?? null,
    skipRemaining: Number(row.skip_remaining ?? 0),
    skipReason: (row.skip_reason as string | null) ?? null,
    supersedesId: (row.supersedes_job_id as string | null) ?? null,
    createdBy: (row.created_by as string | null) ?? null,
    updatedBy: (row.updated_by as string | null) ?? null,
    createdAt: at(row.created_at)!,
  };
}
