import { BackoffKind, FailureCode, JobStatus, NON_RETRYABLE_CODES, OverlapPolicy, RunStatus, ScheduleType, TERMINAL_RUN_STATUSES, TriggerType } from '../../domain/enums.js';
import { lit, litList } from '../sql.js';

/**
 * The words run statements are made of: the columns they read back, and every status, policy and
 * code they compare with, as SQL literals built from the domain's enums (`domain/enums.ts`) — a
 * value is spelt once, there, and no statement of `src/db` quotes one itself (a test checks it).
 */

/** The columns every run statement returns, in the order `rowToRun` reads them. */
export const RUN_COLUMNS = `id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type,
  scheduled_at, started_at, finished_at, status, failure_code, failure_message, failure_details, output,
  runner_instance_id, attempt, retry_of, due_at, progress, progress_message, heartbeat_at, created_at, updated_at, traceparent, triggered_by, concurrency_pool`;

/** The columns of a run row the store's statements read back: `RUN_COLUMNS` and the run's lane. */
export const ROW_COLUMNS = `${RUN_COLUMNS}, lane`;

/** ROW_COLUMNS qualified with a table alias, for statements that join. */
export const qualified = (alias: string) => ROW_COLUMNS.split(',').map((c) => `${alias}.${c.trim()}`).join(', ');

/** Run statuses (`cron_job_runs.status`), one by one and in the groups the rules use. */
export const S = {
  PENDING: lit(RunStatus.PENDING),
  RUNNING: lit(RunStatus.RUNNING),
  SUCCEEDED: lit(RunStatus.SUCCEEDED),
  FAILED: lit(RunStatus.FAILED),
  CANCELED: lit(RunStatus.CANCELED),
  SKIPPED: lit(RunStatus.SKIPPED),
  TERMINAL: litList(TERMINAL_RUN_STATUSES),
  ACTIVE_RUN: litList([RunStatus.PENDING, RunStatus.RUNNING]),
  /** The statuses a run that held a lane can end in (a SKIPPED row never held one). */
  ENDED: litList([RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELED]),
} as const;

/** Job statuses (`cron_job_definitions.status`). */
export const JOB = { ACTIVE: lit(JobStatus.ACTIVE), PAUSED: lit(JobStatus.PAUSED), RETIRED: lit(JobStatus.RETIRED) } as const;

/** The overlap policies the statements branch on (`cron_job_definitions.overlap`). */
export const OVERLAP = {
  BUFFER_ONE: lit(OverlapPolicy.BUFFER_ONE),
  CANCEL_PREVIOUS: lit(OverlapPolicy.CANCEL_PREVIOUS),
  ALLOW: lit(OverlapPolicy.ALLOW),
} as const;

/** The trigger of a slot's run (`cron_job_runs.trigger_type`). */
export const SCHEDULED = lit(TriggerType.SCHEDULED);

/** The trigger of a backfill's runs. */
export const BACKFILL = lit(TriggerType.BACKFILL);

/** A one-time job (`cron_job_definitions.schedule_type`). */
export const ONE_TIME = lit(ScheduleType.ONE_TIME);

/** Retry backoffs (`cron_job_definitions.retry_backoff`). */
export const BACKOFF = { FIXED: lit(BackoffKind.FIXED), LINEAR: lit(BackoffKind.LINEAR) } as const;

/** Failure codes the rules read (`cron_job_runs.failure_code`). */
export const CODE = {
  /** A failure recorded without a code is a handler's error. */
  HANDLER_ERROR: lit(FailureCode.HANDLER_ERROR),
  /** Failures no retry can cure. */
  NON_RETRYABLE: litList(NON_RETRYABLE_CODES),
} as const;

/**
 * Lanes: the places of a job's active runs (the unique index on (job, lane) of PENDING and
 * RUNNING runs). Runs run in lanes 0 to capacity - 1 (ALLOW: max_concurrent_runs; the others 1);
 * BUFFER_ONE's waiting slot sits in BUFFER_LANE, and starts by moving into lane 0.
 */
export const BUFFER_LANE = -1;

/** Who is named as the author of the changes cronql makes to a job by itself. */
export const CRONQL = 'cronql';
