/* eslint-disable */
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** How an AFTER job with several upstreams runs. */
export type AfterMode =
  /** Once every upstream ended as asked since the job’s last DEPENDENCY run (within afterWindowSeconds, when given). */
  | 'ALL'
  /** After each upstream run that ends as asked (the default). */
  | 'ANY';

/** Every field given must match (exact values). */
export type AuditFilter = {
  /** Any of these actions (at most 50). */
  action?: Array<string> | null | undefined;
  actor?: string | null | undefined;
  /** Entries at or after this instant. */
  after?: string | null | undefined;
  /** Entries before this instant. */
  before?: string | null | undefined;
  jobKey?: string | null | undefined;
};

/** Which slots of its range a backfill runs. */
export type BackfillScope =
  /** Every slot again. */
  | 'ALL'
  /** Slots with no run, or only SKIPPED runs (missed, overlap, calendar…). */
  | 'MISSING'
  /** Also slots whose last attempt FAILED or was CANCELED (the default). */
  | 'NOT_SUCCEEDED';

/** Where a backfill is. */
export type BackfillState =
  /** Canceled: no slot of it starts any more. */
  | 'CANCELED'
  /** Every slot of its plan ran (or was settled). */
  | 'DONE'
  /** A dry run: the plan, nothing written. */
  | 'PLANNED'
  /** Its slots run, oldest first, one at a time. */
  | 'RUNNING';

/** How long a retry waits after attempt n, from the base delay d (capped by maxDelaySeconds, plus up to 10% jitter). */
export type BackoffKind =
  /** d·2ⁿ⁻¹ */
  | 'EXPONENTIAL'
  /** d */
  | 'FIXED'
  /** d·n */
  | 'LINEAR';

/** A whole calendar: setCalendar replaces the one of that name. Bad values fail with BAD_USER_INPUT (details.field) or INVALID_TIMEZONE. */
export type CalendarInput = {
  /** At most 24. */
  dailyWindows?: Array<DailyWindowInput> | null | undefined;
  /** Excluded local days (at most 1000). */
  dates?: Array<string> | null | undefined;
  description?: string | null | undefined;
  /** 1–64 letters, digits and . _ -; what jobs list in calendars. */
  name: string;
  /** IANA zone of the days and daily windows. */
  timezone?: string | null | undefined;
  /** At most 200. */
  windows?: Array<CalendarWindowInput> | null | undefined;
  /** "MM-DD": that day every year (at most 366; 02-29 in leap years only). */
  yearly?: Array<string> | null | undefined;
};

export type CalendarWindowInput = {
  from: string;
  reason?: string | null | undefined;
  /** Exclusive; after from. */
  to: string;
};

/** What becomes of slots missed while they could not fire (process down, stall, clock jump, database unreachable). */
export type CatchUpPolicy =
  /** The missed slots run, oldest first, one at a time, up to catchUpLimit; the rest are recorded MISSED. */
  | 'ALL'
  /** The latest missed slot runs; the others are recorded MISSED. */
  | 'LATEST'
  /** Recorded SKIPPED/MISSED; only a slot still within the misfire grace runs. */
  | 'NONE';

export type CreateJobInput = {
  /** AFTER jobs: the upstream jobs, by key (at most 20; each must exist: UNKNOWN_JOB; no cycle: DEPENDENCY_CYCLE). Null: none. */
  after?: Array<DependencyInput> | null | undefined;
  /** AFTER jobs: ANY (the default) or ALL of the upstreams. */
  afterMode?: AfterMode | null | undefined;
  /** afterMode ALL only: the upstreams’ ends count within this many seconds of the last one (1–2678400); null: no window. */
  afterWindowSeconds?: number | null | undefined;
  /** INTERVAL: the instant the slots count from (a whole second): anchorAt + k·every, in absolute time; only slots after creation are due, so a future anchorAt is the first run. Default: the creation instant (first run one every later). */
  anchorAt?: string | null | undefined;
  /** Exclusion calendars, by name (at most 10; each must exist: UNKNOWN_CALENDAR). Null: none. */
  calendars?: Array<string> | null | undefined;
  /** http target: bytes of the response body kept in the output (0–1048576, default 4096). */
  captureBytes?: number | null | undefined;
  /** What becomes of missed slots. Default NONE. */
  catchUp?: CatchUpPolicy | null | undefined;
  /** ALL only: at most this many missed slots of one gap run (1–1000, default 10). */
  catchUpLimit?: number | null | undefined;
  /** A concurrency pool, by name (it must exist: UNKNOWN_POOL): a run starts only while the pool has a free place, else waits PENDING. Null: none. */
  concurrencyPool?: string | null | undefined;
  /** Required for RECURRING; 5 fields, 6 with seconds first, or 7 with seconds first and the year last. */
  cronExpression?: string | null | undefined;
  /** RECURRING: the whole list of expressions (1–20; the first is cronExpression): a slot of any is a slot, each instant once. Give this or cronExpression. */
  cronExpressions?: Array<string> | null | undefined;
  /** What the job is for, in words (at most 2000 characters); null: none. */
  description?: string | null | undefined;
  /** RECURRING, INTERVAL: no slot after this instant; the job retires after its last slot. */
  endAt?: string | null | undefined;
  /** Required for INTERVAL: "45m", "1h30m", "90s", "2d" or ISO 8601 "PT45M" (whole seconds, 1 s to 366 days). */
  every?: string | null | undefined;
  /** No SUCCEEDED run this long after a slot raises JOB_LATE (1–2678400 seconds); null: no deadline. */
  expectSuccessWithinSeconds?: number | null | undefined;
  /** A RUNNING run silent this long (no ctx.heartbeat or ctx.progress, counted from its start) fails HEARTBEAT_TIMEOUT (1–604800 s); null: none (the default). */
  heartbeatTimeoutSeconds?: number | null | undefined;
  /** Each slot starts after a stable offset in [0, jitterSeconds); at most the schedule’s shortest interval. Default 0. */
  jitterSeconds?: number | null | undefined;
  key: string;
  /** Labels, e.g. {"team": "billing"}: keys [a-z0-9][a-z0-9._/-]{0,62}, values at most 63 of A-Z a-z 0-9 . _ / : @ + -, at most 32 (INVALID_LABELS). Null: none. */
  labels?: unknown;
  /** ALLOW only: how many runs at once (1–100, default 1). */
  maxConcurrentRuns?: number | null | undefined;
  /** Retire the job once this many scheduled runs have started (SKIPPED slots do not count; 1–1000000); null: no limit. */
  maxRuns?: number | null | undefined;
  /** How late a slot may still start before it is MISSED (1–86400 s); null: the server’s CRONQL_MISFIRE_GRACE_MS. */
  misfireGraceSeconds?: number | null | undefined;
  /** Notification channel names (at most 10; each must exist: UNKNOWN_CHANNEL); empty, null or omitted: the default channels. */
  notify?: Array<string> | null | undefined;
  /** What a slot does while a run of the job is active. Default SKIP. */
  overlap?: OverlapPolicy | null | undefined;
  /** Who answers for the job (at most 200 characters); null: none. */
  owner?: string | null | undefined;
  /** cronql pauses the job after this many failed runs in a row (1–1000); null: never. */
  pauseAfterFailures?: number | null | undefined;
  payload?: unknown;
  /** Retries with backoff; null: none (the default). */
  retry?: RetryPolicyInput | null | undefined;
  /** Required for ONE_TIME. */
  runAt?: string | null | undefined;
  scheduleType: ScheduleType;
  /** RECURRING, INTERVAL: no slot before this instant. */
  startAt?: string | null | undefined;
  target: string;
  timeoutSeconds?: number | null | undefined;
  /** IANA name; stored in canonical form. */
  timezone?: string | null | undefined;
};

export type DailyWindowInput = {
  /** Local "HH:MM", 00:00–24:00; at or before start: the window ends the next day. */
  end: string;
  reason?: string | null | undefined;
  /** Local "HH:MM", 00:00–23:59. */
  start: string;
};

/** An upstream of an AFTER job: its key, and which end of its runs starts this job. */
export type DependencyInput = {
  jobKey: string;
  on?: DependencyOutcome | null | undefined;
};

/** Which end of an upstream run starts an AFTER job (the final attempt, after retries; CANCELED and SKIPPED runs start none). */
export type DependencyOutcome =
  /** The upstream run SUCCEEDED or FAILED. */
  | 'ANY'
  /** The upstream run FAILED. */
  | 'FAILED'
  /** The upstream run SUCCEEDED (the default). */
  | 'SUCCEEDED';

/** What daylight-saving time did to a slot. */
export type DstMark =
  /** The slot's local time occurs twice that day (clocks go back); the note says which occurrence. */
  | 'REPEATED'
  /** The local time asked for did not exist (clocks went forward over it): the slot is that time moved forward by the gap. */
  | 'SHIFTED';

export type JobFilter = {
  key?: string | null | undefined;
  /** Keys containing this text, ignoring case (a search; `key` is exact). */
  keyContains?: string | null | undefined;
  /** Jobs whose labels match this label selector ("team=billing,env!=dev,tier in (a,b),!legacy"; empty: every job; INVALID_SELECTOR). */
  labelSelector?: string | null | undefined;
  scheduleType?: ScheduleType | null | undefined;
  status?: Array<JobStatus> | null | undefined;
  target?: string | null | undefined;
};

export type JobStatus =
  | 'ACTIVE'
  | 'PAUSED'
  | 'RETIRED';

/** Omitted fields are copied from the version being replaced. */
export type NewJobVersionInput = {
  /** AFTER jobs: the upstream jobs, by key (at most 20; each must exist: UNKNOWN_JOB; no cycle: DEPENDENCY_CYCLE). Null: none. */
  after?: Array<DependencyInput> | null | undefined;
  /** AFTER jobs: ANY (the default) or ALL of the upstreams. */
  afterMode?: AfterMode | null | undefined;
  /** afterMode ALL only: the upstreams’ ends count within this many seconds of the last one (1–2678400); null: no window. */
  afterWindowSeconds?: number | null | undefined;
  anchorAt?: string | null | undefined;
  /** Exclusion calendars, by name (at most 10; each must exist: UNKNOWN_CALENDAR). Null: none. */
  calendars?: Array<string> | null | undefined;
  /** http target: bytes of the response body kept in the output (0–1048576, default 4096). */
  captureBytes?: number | null | undefined;
  /** What becomes of missed slots. Default NONE. */
  catchUp?: CatchUpPolicy | null | undefined;
  /** ALL only: at most this many missed slots of one gap run (1–1000, default 10). */
  catchUpLimit?: number | null | undefined;
  /** A concurrency pool, by name (it must exist: UNKNOWN_POOL): a run starts only while the pool has a free place, else waits PENDING. Null: none. */
  concurrencyPool?: string | null | undefined;
  cronExpression?: string | null | undefined;
  /** The whole list (its first is cronExpression); a cronExpression given alone replaces the list. */
  cronExpressions?: Array<string> | null | undefined;
  /** What the job is for, in words (at most 2000 characters); null: none. */
  description?: string | null | undefined;
  /** Null clears it. */
  endAt?: string | null | undefined;
  every?: string | null | undefined;
  /** No SUCCEEDED run this long after a slot raises JOB_LATE (1–2678400 seconds); null: no deadline. */
  expectSuccessWithinSeconds?: number | null | undefined;
  /** A RUNNING run silent this long (no ctx.heartbeat or ctx.progress, counted from its start) fails HEARTBEAT_TIMEOUT (1–604800 s); null: none (the default). */
  heartbeatTimeoutSeconds?: number | null | undefined;
  /** Each slot starts after a stable offset in [0, jitterSeconds); at most the schedule’s shortest interval. Default 0. */
  jitterSeconds?: number | null | undefined;
  /** Labels, e.g. {"team": "billing"}: keys [a-z0-9][a-z0-9._/-]{0,62}, values at most 63 of A-Z a-z 0-9 . _ / : @ + -, at most 32 (INVALID_LABELS). Null: none. */
  labels?: unknown;
  /** ALLOW only: how many runs at once (1–100, default 1). */
  maxConcurrentRuns?: number | null | undefined;
  /** Retire the job once this many scheduled runs have started (SKIPPED slots do not count; 1–1000000); null: no limit. */
  maxRuns?: number | null | undefined;
  /** How late a slot may still start before it is MISSED (1–86400 s); null: the server’s CRONQL_MISFIRE_GRACE_MS. */
  misfireGraceSeconds?: number | null | undefined;
  /** Notification channel names (at most 10; each must exist: UNKNOWN_CHANNEL); empty, null or omitted: the default channels. */
  notify?: Array<string> | null | undefined;
  /** What a slot does while a run of the job is active. Default SKIP. */
  overlap?: OverlapPolicy | null | undefined;
  /** Who answers for the job (at most 200 characters); null: none. */
  owner?: string | null | undefined;
  /** cronql pauses the job after this many failed runs in a row (1–1000); null: never. */
  pauseAfterFailures?: number | null | undefined;
  payload?: unknown;
  /** Retries with backoff; null: none (the default). */
  retry?: RetryPolicyInput | null | undefined;
  runAt?: string | null | undefined;
  scheduleType?: ScheduleType | null | undefined;
  /** Null clears it. */
  startAt?: string | null | undefined;
  target?: string | null | undefined;
  timeoutSeconds?: number | null | undefined;
  timezone?: string | null | undefined;
};

/** What a slot (or a run-now) does while a run of its job is still active. Every policy holds across instances. */
export type OverlapPolicy =
  /** Up to maxConcurrentRuns run at once; beyond, SKIPPED/OVERLAP. */
  | 'ALLOW'
  /** At most one waits (PENDING) and starts when the active run ends; later ones are SKIPPED/OVERLAP. */
  | 'BUFFER_ONE'
  /** The active run is canceled (CANCELED/REPLACED; its handler sees its signal) and the new one starts. */
  | 'CANCEL_PREVIOUS'
  /** Recorded SKIPPED/OVERLAP (the default). */
  | 'SKIP';

/** Retries with backoff; out-of-range values fail with INVALID_POLICY. */
export type RetryPolicyInput = {
  backoff?: BackoffKind | null | undefined;
  /** The base delay d, in seconds (0–86400). */
  delaySeconds?: number | null | undefined;
  /** Attempts per slot or run-now, the first included (1–10). */
  maxAttempts: number;
  /** The longest a retry waits (at least delaySeconds, at most 86400); null: no cap. */
  maxDelaySeconds?: number | null | undefined;
  /** Only these failure codes are retried; null: every retryable code. */
  retryOn?: Array<string> | null | undefined;
};

export type RunFilter = {
  jobId?: string | number | null | undefined;
  jobKey?: string | null | undefined;
  /** Runs of job versions whose labels match this label selector (empty: every run; INVALID_SELECTOR). */
  labelSelector?: string | null | undefined;
  scheduledAfter?: string | null | undefined;
  scheduledBefore?: string | null | undefined;
  status?: Array<RunStatus> | null | undefined;
  target?: string | null | undefined;
  triggerType?: Array<TriggerType> | null | undefined;
};

export type RunStatus =
  | 'CANCELED'
  | 'FAILED'
  | 'PENDING'
  | 'RUNNING'
  | 'SKIPPED'
  | 'SUCCEEDED';

export type ScheduleType =
  | 'AFTER'
  | 'INTERVAL'
  | 'ONE_TIME'
  | 'RECURRING';

/** What a token may do. */
export type TokenRole =
  /** Everything. Never scoped. */
  | 'ADMIN'
  /** Reads, and pauseJob, resumeJob, runJobNow, cancelRun, skipNextRuns, backfillJob, cancelBackfill, pauseJobs, resumeJobs; not creating, versioning or retiring jobs, nor secrets, calendars, channels, pools or tokens. */
  | 'OPERATOR'
  /** Reads (queries and subscriptions); credential-looking payload values redacted. */
  | 'VIEWER';

export type TriggerType =
  | 'AD_HOC'
  | 'BACKFILL'
  | 'DEPENDENCY'
  | 'MANUAL'
  | 'SCHEDULED';

export type JobDefinitionFieldsFragment = { id: string, key: string, version: number, status: JobStatus, target: string, payload: unknown, scheduleType: ScheduleType, cronExpression: string | null, cronExpressions: Array<string> | null, runAt: string | null, every: string | null, anchorAt: string | null, timezone: string, startAt: string | null, endAt: string | null, maxRuns: number | null, misfireGraceSeconds: number | null, timeoutSeconds: number | null, catchUp: CatchUpPolicy, catchUpLimit: number | null, pauseAfterFailures: number | null, overlap: OverlapPolicy, maxConcurrentRuns: number, jitterSeconds: number, captureBytes: number, heartbeatTimeoutSeconds: number | null, notify: Array<string> | null, expectSuccessWithinSeconds: number | null, calendars: Array<string> | null, afterMode: AfterMode, afterWindowSeconds: number | null, labels: unknown, description: string | null, owner: string | null, concurrencyPool: string | null, retry: { maxAttempts: number, backoff: BackoffKind, delaySeconds: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, status: JobStatus } }> };

export type JobFieldsFragment = { scheduleDescription: string | null, consecutiveFailures: number, pauseReason: string | null, nextRunAt: string | null, createdBy: string | null, updatedBy: string | null, createdAt: string, updatedAt: string, id: string, key: string, version: number, status: JobStatus, target: string, payload: unknown, scheduleType: ScheduleType, cronExpression: string | null, cronExpressions: Array<string> | null, runAt: string | null, every: string | null, anchorAt: string | null, timezone: string, startAt: string | null, endAt: string | null, maxRuns: number | null, misfireGraceSeconds: number | null, timeoutSeconds: number | null, catchUp: CatchUpPolicy, catchUpLimit: number | null, pauseAfterFailures: number | null, overlap: OverlapPolicy, maxConcurrentRuns: number, jitterSeconds: number, captureBytes: number, heartbeatTimeoutSeconds: number | null, notify: Array<string> | null, expectSuccessWithinSeconds: number | null, calendars: Array<string> | null, afterMode: AfterMode, afterWindowSeconds: number | null, labels: unknown, description: string | null, owner: string | null, concurrencyPool: string | null, supersedes: { id: string, version: number, status: JobStatus } | null, supersededBy: { id: string, version: number, status: JobStatus } | null, retry: { maxAttempts: number, backoff: BackoffKind, delaySeconds: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, status: JobStatus } }> };

export type JobScheduleFieldsFragment = { schedules: Array<string> };

export type RunFieldsFragment = { id: string, jobKey: string, jobVersion: number, target: string, payloadSnapshot: unknown, triggerType: TriggerType, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, status: RunStatus, failureCode: string | null, failureMessage: string | null, failureDetails: unknown, waitingFor: string | null, output: unknown, runnerInstanceId: string | null, progress: number | null, progressMessage: string | null, heartbeatAt: string | null, createdAt: string, updatedAt: string, job: { id: string } };

export type ApiTokenFieldsFragment = { id: string, name: string, role: TokenRole, labelSelector: string | null, createdAt: string, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null };

export type DashboardRunRowFragment = { id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number };

export type DashboardJobRowFragment = { id: string, key: string, version: number, target: string, scheduleType: ScheduleType, cronExpression: string | null, every: string | null, runAt: string | null, timezone: string, status: JobStatus, pauseReason: string | null, nextRunAt: string | null, consecutiveFailures: number, afterMode: AfterMode, labels: unknown, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string } }>, lastRun: { id: string, status: RunStatus, scheduledAt: string, finishedAt: string | null } | null };

export type DashboardJobDetailFragment = { lastSuccessAt: string | null, lastFailureAt: string | null, pausedUntil: string | null, skipRemaining: number, skipReason: string | null, nextRuns: Array<string>, id: string, key: string, version: number, target: string, scheduleType: ScheduleType, cronExpression: string | null, every: string | null, runAt: string | null, timezone: string, status: JobStatus, pauseReason: string | null, nextRunAt: string | null, consecutiveFailures: number, afterMode: AfterMode, labels: unknown, scheduleDescription: string | null, createdBy: string | null, updatedBy: string | null, createdAt: string, updatedAt: string, schedules: Array<string>, payload: unknown, cronExpressions: Array<string> | null, anchorAt: string | null, startAt: string | null, endAt: string | null, maxRuns: number | null, misfireGraceSeconds: number | null, timeoutSeconds: number | null, catchUp: CatchUpPolicy, catchUpLimit: number | null, pauseAfterFailures: number | null, overlap: OverlapPolicy, maxConcurrentRuns: number, jitterSeconds: number, captureBytes: number, heartbeatTimeoutSeconds: number | null, notify: Array<string> | null, expectSuccessWithinSeconds: number | null, calendars: Array<string> | null, afterWindowSeconds: number | null, description: string | null, owner: string | null, concurrencyPool: string | null, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, status: JobStatus } }>, lastRun: { id: string, status: RunStatus, scheduledAt: string, finishedAt: string | null } | null, supersedes: { id: string, version: number, status: JobStatus } | null, supersededBy: { id: string, version: number, status: JobStatus } | null, retry: { maxAttempts: number, backoff: BackoffKind, delaySeconds: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null };

export type DashboardRoleQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardRoleQuery = { whoami: { name: string, role: TokenRole, labelSelector: string | null } | null };

export type DashboardTargetsQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardTargetsQuery = { targets: Array<{ name: string, description: string | null }> };

export type DashboardInstancesQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardInstancesQuery = { instances: Array<{ id: string, role: string, host: string | null, version: string | null, startedAt: string, heartbeatAt: string, activeRuns: number, ownedJobs: number }> };

export type DashboardJobsQueryVariables = Exact<{
  filter?: JobFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardJobsQuery = { jobs: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, key: string, version: number, target: string, scheduleType: ScheduleType, cronExpression: string | null, every: string | null, runAt: string | null, timezone: string, status: JobStatus, pauseReason: string | null, nextRunAt: string | null, consecutiveFailures: number, afterMode: AfterMode, labels: unknown, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string } }>, lastRun: { id: string, status: RunStatus, scheduledAt: string, finishedAt: string | null } | null }> } };

export type DashboardDependentsQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardDependentsQuery = { jobs: { nodes: Array<{ id: string, key: string, version: number, status: JobStatus, afterMode: AfterMode, after: Array<{ on: DependencyOutcome, upstream: { key: string } }> }> } };

export type DashboardJobQueryVariables = Exact<{
  id: string | number;
}>;


export type DashboardJobQuery = { job: { lastSuccessAt: string | null, lastFailureAt: string | null, pausedUntil: string | null, skipRemaining: number, skipReason: string | null, nextRuns: Array<string>, id: string, key: string, version: number, target: string, scheduleType: ScheduleType, cronExpression: string | null, every: string | null, runAt: string | null, timezone: string, status: JobStatus, pauseReason: string | null, nextRunAt: string | null, consecutiveFailures: number, afterMode: AfterMode, labels: unknown, scheduleDescription: string | null, createdBy: string | null, updatedBy: string | null, createdAt: string, updatedAt: string, schedules: Array<string>, payload: unknown, cronExpressions: Array<string> | null, anchorAt: string | null, startAt: string | null, endAt: string | null, maxRuns: number | null, misfireGraceSeconds: number | null, timeoutSeconds: number | null, catchUp: CatchUpPolicy, catchUpLimit: number | null, pauseAfterFailures: number | null, overlap: OverlapPolicy, maxConcurrentRuns: number, jitterSeconds: number, captureBytes: number, heartbeatTimeoutSeconds: number | null, notify: Array<string> | null, expectSuccessWithinSeconds: number | null, calendars: Array<string> | null, afterWindowSeconds: number | null, description: string | null, owner: string | null, concurrencyPool: string | null, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, status: JobStatus } }>, lastRun: { id: string, status: RunStatus, scheduledAt: string, finishedAt: string | null } | null, supersedes: { id: string, version: number, status: JobStatus } | null, supersededBy: { id: string, version: number, status: JobStatus } | null, retry: { maxAttempts: number, backoff: BackoffKind, delaySeconds: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null } | null };

export type DashboardJobVersionsQueryVariables = Exact<{
  key: string;
}>;


export type DashboardJobVersionsQuery = { jobs: { nodes: Array<{ id: string, version: number, status: JobStatus, scheduleType: ScheduleType, cronExpression: string | null, runAt: string | null, timezone: string, target: string, createdAt: string, createdBy: string | null, supersedes: { id: string, version: number } | null }> } };

export type DashboardParseQueryVariables = Exact<{
  text: string;
  timezone?: string | null | undefined;
}>;


export type DashboardParseQuery = { parseSchedule: { scheduleType: ScheduleType, cronExpression: string | null, every: string | null, timezone: string, description: string } };

export type DashboardPreviewQueryVariables = Exact<{
  cronExpression: string;
  timezone?: string | null | undefined;
  count?: number | null | undefined;
  from?: string | null | undefined;
}>;


export type DashboardPreviewQuery = { previewScheduleSlots: Array<{ at: string, dstMark: DstMark | null, dstNote: string | null }> };

export type DashboardRunsQueryVariables = Exact<{
  filter?: RunFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardRunsQuery = { runs: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number }> } };

export type DashboardRunQueryVariables = Exact<{
  id: string | number;
}>;


export type DashboardRunQuery = { run: { payloadSnapshot: unknown, output: unknown, failureDetails: unknown, runnerInstanceId: string | null, progress: number | null, progressMessage: string | null, heartbeatAt: string | null, nextAttemptAt: string | null, triggeredBy: string | null, createdAt: string, updatedAt: string, id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number, retryOf: { id: string, attempt: number } | null, upstreamRuns: Array<{ id: string, jobKey: string, status: RunStatus, finishedAt: string | null }>, job: { id: string } } | null };

export type DashboardLogLineFragment = { sequence: number, at: string, level: string, message: string, fields: unknown };

export type DashboardRunLogsQueryVariables = Exact<{
  id: string | number;
  after?: string | null | undefined;
}>;


export type DashboardRunLogsQuery = { run: { id: string, logs: { truncated: boolean, nodes: Array<{ sequence: number, at: string, level: string, message: string, fields: unknown }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } } | null };

export type DashboardRunLogsLiveSubscriptionVariables = Exact<{
  runId: string | number;
}>;


export type DashboardRunLogsLiveSubscription = { runLogs: { sequence: number, at: string, level: string, message: string, fields: unknown } };

export type DashboardRunChangedSubscriptionVariables = Exact<{ [key: string]: never; }>;


export type DashboardRunChangedSubscription = { runChanged: { previousStatus: RunStatus | null, changedAt: string, run: { id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number } } };

export type DashboardCreateJobMutationVariables = Exact<{
  input: CreateJobInput;
}>;


export type DashboardCreateJobMutation = { createJob: { id: string } };

export type DashboardNewVersionMutationVariables = Exact<{
  id: string | number;
  input: NewJobVersionInput;
}>;


export type DashboardNewVersionMutation = { createJobVersion: { id: string } };

export type DashboardPauseMutationVariables = Exact<{
  id: string | number;
  reason: string;
  until?: string | null | undefined;
}>;


export type DashboardPauseMutation = { pauseJob: { id: string, status: JobStatus, pauseReason: string | null, pausedUntil: string | null } };

export type DashboardSkipNextMutationVariables = Exact<{
  id: string | number;
  count: number;
  reason: string;
}>;


export type DashboardSkipNextMutation = { skipNextRuns: { id: string, skipRemaining: number, skipReason: string | null } };

export type DashboardUpcomingQueryVariables = Exact<{
  to: string;
  filter?: JobFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardUpcomingQuery = { upcoming: { nodes: Array<{ slot: string, dueAt: string, job: { id: string, key: string, target: string, timezone: string } }>, pageInfo: { hasNextPage: boolean, endCursor: string | null } } };

export type DashboardPauseJobsMutationVariables = Exact<{
  labelSelector: string;
  reason: string;
  until?: string | null | undefined;
}>;


export type DashboardPauseJobsMutation = { pauseJobs: number };

export type DashboardResumeJobsMutationVariables = Exact<{
  labelSelector: string;
}>;


export type DashboardResumeJobsMutation = { resumeJobs: number };

export type DashboardJobCountQueryVariables = Exact<{
  filter?: JobFilter | null | undefined;
}>;


export type DashboardJobCountQuery = { jobs: { totalCount: number } };

export type DashboardResumeMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardResumeMutation = { resumeJob: { id: string, status: JobStatus } };

export type DashboardRetireMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardRetireMutation = { retireJob: { id: string, status: JobStatus } };

export type DashboardRunNowMutationVariables = Exact<{
  id: string | number;
  payload?: unknown;
}>;


export type DashboardRunNowMutation = { runJobNow: { id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number } };

export type DashboardCancelMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardCancelMutation = { cancelRun: { id: string, jobKey: string, jobVersion: number, target: string, triggerType: TriggerType, status: RunStatus, scheduledAt: string, startedAt: string | null, finishedAt: string | null, durationMs: number | null, failureCode: string | null, failureMessage: string | null, attempt: number } };

export type DashboardCalendarFragment = { name: string, timezone: string, description: string | null, dates: Array<string>, yearly: Array<string>, lastDate: string | null, runsOutSoon: boolean, updatedAt: string, updatedBy: string | null, dailyWindows: Array<{ start: string, end: string, reason: string | null }>, windows: Array<{ from: string, to: string, reason: string | null }>, usedBy: Array<{ id: string, key: string, version: number }> };

export type DashboardCalendarsQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardCalendarsQuery = { calendars: Array<{ name: string, timezone: string, description: string | null, dates: Array<string>, yearly: Array<string>, lastDate: string | null, runsOutSoon: boolean, updatedAt: string, updatedBy: string | null, dailyWindows: Array<{ start: string, end: string, reason: string | null }>, windows: Array<{ from: string, to: string, reason: string | null }>, usedBy: Array<{ id: string, key: string, version: number }> }> };

export type DashboardSetCalendarMutationVariables = Exact<{
  input: CalendarInput;
}>;


export type DashboardSetCalendarMutation = { setCalendar: { name: string, timezone: string, description: string | null, dates: Array<string>, yearly: Array<string>, lastDate: string | null, runsOutSoon: boolean, updatedAt: string, updatedBy: string | null, dailyWindows: Array<{ start: string, end: string, reason: string | null }>, windows: Array<{ from: string, to: string, reason: string | null }>, usedBy: Array<{ id: string, key: string, version: number }> } };

export type DashboardDeleteCalendarMutationVariables = Exact<{
  name: string;
}>;


export type DashboardDeleteCalendarMutation = { deleteCalendar: boolean };

export type DashboardBackfillFragment = { id: string, from: string, to: string, scope: BackfillScope, slots: Array<string>, skippedExisting: number, created: number, state: BackfillState, requestedBy: string | null, reason: string };

export type DashboardBackfillJobMutationVariables = Exact<{
  id: string | number;
  from: string;
  to: string;
  scope?: BackfillScope | null | undefined;
  dryRun?: boolean | null | undefined;
  reason: string;
}>;


export type DashboardBackfillJobMutation = { backfillJob: { id: string, from: string, to: string, scope: BackfillScope, slots: Array<string>, skippedExisting: number, created: number, state: BackfillState, requestedBy: string | null, reason: string } };

export type DashboardCancelBackfillMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardCancelBackfillMutation = { cancelBackfill: { id: string, from: string, to: string, scope: BackfillScope, slots: Array<string>, skippedExisting: number, created: number, state: BackfillState, requestedBy: string | null, reason: string } };

export type DashboardBackfillStateQueryVariables = Exact<{
  id: string | number;
}>;


export type DashboardBackfillStateQuery = { backfill: { id: string, from: string, to: string, scope: BackfillScope, slots: Array<string>, skippedExisting: number, created: number, state: BackfillState, requestedBy: string | null, reason: string } | null };

export type DashboardAuditEntryFragment = { id: string, at: string, actor: string, action: string, jobKey: string | null, subject: string | null, details: unknown };

export type DashboardAuditQueryVariables = Exact<{
  filter?: AuditFilter | null | undefined;
  first?: number | null | undefined;
  after?: string | null | undefined;
}>;


export type DashboardAuditQuery = { auditLog: { totalCount: number, pageInfo: { hasNextPage: boolean, endCursor: string | null }, nodes: Array<{ id: string, at: string, actor: string, action: string, jobKey: string | null, subject: string | null, details: unknown }> } };

export type DashboardPoolFragment = { name: string, limit: number, running: number, waiting: number, jobs: Array<{ id: string, key: string, version: number }> };

export type DashboardPoolsQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardPoolsQuery = { concurrencyPools: Array<{ name: string, limit: number, running: number, waiting: number, jobs: Array<{ id: string, key: string, version: number }> }> };

export type DashboardSetPoolMutationVariables = Exact<{
  name: string;
  limit: number;
}>;


export type DashboardSetPoolMutation = { setConcurrencyPool: { name: string, limit: number, running: number, waiting: number, jobs: Array<{ id: string, key: string, version: number }> } };

export type DashboardDeletePoolMutationVariables = Exact<{
  name: string;
}>;


export type DashboardDeletePoolMutation = { deleteConcurrencyPool: boolean };

export type DashboardApiTokensQueryVariables = Exact<{ [key: string]: never; }>;


export type DashboardApiTokensQuery = { apiTokens: Array<{ id: string, name: string, role: TokenRole, labelSelector: string | null, createdAt: string, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null }> };

export type DashboardCreateApiTokenMutationVariables = Exact<{
  name: string;
  role: TokenRole;
  labelSelector?: string | null | undefined;
  expiresAt?: string | null | undefined;
}>;


export type DashboardCreateApiTokenMutation = { createApiToken: { secret: string, token: { id: string, name: string, role: TokenRole, labelSelector: string | null, createdAt: string, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null } } };

export type DashboardRevokeApiTokenMutationVariables = Exact<{
  id: string | number;
}>;


export type DashboardRevokeApiTokenMutation = { revokeApiToken: { id: string, name: string, role: TokenRole, labelSelector: string | null, createdAt: string, expiresAt: string | null, lastUsedAt: string | null, revokedAt: string | null } };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}
export const RunFieldsFragmentDoc = new TypedDocumentString(`
    fragment RunFields on Run {
  id
  jobKey
  jobVersion
  target
  payloadSnapshot
  triggerType
  scheduledAt
  startedAt
  finishedAt
  durationMs
  status
  failureCode
  failureMessage
  failureDetails
  waitingFor
  output
  runnerInstanceId
  progress
  progressMessage
  heartbeatAt
  createdAt
  updatedAt
  job {
    id
  }
}
    `, {"fragmentName":"RunFields"}) as unknown as TypedDocumentString<RunFieldsFragment, unknown>;
export const ApiTokenFieldsFragmentDoc = new TypedDocumentString(`
    fragment ApiTokenFields on ApiToken {
  id
  name
  role
  labelSelector
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}
    `, {"fragmentName":"ApiTokenFields"}) as unknown as TypedDocumentString<ApiTokenFieldsFragment, unknown>;
export const DashboardRunRowFragmentDoc = new TypedDocumentString(`
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}
    `, {"fragmentName":"DashboardRunRow"}) as unknown as TypedDocumentString<DashboardRunRowFragment, unknown>;
export const DashboardJobRowFragmentDoc = new TypedDocumentString(`
    fragment DashboardJobRow on Job {
  id
  key
  version
  target
  scheduleType
  cronExpression
  every
  runAt
  timezone
  status
  pauseReason
  nextRunAt
  consecutiveFailures
  afterMode
  after {
    on
    upstream {
      id
      key
    }
  }
  labels
  lastRun {
    id
    status
    scheduledAt
    finishedAt
  }
}
    `, {"fragmentName":"DashboardJobRow"}) as unknown as TypedDocumentString<DashboardJobRowFragment, unknown>;
export const JobDefinitionFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobDefinitionFields on Job {
  id
  key
  version
  status
  target
  payload
  scheduleType
  cronExpression
  cronExpressions
  runAt
  every
  anchorAt
  timezone
  startAt
  endAt
  maxRuns
  misfireGraceSeconds
  timeoutSeconds
  catchUp
  catchUpLimit
  pauseAfterFailures
  retry {
    maxAttempts
    backoff
    delaySeconds
    maxDelaySeconds
    retryOn
  }
  overlap
  maxConcurrentRuns
  jitterSeconds
  captureBytes
  heartbeatTimeoutSeconds
  notify
  expectSuccessWithinSeconds
  calendars
  after {
    on
    upstream {
      id
      key
      status
    }
  }
  afterMode
  afterWindowSeconds
  labels
  description
  owner
  concurrencyPool
}
    `, {"fragmentName":"JobDefinitionFields"}) as unknown as TypedDocumentString<JobDefinitionFieldsFragment, unknown>;
export const JobFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobFields on Job {
  ...JobDefinitionFields
  scheduleDescription
  consecutiveFailures
  pauseReason
  nextRunAt
  createdBy
  updatedBy
  createdAt
  updatedAt
  supersedes {
    id
    version
    status
  }
  supersededBy {
    id
    version
    status
  }
}
    fragment JobDefinitionFields on Job {
  id
  key
  version
  status
  target
  payload
  scheduleType
  cronExpression
  cronExpressions
  runAt
  every
  anchorAt
  timezone
  startAt
  endAt
  maxRuns
  misfireGraceSeconds
  timeoutSeconds
  catchUp
  catchUpLimit
  pauseAfterFailures
  retry {
    maxAttempts
    backoff
    delaySeconds
    maxDelaySeconds
    retryOn
  }
  overlap
  maxConcurrentRuns
  jitterSeconds
  captureBytes
  heartbeatTimeoutSeconds
  notify
  expectSuccessWithinSeconds
  calendars
  after {
    on
    upstream {
      id
      key
      status
    }
  }
  afterMode
  afterWindowSeconds
  labels
  description
  owner
  concurrencyPool
}`, {"fragmentName":"JobFields"}) as unknown as TypedDocumentString<JobFieldsFragment, unknown>;
export const JobScheduleFieldsFragmentDoc = new TypedDocumentString(`
    fragment JobScheduleFields on Job {
  schedules
}
    `, {"fragmentName":"JobScheduleFields"}) as unknown as TypedDocumentString<JobScheduleFieldsFragment, unknown>;
export const DashboardJobDetailFragmentDoc = new TypedDocumentString(`
    fragment DashboardJobDetail on Job {
  ...DashboardJobRow
  ...JobFields
  ...JobScheduleFields
  lastSuccessAt
  lastFailureAt
  pausedUntil
  skipRemaining
  skipReason
  nextRuns(count: 10)
}
    fragment JobDefinitionFields on Job {
  id
  key
  version
  status
  target
  payload
  scheduleType
  cronExpression
  cronExpressions
  runAt
  every
  anchorAt
  timezone
  startAt
  endAt
  maxRuns
  misfireGraceSeconds
  timeoutSeconds
  catchUp
  catchUpLimit
  pauseAfterFailures
  retry {
    maxAttempts
    backoff
    delaySeconds
    maxDelaySeconds
    retryOn
  }
  overlap
  maxConcurrentRuns
  jitterSeconds
  captureBytes
  heartbeatTimeoutSeconds
  notify
  expectSuccessWithinSeconds
  calendars
  after {
    on
    upstream {
      id
      key
      status
    }
  }
  afterMode
  afterWindowSeconds
  labels
  description
  owner
  concurrencyPool
}
fragment JobFields on Job {
  ...JobDefinitionFields
  scheduleDescription
  consecutiveFailures
  pauseReason
  nextRunAt
  createdBy
  updatedBy
  createdAt
  updatedAt
  supersedes {
    id
    version
    status
  }
  supersededBy {
    id
    version
    status
  }
}
fragment JobScheduleFields on Job {
  schedules
}
fragment DashboardJobRow on Job {
  id
  key
  version
  target
  scheduleType
  cronExpression
  every
  runAt
  timezone
  status
  pauseReason
  nextRunAt
  consecutiveFailures
  afterMode
  after {
    on
    upstream {
      id
      key
    }
  }
  labels
  lastRun {
    id
    status
    scheduledAt
    finishedAt
  }
}`, {"fragmentName":"DashboardJobDetail"}) as unknown as TypedDocumentString<DashboardJobDetailFragment, unknown>;
export const DashboardLogLineFragmentDoc = new TypedDocumentString(`
    fragment DashboardLogLine on RunLogLine {
  sequence
  at
  level
  message
  fields
}
    `, {"fragmentName":"DashboardLogLine"}) as unknown as TypedDocumentString<DashboardLogLineFragment, unknown>;
export const DashboardCalendarFragmentDoc = new TypedDocumentString(`
    fragment DashboardCalendar on Calendar {
  name
  timezone
  description
  dates
  yearly
  dailyWindows {
    start
    end
    reason
  }
  windows {
    from
    to
    reason
  }
  lastDate
  runsOutSoon
  updatedAt
  updatedBy
  usedBy {
    id
    key
    version
  }
}
    `, {"fragmentName":"DashboardCalendar"}) as unknown as TypedDocumentString<DashboardCalendarFragment, unknown>;
export const DashboardBackfillFragmentDoc = new TypedDocumentString(`
    fragment DashboardBackfill on Backfill {
  id
  from
  to
  scope
  slots
  skippedExisting
  created
  state
  requestedBy
  reason
}
    `, {"fragmentName":"DashboardBackfill"}) as unknown as TypedDocumentString<DashboardBackfillFragment, unknown>;
export const DashboardAuditEntryFragmentDoc = new TypedDocumentString(`
    fragment DashboardAuditEntry on AuditEntry {
  id
  at
  actor
  action
  jobKey
  subject
  details
}
    `, {"fragmentName":"DashboardAuditEntry"}) as unknown as TypedDocumentString<DashboardAuditEntryFragment, unknown>;
export const DashboardPoolFragmentDoc = new TypedDocumentString(`
    fragment DashboardPool on ConcurrencyPool {
  name
  limit
  running
  waiting
  jobs {
    id
    key
    version
  }
}
    `, {"fragmentName":"DashboardPool"}) as unknown as TypedDocumentString<DashboardPoolFragment, unknown>;
export const DashboardRoleDocument = new TypedDocumentString(`
    query DashboardRole {
  whoami {
    name
    role
    labelSelector
  }
}
    `) as unknown as TypedDocumentString<DashboardRoleQuery, DashboardRoleQueryVariables>;
export const DashboardTargetsDocument = new TypedDocumentString(`
    query DashboardTargets {
  targets {
    name
    description
  }
}
    `) as unknown as TypedDocumentString<DashboardTargetsQuery, DashboardTargetsQueryVariables>;
export const DashboardInstancesDocument = new TypedDocumentString(`
    query DashboardInstances {
  instances {
    id
    role
    host
    version
    startedAt
    heartbeatAt
    activeRuns
    ownedJobs
  }
}
    `) as unknown as TypedDocumentString<DashboardInstancesQuery, DashboardInstancesQueryVariables>;
export const DashboardJobsDocument = new TypedDocumentString(`
    query DashboardJobs($filter: JobFilter, $first: Int, $after: String) {
  jobs(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    nodes {
      ...DashboardJobRow
    }
  }
}
    fragment DashboardJobRow on Job {
  id
  key
  version
  target
  scheduleType
  cronExpression
  every
  runAt
  timezone
  status
  pauseReason
  nextRunAt
  consecutiveFailures
  afterMode
  after {
    on
    upstream {
      id
      key
    }
  }
  labels
  lastRun {
    id
    status
    scheduledAt
    finishedAt
  }
}`) as unknown as TypedDocumentString<DashboardJobsQuery, DashboardJobsQueryVariables>;
export const DashboardDependentsDocument = new TypedDocumentString(`
    query DashboardDependents {
  jobs(filter: {scheduleType: AFTER, status: [ACTIVE, PAUSED]}, first: 500) {
    nodes {
      id
      key
      version
      status
      afterMode
      after {
        on
        upstream {
          key
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardDependentsQuery, DashboardDependentsQueryVariables>;
export const DashboardJobDocument = new TypedDocumentString(`
    query DashboardJob($id: ID!) {
  job(id: $id) {
    ...DashboardJobDetail
  }
}
    fragment JobDefinitionFields on Job {
  id
  key
  version
  status
  target
  payload
  scheduleType
  cronExpression
  cronExpressions
  runAt
  every
  anchorAt
  timezone
  startAt
  endAt
  maxRuns
  misfireGraceSeconds
  timeoutSeconds
  catchUp
  catchUpLimit
  pauseAfterFailures
  retry {
    maxAttempts
    backoff
    delaySeconds
    maxDelaySeconds
    retryOn
  }
  overlap
  maxConcurrentRuns
  jitterSeconds
  captureBytes
  heartbeatTimeoutSeconds
  notify
  expectSuccessWithinSeconds
  calendars
  after {
    on
    upstream {
      id
      key
      status
    }
  }
  afterMode
  afterWindowSeconds
  labels
  description
  owner
  concurrencyPool
}
fragment JobFields on Job {
  ...JobDefinitionFields
  scheduleDescription
  consecutiveFailures
  pauseReason
  nextRunAt
  createdBy
  updatedBy
  createdAt
  updatedAt
  supersedes {
    id
    version
    status
  }
  supersededBy {
    id
    version
    status
  }
}
fragment JobScheduleFields on Job {
  schedules
}
fragment DashboardJobRow on Job {
  id
  key
  version
  target
  scheduleType
  cronExpression
  every
  runAt
  timezone
  status
  pauseReason
  nextRunAt
  consecutiveFailures
  afterMode
  after {
    on
    upstream {
      id
      key
    }
  }
  labels
  lastRun {
    id
    status
    scheduledAt
    finishedAt
  }
}
fragment DashboardJobDetail on Job {
  ...DashboardJobRow
  ...JobFields
  ...JobScheduleFields
  lastSuccessAt
  lastFailureAt
  pausedUntil
  skipRemaining
  skipReason
  nextRuns(count: 10)
}`) as unknown as TypedDocumentString<DashboardJobQuery, DashboardJobQueryVariables>;
export const DashboardJobVersionsDocument = new TypedDocumentString(`
    query DashboardJobVersions($key: String!) {
  jobs(filter: {key: $key, status: [ACTIVE, PAUSED, RETIRED]}, first: 100) {
    nodes {
      id
      version
      status
      scheduleType
      cronExpression
      runAt
      timezone
      target
      createdAt
      createdBy
      supersedes {
        id
        version
      }
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardJobVersionsQuery, DashboardJobVersionsQueryVariables>;
export const DashboardParseDocument = new TypedDocumentString(`
    query DashboardParse($text: String!, $timezone: String) {
  parseSchedule(text: $text, timezone: $timezone) {
    scheduleType
    cronExpression
    every
    timezone
    description
  }
}
    `) as unknown as TypedDocumentString<DashboardParseQuery, DashboardParseQueryVariables>;
export const DashboardPreviewDocument = new TypedDocumentString(`
    query DashboardPreview($cronExpression: String!, $timezone: String, $count: Int, $from: DateTime) {
  previewScheduleSlots(
    cronExpression: $cronExpression
    timezone: $timezone
    count: $count
    from: $from
  ) {
    at
    dstMark
    dstNote
  }
}
    `) as unknown as TypedDocumentString<DashboardPreviewQuery, DashboardPreviewQueryVariables>;
export const DashboardRunsDocument = new TypedDocumentString(`
    query DashboardRuns($filter: RunFilter, $first: Int, $after: String) {
  runs(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    nodes {
      ...DashboardRunRow
    }
  }
}
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}`) as unknown as TypedDocumentString<DashboardRunsQuery, DashboardRunsQueryVariables>;
export const DashboardRunDocument = new TypedDocumentString(`
    query DashboardRun($id: ID!) {
  run(id: $id) {
    ...DashboardRunRow
    payloadSnapshot
    output
    failureDetails
    runnerInstanceId
    progress
    progressMessage
    heartbeatAt
    retryOf {
      id
      attempt
    }
    upstreamRuns {
      id
      jobKey
      status
      finishedAt
    }
    nextAttemptAt
    triggeredBy
    createdAt
    updatedAt
    job {
      id
    }
  }
}
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}`) as unknown as TypedDocumentString<DashboardRunQuery, DashboardRunQueryVariables>;
export const DashboardRunLogsDocument = new TypedDocumentString(`
    query DashboardRunLogs($id: ID!, $after: String) {
  run(id: $id) {
    id
    logs(first: 500, after: $after) {
      nodes {
        ...DashboardLogLine
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      truncated
    }
  }
}
    fragment DashboardLogLine on RunLogLine {
  sequence
  at
  level
  message
  fields
}`) as unknown as TypedDocumentString<DashboardRunLogsQuery, DashboardRunLogsQueryVariables>;
export const DashboardRunLogsLiveDocument = new TypedDocumentString(`
    subscription DashboardRunLogsLive($runId: ID!) {
  runLogs(runId: $runId) {
    ...DashboardLogLine
  }
}
    fragment DashboardLogLine on RunLogLine {
  sequence
  at
  level
  message
  fields
}`) as unknown as TypedDocumentString<DashboardRunLogsLiveSubscription, DashboardRunLogsLiveSubscriptionVariables>;
export const DashboardRunChangedDocument = new TypedDocumentString(`
    subscription DashboardRunChanged {
  runChanged {
    previousStatus
    changedAt
    run {
      ...DashboardRunRow
    }
  }
}
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}`) as unknown as TypedDocumentString<DashboardRunChangedSubscription, DashboardRunChangedSubscriptionVariables>;
export const DashboardCreateJobDocument = new TypedDocumentString(`
    mutation DashboardCreateJob($input: CreateJobInput!) {
  createJob(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<DashboardCreateJobMutation, DashboardCreateJobMutationVariables>;
export const DashboardNewVersionDocument = new TypedDocumentString(`
    mutation DashboardNewVersion($id: ID!, $input: NewJobVersionInput!) {
  createJobVersion(id: $id, input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<DashboardNewVersionMutation, DashboardNewVersionMutationVariables>;
export const DashboardPauseDocument = new TypedDocumentString(`
    mutation DashboardPause($id: ID!, $reason: String!, $until: DateTime) {
  pauseJob(id: $id, reason: $reason, until: $until) {
    id
    status
    pauseReason
    pausedUntil
  }
}
    `) as unknown as TypedDocumentString<DashboardPauseMutation, DashboardPauseMutationVariables>;
export const DashboardSkipNextDocument = new TypedDocumentString(`
    mutation DashboardSkipNext($id: ID!, $count: Int!, $reason: String!) {
  skipNextRuns(id: $id, count: $count, reason: $reason) {
    id
    skipRemaining
    skipReason
  }
}
    `) as unknown as TypedDocumentString<DashboardSkipNextMutation, DashboardSkipNextMutationVariables>;
export const DashboardUpcomingDocument = new TypedDocumentString(`
    query DashboardUpcoming($to: DateTime!, $filter: JobFilter, $first: Int, $after: String) {
  upcoming(to: $to, filter: $filter, first: $first, after: $after) {
    nodes {
      slot
      dueAt
      job {
        id
        key
        target
        timezone
      }
    }
    pageInfo {
      hasNextPage
      endCursor
    }
  }
}
    `) as unknown as TypedDocumentString<DashboardUpcomingQuery, DashboardUpcomingQueryVariables>;
export const DashboardPauseJobsDocument = new TypedDocumentString(`
    mutation DashboardPauseJobs($labelSelector: String!, $reason: String!, $until: DateTime) {
  pauseJobs(labelSelector: $labelSelector, reason: $reason, until: $until)
}
    `) as unknown as TypedDocumentString<DashboardPauseJobsMutation, DashboardPauseJobsMutationVariables>;
export const DashboardResumeJobsDocument = new TypedDocumentString(`
    mutation DashboardResumeJobs($labelSelector: String!) {
  resumeJobs(labelSelector: $labelSelector)
}
    `) as unknown as TypedDocumentString<DashboardResumeJobsMutation, DashboardResumeJobsMutationVariables>;
export const DashboardJobCountDocument = new TypedDocumentString(`
    query DashboardJobCount($filter: JobFilter) {
  jobs(filter: $filter, first: 1) {
    totalCount
  }
}
    `) as unknown as TypedDocumentString<DashboardJobCountQuery, DashboardJobCountQueryVariables>;
export const DashboardResumeDocument = new TypedDocumentString(`
    mutation DashboardResume($id: ID!) {
  resumeJob(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardResumeMutation, DashboardResumeMutationVariables>;
export const DashboardRetireDocument = new TypedDocumentString(`
    mutation DashboardRetire($id: ID!) {
  retireJob(id: $id) {
    id
    status
  }
}
    `) as unknown as TypedDocumentString<DashboardRetireMutation, DashboardRetireMutationVariables>;
export const DashboardRunNowDocument = new TypedDocumentString(`
    mutation DashboardRunNow($id: ID!, $payload: JSON) {
  runJobNow(id: $id, payload: $payload) {
    ...DashboardRunRow
  }
}
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}`) as unknown as TypedDocumentString<DashboardRunNowMutation, DashboardRunNowMutationVariables>;
export const DashboardCancelDocument = new TypedDocumentString(`
    mutation DashboardCancel($id: ID!) {
  cancelRun(id: $id) {
    ...DashboardRunRow
  }
}
    fragment DashboardRunRow on Run {
  id
  jobKey
  jobVersion
  target
  triggerType
  status
  scheduledAt
  startedAt
  finishedAt
  durationMs
  failureCode
  failureMessage
  attempt
}`) as unknown as TypedDocumentString<DashboardCancelMutation, DashboardCancelMutationVariables>;
export const DashboardCalendarsDocument = new TypedDocumentString(`
    query DashboardCalendars {
  calendars {
    ...DashboardCalendar
  }
}
    fragment DashboardCalendar on Calendar {
  name
  timezone
  description
  dates
  yearly
  dailyWindows {
    start
    end
    reason
  }
  windows {
    from
    to
    reason
  }
  lastDate
  runsOutSoon
  updatedAt
  updatedBy
  usedBy {
    id
    key
    version
  }
}`) as unknown as TypedDocumentString<DashboardCalendarsQuery, DashboardCalendarsQueryVariables>;
export const DashboardSetCalendarDocument = new TypedDocumentString(`
    mutation DashboardSetCalendar($input: CalendarInput!) {
  setCalendar(input: $input) {
    ...DashboardCalendar
  }
}
    fragment DashboardCalendar on Calendar {
  name
  timezone
  description
  dates
  yearly
  dailyWindows {
    start
    end
    reason
  }
  windows {
    from
    to
    reason
  }
  lastDate
  runsOutSoon
  updatedAt
  updatedBy
  usedBy {
    id
    key
    version
  }
}`) as unknown as TypedDocumentString<DashboardSetCalendarMutation, DashboardSetCalendarMutationVariables>;
export const DashboardDeleteCalendarDocument = new TypedDocumentString(`
    mutation DashboardDeleteCalendar($name: String!) {
  deleteCalendar(name: $name)
}
    `) as unknown as TypedDocumentString<DashboardDeleteCalendarMutation, DashboardDeleteCalendarMutationVariables>;
export const DashboardBackfillJobDocument = new TypedDocumentString(`
    mutation DashboardBackfillJob($id: ID!, $from: DateTime!, $to: DateTime!, $scope: BackfillScope, $dryRun: Boolean, $reason: String!) {
  backfillJob(
    id: $id
    from: $from
    to: $to
    scope: $scope
    dryRun: $dryRun
    reason: $reason
  ) {
    ...DashboardBackfill
  }
}
    fragment DashboardBackfill on Backfill {
  id
  from
  to
  scope
  slots
  skippedExisting
  created
  state
  requestedBy
  reason
}`) as unknown as TypedDocumentString<DashboardBackfillJobMutation, DashboardBackfillJobMutationVariables>;
export const DashboardCancelBackfillDocument = new TypedDocumentString(`
    mutation DashboardCancelBackfill($id: ID!) {
  cancelBackfill(id: $id) {
    ...DashboardBackfill
  }
}
    fragment DashboardBackfill on Backfill {
  id
  from
  to
  scope
  slots
  skippedExisting
  created
  state
  requestedBy
  reason
}`) as unknown as TypedDocumentString<DashboardCancelBackfillMutation, DashboardCancelBackfillMutationVariables>;
export const DashboardBackfillStateDocument = new TypedDocumentString(`
    query DashboardBackfillState($id: ID!) {
  backfill(id: $id) {
    ...DashboardBackfill
  }
}
    fragment DashboardBackfill on Backfill {
  id
  from
  to
  scope
  slots
  skippedExisting
  created
  state
  requestedBy
  reason
}`) as unknown as TypedDocumentString<DashboardBackfillStateQuery, DashboardBackfillStateQueryVariables>;
export const DashboardAuditDocument = new TypedDocumentString(`
    query DashboardAudit($filter: AuditFilter, $first: Int, $after: String) {
  auditLog(filter: $filter, first: $first, after: $after) {
    totalCount
    pageInfo {
      hasNextPage
      endCursor
    }
    nodes {
      ...DashboardAuditEntry
    }
  }
}
    fragment DashboardAuditEntry on AuditEntry {
  id
  at
  actor
  action
  jobKey
  subject
  details
}`) as unknown as TypedDocumentString<DashboardAuditQuery, DashboardAuditQueryVariables>;
export const DashboardPoolsDocument = new TypedDocumentString(`
    query DashboardPools {
  concurrencyPools {
    ...DashboardPool
  }
}
    fragment DashboardPool on ConcurrencyPool {
  name
  limit
  running
  waiting
  jobs {
    id
    key
    version
  }
}`) as unknown as TypedDocumentString<DashboardPoolsQuery, DashboardPoolsQueryVariables>;
export const DashboardSetPoolDocument = new TypedDocumentString(`
    mutation DashboardSetPool($name: String!, $limit: Int!) {
  setConcurrencyPool(name: $name, limit: $limit) {
    ...DashboardPool
  }
}
    fragment DashboardPool on ConcurrencyPool {
  name
  limit
  running
  waiting
  jobs {
    id
    key
    version
  }
}`) as unknown as TypedDocumentString<DashboardSetPoolMutation, DashboardSetPoolMutationVariables>;
export const DashboardDeletePoolDocument = new TypedDocumentString(`
    mutation DashboardDeletePool($name: String!) {
  deleteConcurrencyPool(name: $name)
}
    `) as unknown as TypedDocumentString<DashboardDeletePoolMutation, DashboardDeletePoolMutationVariables>;
export const DashboardApiTokensDocument = new TypedDocumentString(`
    query DashboardApiTokens {
  apiTokens {
    ...ApiTokenFields
  }
}
    fragment ApiTokenFields on ApiToken {
  id
  name
  role
  labelSelector
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`) as unknown as TypedDocumentString<DashboardApiTokensQuery, DashboardApiTokensQueryVariables>;
export const DashboardCreateApiTokenDocument = new TypedDocumentString(`
    mutation DashboardCreateApiToken($name: String!, $role: TokenRole!, $labelSelector: String, $expiresAt: DateTime) {
  createApiToken(
    name: $name
    role: $role
    labelSelector: $labelSelector
    expiresAt: $expiresAt
  ) {
    token {
      ...ApiTokenFields
    }
    secret
  }
}
    fragment ApiTokenFields on ApiToken {
  id
  name
  role
  labelSelector
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`) as unknown as TypedDocumentString<DashboardCreateApiTokenMutation, DashboardCreateApiTokenMutationVariables>;
export const DashboardRevokeApiTokenDocument = new TypedDocumentString(`
    mutation DashboardRevokeApiToken($id: ID!) {
  revokeApiToken(id: $id) {
    ...ApiTokenFields
  }
}
    fragment ApiTokenFields on ApiToken {
  id
  name
  role
  labelSelector
  createdAt
  expiresAt
  lastUsedAt
  revokedAt
}`) as unknown as TypedDocumentString<DashboardRevokeApiTokenMutation, DashboardRevokeApiTokenMutationVariables>;