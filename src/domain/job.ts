import { BackoffKind, CatchUpPolicy, JobStatus, OverlapPolicy, ScheduleType } from './enums.js';

/** How much of an `http` response a run keeps, unless the job says otherwise; and the most it may say. */
export const DEFAULT_CAPTURE_BYTES = 4_096;
export const MAX_CAPTURE_BYTES = 1_048_576;

/** A job's retry policy: a FAILED attempt whose code is retryable gets a next one, up to `maxAttempts`. */
export interface RetryPolicy {
  /** Attempts per slot, the first included (1–10). */
  maxAttempts: number;
  backoff: BackoffKind;
  /** The base delay d of the backoff. */
  delaySeconds: number;
  /** The cap of the backoff; null: none. */
  maxDelaySeconds: number | null;
  /** Only these failure codes are retried (still never the non-retryable ones); null: every retryable code. */
  retryOn: string[] | null;
}

/** What a retry policy says when it does not say it: exponential backoff from 5 s. */
export const RETRY_DEFAULTS = { backoff: BackoffKind.EXPONENTIAL, delaySeconds: 5 } as const;

/** The retry policy held by a job's five `retry_*` columns (null attempts: no retry). */
export function retryPolicyOf(c: {
  maxAttempts: number | null | undefined;
  backoff: BackoffKind | null | undefined;
  delaySeconds: number | null | undefined;
  maxDelaySeconds: number | null | undefined;
  retryOn: string[] | null | undefined;
}): RetryPolicy | null {
  if (c.maxAttempts == null) return null;
  return {
    maxAttempts: Number(c.maxAttempts),
    backoff: c.backoff ?? RETRY_DEFAULTS.backoff,
    delaySeconds: Number(c.delaySeconds ?? 0),
    maxDelaySeconds: c.maxDelaySeconds == null ? null : Number(c.maxDelaySeconds),
    retryOn: c.retryOn ?? null,
  };
}

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
  /** Null: a failed run is final (the default). */
  retry: RetryPolicy | null;
  /** What a slot does while a run of the job is active. */
  overlap: OverlapPolicy;
  /** ALLOW: how many runs at once. */
  maxConcurrentRuns: number;
  /** Slots start after a deterministic offset in [0, jitterSeconds) (0: on the slot). */
  jitterSeconds: number;
  /** How much of a response the `http` target keeps in the output. */
  captureBytes: number;
  /** Bumped by the database on every change: snapshots apply in revision order. */
  revision: number;
  updatedAt: Date;
}

export const JOB_COLUMNS = `id, job_key, version, target, payload, schedule_type, cron_expression, run_at, timezone,
  timeout_seconds, status, catch_up, catch_up_limit, retry_max_attempts, retry_backoff, retry_delay_seconds,
  retry_max_delay_seconds, retry_on, overlap, max_concurrent_runs, jitter_seconds, capture_bytes, revision, updated_at`;

/** The retry policy of a job row (its `retry_*` columns). */
export function rowToRetry(row: Record<string, unknown>): RetryPolicy | null {
  return retryPolicyOf({
    maxAttempts: row.retry_max_attempts as number | null,
    backoff: row.retry_backoff as BackoffKind | null,
    delaySeconds: row.retry_delay_seconds as number | null,
    maxDelaySeconds: row.retry_max_delay_seconds as number | null,
    retryOn: row.retry_on as string[] | null,
  });
}

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
    retry: rowToRetry(row),
    overlap: (row.overlap as OverlapPolicy) ?? OverlapPolicy.SKIP,
    maxConcurrentRuns: row.max_concurrent_runs == null ? 1 : Number(row.max_concurrent_runs),
    jitterSeconds: row.jitter_seconds == null ? 0 : Number(row.jitter_seconds),
    captureBytes: row.capture_bytes == null ? DEFAULT_CAPTURE_BYTES : Number(row.capture_bytes),
    revision: Number(row.revision),
    updatedAt: new Date(row.updated_at as string),
  };
}

/**
 * A job version as the services, the API and the library hand it out: a plain record (a row of
 * `cron_job_definitions`), whatever reads it — never an ORM entity.
 */
export interface JobRecord extends JobSnapshot {
  /** A recurring job whose expression names its years: its last slot (the job retires after it); else null. */
  finalSlotAt: Date | null;
  /** Null: never paused by failures. */
  pauseAfterFailures: number | null;
  /** FAILED runs since the last SUCCEEDED one. */
  consecutiveFailures: number;
  /** When the newest SUCCEEDED run ended (read from the runs). */
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  pauseReason: string | null;
  /** The version this one replaced. */
  supersedesId: string | null;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
}
