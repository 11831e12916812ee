/**
 * The vocabulary of cronql (see docs/glossary.md):
 * - job: a versioned definition (`cron_job_definitions`) naming a target, a payload and a schedule;
 * - run: one execution attempt of a job (`cron_job_runs`), with snapshots of the job;
 * - slot: the UTC instant a schedule designates; at most one SCHEDULED run per (job, slot);
 * - target: a label mapped to a handler in the target registry.
 * The enum values are stored as is in the database and exposed as is in GraphQL.
 */
export enum ScheduleType {
  ONE_TIME = 'ONE_TIME',
  RECURRING = 'RECURRING',
  /** Every fixed length of time from an anchor instant (`every`, `anchorAt`): absolute, no wall clock. */
  INTERVAL = 'INTERVAL',
  /** No clock: runs when its upstreams' runs end as it asks (`after`, docs/behaviour.md "Jobs that follow jobs"). */
  AFTER = 'AFTER',
}

export enum JobStatus {
  ACTIVE = 'ACTIVE',
  PAUSED = 'PAUSED',
  RETIRED = 'RETIRED',
}

export enum RunStatus {
  PENDING = 'PENDING',
  RUNNING = 'RUNNING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  CANCELED = 'CANCELED',
  SKIPPED = 'SKIPPED',
}

export enum TriggerType {
  SCHEDULED = 'SCHEDULED',
  MANUAL = 'MANUAL',
  AD_HOC = 'AD_HOC',
  /** A run of a backfill: a past slot run again (docs/behaviour.md, "Backfill"). */
  BACKFILL = 'BACKFILL',
  /** A run of an AFTER job, created with the end of its upstream's run (`Run.upstreamRuns`). */
  DEPENDENCY = 'DEPENDENCY',
}

/** Which end of an upstream's run starts an AFTER job: SUCCEEDED, FAILED, or ANY of the two. */
export enum DependencyOutcome {
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
  ANY = 'ANY',
}

/**
 * An AFTER job with several upstreams: ANY runs after each upstream's end; ALL once every upstream
 * ended as asked since the job's last DEPENDENCY run (within `afterWindowSeconds`, when given).
 */
export enum AfterMode {
  ANY = 'ANY',
  ALL = 'ALL',
}

/** Where a backfill is: a dry run's plan (PLANNED), running its slots, done, or canceled. */
export enum BackfillState {
  PLANNED = 'PLANNED',
  RUNNING = 'RUNNING',
  DONE = 'DONE',
  CANCELED = 'CANCELED',
}

/**
 * Which slots of its range a backfill runs: MISSING those with no run (or only SKIPPED ones:
 * missed, overlap, calendar); NOT_SUCCEEDED (the default) also those whose last attempt FAILED or
 * was CANCELED; ALL every slot again.
 */
export enum BackfillScope {
  MISSING = 'MISSING',
  NOT_SUCCEEDED = 'NOT_SUCCEEDED',
  ALL = 'ALL',
}

/**
 * What becomes of slots a job missed (process down, stall, clock jump, database unreachable):
 * NONE records them as SKIPPED/MISSED (the "no replay" default, docs/product.md); LATEST runs the latest of them;
 * ALL runs up to `catchUpLimit` of the latest, oldest first, one at a time.
 */
export enum CatchUpPolicy {
  NONE = 'NONE',
  LATEST = 'LATEST',
  ALL = 'ALL',
}

/** How long a retry waits: FIXED d; LINEAR d·n; EXPONENTIAL d·2ⁿ⁻¹ after attempt n (capped). */
export enum BackoffKind {
  FIXED = 'FIXED',
  LINEAR = 'LINEAR',
  EXPONENTIAL = 'EXPONENTIAL',
}

/**
 * What a slot (or a run-now) does while a run of its job is still active. SKIP records it
 * SKIPPED/OVERLAP (the default, docs/product.md); BUFFER_ONE keeps one waiting and starts it when the
 * active run ends; CANCEL_PREVIOUS cancels the active run (CANCELED/REPLACED) and starts; ALLOW
 * runs up to `maxConcurrentRuns` at once.
 */
export enum OverlapPolicy {
  SKIP = 'SKIP',
  BUFFER_ONE = 'BUFFER_ONE',
  CANCEL_PREVIOUS = 'CANCEL_PREVIOUS',
  ALLOW = 'ALLOW',
}

/** Why a slot was missed (`failureDetails.reason` of a SKIPPED/MISSED run). */
export enum MissedReason {
  /** No cronql scheduler was running (found at the next start). */
  PROCESS_DOWN = 'PROCESS_DOWN',
  /** The event loop (or the machine) stalled past the slot. */
  STALL = 'STALL',
  /** The wall clock jumped forward past the slot. */
  CLOCK_JUMP = 'CLOCK_JUMP',
  /** The slot could not be recorded in time: the database was unreachable or too slow. */
  DATABASE_UNREACHABLE = 'DATABASE_UNREACHABLE',
}

export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = [
  RunStatus.SUCCEEDED,
  RunStatus.FAILED,
  RunStatus.CANCELED,
  RunStatus.SKIPPED,
];

export const isTerminal = (status: RunStatus): boolean => TERMINAL_RUN_STATUSES.includes(status);

/** Failure codes cronql itself records on runs (handlers may add their own). */
export const FailureCode = {
  HANDLER_ERROR: 'HANDLER_ERROR',
  TIMEOUT: 'TIMEOUT',
  STALE_TIMEOUT: 'STALE_TIMEOUT',
  SHUTDOWN: 'SHUTDOWN',
  UNKNOWN_TARGET: 'UNKNOWN_TARGET',
  CANCELED: 'CANCELED',
  OVERLAP: 'OVERLAP',
  /** The run's runner stopped beating (crashed, partitioned); details name it and its last heartbeat. */
  RUNNER_LOST: 'RUNNER_LOST',
  /** Skip reason: the slot could not fire; details say why (MissedReason). */
  MISSED: 'MISSED',
  /** Skip reason: one of the job's calendars excludes the slot; details name the calendar and the rule. */
  CALENDAR: 'CALENDAR',
  /** The run ended but its outcome (output, error) could not be stored. */
  RECORD_ERROR: 'RECORD_ERROR',
  /** CANCELED by the next slot of a CANCEL_PREVIOUS job. */
  REPLACED: 'REPLACED',
  /** The `http` target refused an address (private, loopback, …). */
  HTTP_BLOCKED: 'HTTP_BLOCKED',
  /** The payload names a secret that does not exist (any more). */
  UNKNOWN_SECRET: 'UNKNOWN_SECRET',
  /** Skip reason: an admin asked to skip the job's next slots (skipNextRuns); the message is their reason. */
  SKIPPED_BY_ADMIN: 'SKIPPED_BY_ADMIN',
  /** The handler did not beat (`ctx.heartbeat`, `ctx.progress`) for its job's `heartbeatTimeoutSeconds`. */
  HEARTBEAT_TIMEOUT: 'HEARTBEAT_TIMEOUT',
} as const;

/** Failures no retry can cure: a FAILED attempt with one of these codes is the slot's last. */
export const NON_RETRYABLE_CODES: readonly string[] = [
  FailureCode.UNKNOWN_TARGET,
  FailureCode.HTTP_BLOCKED,
  FailureCode.UNKNOWN_SECRET,
  FailureCode.SHUTDOWN,
];
