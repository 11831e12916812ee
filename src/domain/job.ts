import { CatchUpPolicy, JobStatus, ScheduleType } from './enums.js';

/** What the runtime needs of a job definition: a plain snapshot, detached from any ORM session. */
export interface JobSnapshot {
  id: string;
  jobKey: string;
  version: number;
  target: string;
  payload: unknown;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: Date | null;
  timezone: string;
  timeoutSeconds: number | null;
  status: JobStatus;
  /** What becomes of missed slots. */
  catchUp: CatchUpPolicy;
  /** ALL: the most missed slots run per gap. */
  catchUpLimit: number | null;
  /** Bumped by the database on every change: snapshots apply in revision order. */
  revision: number;
  updatedAt: Date;
}

export const JOB_COLUMNS = `id, job_key, version, target, payload, schedule_type, cron_expression, run_at, timezone,
  timeout_seconds, status, catch_up, catch_up_limit, revision, updated_at`;

export function rowToJobSnapshot(row: Record<string, unknown>): JobSnapshot {
  return {
    id: row.id as string,
    jobKey: row.job_key as string,
    version: Number(row.version),
    target: row.target as string,
    payload: row.payload ?? null,
    scheduleType: row.schedule_type as ScheduleType,
    cronExpression: (row.cron_expression as string) ?? null,
    runAt: row.run_at == null ? null : new Date(row.run_at as string),
    timezone: row.timezone as string,
    timeoutSeconds: row.timeout_seconds == null ? null : Number(row.timeout_seconds),
    status: row.status as JobStatus,
    catchUp: (row.catch_up as CatchUpPolicy) ?? CatchUpPolicy.NONE,
    catchUpLimit: row.catch_up_limit == null ? null : Number(row.catch_up_limit),
    revision: Number(row.revision),
    updatedAt: new Date(row.updated_at as string),
  };
}
