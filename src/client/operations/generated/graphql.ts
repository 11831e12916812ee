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

/** What cronql alerts on: once per transition, not once per failure. */
export type AlertEvent =
  /** cronql paused the job after pauseAfterFailures failures in a row. */
  | 'JOB_AUTO_PAUSED'
  /** No SUCCEEDED run expectSuccessWithinSeconds after a slot (once, until the job succeeds again). */
  | 'JOB_LATE'
  /** A failing job succeeded again. */
  | 'JOB_RECOVERED'
  /** RUNNING runs were settled because their runner was gone (one alert per sweep). */
  | 'RUNS_LOST'
  /** A job started failing: its run (last attempt) failed after the job had been succeeding. */
  | 'RUN_FAILED'
  /** Slots were recorded MISSED (one alert per batch and reason). */
  | 'SLOTS_MISSED';

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

/** How a channel is sent to. */
export type ChannelKind =
  /** A Slack incoming webhook: a readable message with a link to the run in the dashboard. */
  | 'SLACK'
  /** A JSON POST with the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature). */
  | 'WEBHOOK';

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

/** One job of createJobVersions: the arguments of createJobVersion. */
export type CreateJobVersionInput = {
  /** The live version to replace. */
  id: string | number;
  input: NewJobVersionInput;
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

/** A channel to create or replace (by name). */
export type NotificationChannelInput = {
  /** A default channel: alerts of jobs whose notify is empty go to the default channels. */
  default?: boolean | null | undefined;
  /** The events it takes; omitted or null: every event. */
  events?: Array<AlertEvent> | null | undefined;
  kind: ChannelKind;
  /** 1–64 letters, digits and . _ -, starting with a letter or digit. */
  name: string;
  /** WEBHOOK only: the signing secret, whsec_<base64> (Standard Webhooks) or at least 16 characters (used as its UTF-8 bytes). */
  secret?: string | null | undefined;
  /** http: or https:; stored encrypted, never shown again (only its host). */
  url: string;
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

export type ApiTokensQueryVariables = Exact<{ [key: string]: never; }>;


export type ApiTokensQuery = { apiTokens: Array<{ createdAt: string, expiresAt: string | null, id: string, labelSelector: string | null, lastUsedAt: string | null, name: string, revokedAt: string | null, role: TokenRole }> };

export type AuditLogQueryVariables = Exact<{
  after?: string | null | undefined;
  filter?: AuditFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type AuditLogQuery = { auditLog: { totalCount: number, pageInfo: { endCursor: string | null, hasNextPage: boolean }, nodes: Array<{ action: string, actor: string, at: string, details: unknown, id: string, jobKey: string | null, subject: string | null }> } };

export type BackfillQueryVariables = Exact<{
  id: string | number;
}>;


export type BackfillQuery = { backfill: { created: number, createdAt: string, finishedAt: string | null, from: string, id: string, reason: string, requestedBy: string | null, scope: BackfillScope, skippedExisting: number, slots: Array<string>, state: BackfillState, to: string, job: { id: string, key: string, version: number } } | null };

export type BackfillsQueryVariables = Exact<{
  first?: number | null | undefined;
  jobId: string | number;
}>;


export type BackfillsQuery = { backfills: Array<{ created: number, createdAt: string, finishedAt: string | null, from: string, id: string, reason: string, requestedBy: string | null, scope: BackfillScope, skippedExisting: number, slots: Array<string>, state: BackfillState, to: string, job: { id: string, key: string, version: number } }> };

export type CalendarQueryVariables = Exact<{
  name: string;
}>;


export type CalendarQuery = { calendar: { dates: Array<string>, description: string | null, lastDate: string | null, name: string, runsOutSoon: boolean, timezone: string, updatedAt: string, updatedBy: string | null, yearly: Array<string>, dailyWindows: Array<{ end: string, reason: string | null, start: string }>, usedBy: Array<{ id: string, key: string, version: number }>, windows: Array<{ from: string, reason: string | null, to: string }> } | null };

export type CalendarsQueryVariables = Exact<{ [key: string]: never; }>;


export type CalendarsQuery = { calendars: Array<{ dates: Array<string>, description: string | null, lastDate: string | null, name: string, runsOutSoon: boolean, timezone: string, updatedAt: string, updatedBy: string | null, yearly: Array<string>, dailyWindows: Array<{ end: string, reason: string | null, start: string }>, usedBy: Array<{ id: string, key: string, version: number }>, windows: Array<{ from: string, reason: string | null, to: string }> }> };

export type ConcurrencyPoolsQueryVariables = Exact<{ [key: string]: never; }>;


export type ConcurrencyPoolsQuery = { concurrencyPools: Array<{ limit: number, name: string, running: number, waiting: number, jobs: Array<{ id: string, key: string, version: number }> }> };

export type DescribeScheduleQueryVariables = Exact<{
  cronExpression: string;
  timezone?: string | null | undefined;
}>;


export type DescribeScheduleQuery = { describeSchedule: string };

export type HealthQueryVariables = Exact<{ [key: string]: never; }>;


export type HealthQuery = { health: { lostRunsLastHour: number | null, missedSlotsLastHour: number | null, ready: boolean, checks: Array<{ name: string, status: string }> } };

export type InstancesQueryVariables = Exact<{ [key: string]: never; }>;


export type InstancesQuery = { instances: Array<{ activeRuns: number, heartbeatAt: string, host: string | null, id: string, ownedJobs: number, role: string, startedAt: string, version: string | null }> };

export type JobQueryVariables = Exact<{
  id: string | number;
}>;


export type JobQuery = { job: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } | null };

export type JobsQueryVariables = Exact<{
  after?: string | null | undefined;
  filter?: JobFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type JobsQuery = { jobs: { totalCount: number, pageInfo: { endCursor: string | null, hasNextPage: boolean }, nodes: Array<{ afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null }> } };

export type NotificationChannelsQueryVariables = Exact<{ [key: string]: never; }>;


export type NotificationChannelsQuery = { notificationChannels: Array<{ default: boolean, events: Array<AlertEvent>, kind: ChannelKind, lastDeliveryAt: string | null, lastError: string | null, name: string, urlHost: string }> };

export type ParseScheduleQueryVariables = Exact<{
  text: string;
  timezone?: string | null | undefined;
}>;


export type ParseScheduleQuery = { parseSchedule: { anchorAt: string | null, cronExpression: string | null, description: string, every: string | null, next: Array<string>, scheduleType: ScheduleType, timezone: string } };

export type PreviewScheduleQueryVariables = Exact<{
  anchorAt?: string | null | undefined;
  count?: number | null | undefined;
  cronExpression?: string | null | undefined;
  cronExpressions?: Array<string> | string | null | undefined;
  every?: string | null | undefined;
  from?: string | null | undefined;
  timezone?: string | null | undefined;
}>;


export type PreviewScheduleQuery = { previewSchedule: Array<string> };

export type PreviewScheduleSlotsQueryVariables = Exact<{
  count?: number | null | undefined;
  cronExpression: string;
  from?: string | null | undefined;
  timezone?: string | null | undefined;
}>;


export type PreviewScheduleSlotsQuery = { previewScheduleSlots: Array<{ at: string, dstMark: DstMark | null, dstNote: string | null }> };

export type RunQueryVariables = Exact<{
  id: string | number;
}>;


export type RunQuery = { run: { attempt: number, createdAt: string, durationMs: number | null, failureCode: string | null, failureDetails: unknown, failureMessage: string | null, finishedAt: string | null, heartbeatAt: string | null, id: string, jobKey: string, jobVersion: number, nextAttemptAt: string | null, output: unknown, payloadSnapshot: unknown, progress: number | null, progressMessage: string | null, runnerInstanceId: string | null, scheduledAt: string, startedAt: string | null, status: RunStatus, target: string, traceId: string | null, triggeredBy: string | null, triggerType: TriggerType, updatedAt: string, waitingFor: string | null, job: { id: string, key: string, version: number }, retryOf: { id: string, status: RunStatus } | null, upstreamRuns: Array<{ id: string, status: RunStatus }> } | null };

export type RunsQueryVariables = Exact<{
  after?: string | null | undefined;
  filter?: RunFilter | null | undefined;
  first?: number | null | undefined;
}>;


export type RunsQuery = { runs: { totalCount: number, pageInfo: { endCursor: string | null, hasNextPage: boolean }, nodes: Array<{ attempt: number, createdAt: string, durationMs: number | null, failureCode: string | null, failureDetails: unknown, failureMessage: string | null, finishedAt: string | null, heartbeatAt: string | null, id: string, jobKey: string, jobVersion: number, nextAttemptAt: string | null, output: unknown, payloadSnapshot: unknown, progress: number | null, progressMessage: string | null, runnerInstanceId: string | null, scheduledAt: string, startedAt: string | null, status: RunStatus, target: string, traceId: string | null, triggeredBy: string | null, triggerType: TriggerType, updatedAt: string, waitingFor: string | null }> } };

export type SecretsQueryVariables = Exact<{ [key: string]: never; }>;


export type SecretsQuery = { secrets: Array<{ createdAt: string, name: string, updatedAt: string, usedBy: Array<{ id: string, key: string, version: number }> }> };

export type StatsQueryVariables = Exact<{
  window?: number | null | undefined;
}>;


export type StatsQuery = { stats: { since: string, total: number, until: string, byStatus: Array<{ count: number, status: RunStatus }>, byTarget: Array<{ failureRate: number, failures: number, runs: number, target: string }>, byTrigger: Array<{ count: number, trigger: TriggerType }>, lateness: { maxMs: number, p50Ms: number, p90Ms: number, p99Ms: number } | null, mostFailing: Array<{ failures: number, jobId: string, jobKey: string, runs: number }> } };

export type TargetsQueryVariables = Exact<{ [key: string]: never; }>;


export type TargetsQuery = { targets: Array<{ description: string | null, name: string }> };

export type UpcomingQueryVariables = Exact<{
  after?: string | null | undefined;
  filter?: JobFilter | null | undefined;
  first?: number | null | undefined;
  from?: string | null | undefined;
  to: string;
}>;


export type UpcomingQuery = { upcoming: { pageInfo: { endCursor: string | null, hasNextPage: boolean }, nodes: Array<{ dueAt: string, slot: string }> } };

export type WhoamiQueryVariables = Exact<{ [key: string]: never; }>;


export type WhoamiQuery = { whoami: { createdAt: string, expiresAt: string | null, id: string, labelSelector: string | null, lastUsedAt: string | null, name: string, revokedAt: string | null, role: TokenRole } | null };

export type BackfillJobMutationVariables = Exact<{
  dryRun?: boolean | null | undefined;
  from: string;
  id: string | number;
  reason: string;
  scope?: BackfillScope | null | undefined;
  to: string;
}>;


export type BackfillJobMutation = { backfillJob: { created: number, createdAt: string, finishedAt: string | null, from: string, id: string, reason: string, requestedBy: string | null, scope: BackfillScope, skippedExisting: number, slots: Array<string>, state: BackfillState, to: string, job: { id: string, key: string, version: number } } };

export type CancelBackfillMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelBackfillMutation = { cancelBackfill: { created: number, createdAt: string, finishedAt: string | null, from: string, id: string, reason: string, requestedBy: string | null, scope: BackfillScope, skippedExisting: number, slots: Array<string>, state: BackfillState, to: string, job: { id: string, key: string, version: number } } };

export type CancelRunMutationVariables = Exact<{
  id: string | number;
}>;


export type CancelRunMutation = { cancelRun: { attempt: number, createdAt: string, durationMs: number | null, failureCode: string | null, failureDetails: unknown, failureMessage: string | null, finishedAt: string | null, heartbeatAt: string | null, id: string, jobKey: string, jobVersion: number, nextAttemptAt: string | null, output: unknown, payloadSnapshot: unknown, progress: number | null, progressMessage: string | null, runnerInstanceId: string | null, scheduledAt: string, startedAt: string | null, status: RunStatus, target: string, traceId: string | null, triggeredBy: string | null, triggerType: TriggerType, updatedAt: string, waitingFor: string | null, job: { id: string, key: string, version: number }, retryOf: { id: string, status: RunStatus } | null, upstreamRuns: Array<{ id: string, status: RunStatus }> } };

export type CreateApiTokenMutationVariables = Exact<{
  expiresAt?: string | null | undefined;
  labelSelector?: string | null | undefined;
  name: string;
  role: TokenRole;
}>;


export type CreateApiTokenMutation = { createApiToken: { secret: string, token: { createdAt: string, expiresAt: string | null, id: string, labelSelector: string | null, lastUsedAt: string | null, name: string, revokedAt: string | null, role: TokenRole } } };

export type CreateJobMutationVariables = Exact<{
  input: CreateJobInput;
}>;


export type CreateJobMutation = { createJob: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type CreateJobsMutationVariables = Exact<{
  inputs: Array<CreateJobInput> | CreateJobInput;
}>;


export type CreateJobsMutation = { createJobs: Array<{ afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null }> };

export type CreateJobVersionMutationVariables = Exact<{
  id: string | number;
  input: NewJobVersionInput;
}>;


export type CreateJobVersionMutation = { createJobVersion: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type CreateJobVersionsMutationVariables = Exact<{
  inputs: Array<CreateJobVersionInput> | CreateJobVersionInput;
}>;


export type CreateJobVersionsMutation = { createJobVersions: Array<{ afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null }> };

export type DeleteCalendarMutationVariables = Exact<{
  name: string;
}>;


export type DeleteCalendarMutation = { deleteCalendar: boolean };

export type DeleteConcurrencyPoolMutationVariables = Exact<{
  name: string;
}>;


export type DeleteConcurrencyPoolMutation = { deleteConcurrencyPool: boolean };

export type DeleteNotificationChannelMutationVariables = Exact<{
  name: string;
}>;


export type DeleteNotificationChannelMutation = { deleteNotificationChannel: boolean };

export type DeleteSecretMutationVariables = Exact<{
  name: string;
}>;


export type DeleteSecretMutation = { deleteSecret: boolean };

export type PauseJobMutationVariables = Exact<{
  id: string | number;
  reason: string;
  until?: string | null | undefined;
}>;


export type PauseJobMutation = { pauseJob: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type PauseJobsMutationVariables = Exact<{
  labelSelector: string;
  reason: string;
  until?: string | null | undefined;
}>;


export type PauseJobsMutation = { pauseJobs: number };

export type ResumeJobMutationVariables = Exact<{
  id: string | number;
}>;


export type ResumeJobMutation = { resumeJob: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type ResumeJobsMutationVariables = Exact<{
  labelSelector: string;
}>;


export type ResumeJobsMutation = { resumeJobs: number };

export type RetireJobMutationVariables = Exact<{
  id: string | number;
}>;


export type RetireJobMutation = { retireJob: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type RevokeApiTokenMutationVariables = Exact<{
  id: string | number;
}>;


export type RevokeApiTokenMutation = { revokeApiToken: { createdAt: string, expiresAt: string | null, id: string, labelSelector: string | null, lastUsedAt: string | null, name: string, revokedAt: string | null, role: TokenRole } };

export type RunJobNowMutationVariables = Exact<{
  id: string | number;
  payload?: unknown;
}>;


export type RunJobNowMutation = { runJobNow: { attempt: number, createdAt: string, durationMs: number | null, failureCode: string | null, failureDetails: unknown, failureMessage: string | null, finishedAt: string | null, heartbeatAt: string | null, id: string, jobKey: string, jobVersion: number, nextAttemptAt: string | null, output: unknown, payloadSnapshot: unknown, progress: number | null, progressMessage: string | null, runnerInstanceId: string | null, scheduledAt: string, startedAt: string | null, status: RunStatus, target: string, traceId: string | null, triggeredBy: string | null, triggerType: TriggerType, updatedAt: string, waitingFor: string | null, job: { id: string, key: string, version: number }, retryOf: { id: string, status: RunStatus } | null, upstreamRuns: Array<{ id: string, status: RunStatus }> } };

export type SetCalendarMutationVariables = Exact<{
  input: CalendarInput;
}>;


export type SetCalendarMutation = { setCalendar: { dates: Array<string>, description: string | null, lastDate: string | null, name: string, runsOutSoon: boolean, timezone: string, updatedAt: string, updatedBy: string | null, yearly: Array<string>, dailyWindows: Array<{ end: string, reason: string | null, start: string }>, usedBy: Array<{ id: string, key: string, version: number }>, windows: Array<{ from: string, reason: string | null, to: string }> } };

export type SetConcurrencyPoolMutationVariables = Exact<{
  limit: number;
  name: string;
}>;


export type SetConcurrencyPoolMutation = { setConcurrencyPool: { limit: number, name: string, running: number, waiting: number, jobs: Array<{ id: string, key: string, version: number }> } };

export type SetNotificationChannelMutationVariables = Exact<{
  input: NotificationChannelInput;
}>;


export type SetNotificationChannelMutation = { setNotificationChannel: { default: boolean, events: Array<AlertEvent>, kind: ChannelKind, lastDeliveryAt: string | null, lastError: string | null, name: string, urlHost: string } };

export type SetSecretMutationVariables = Exact<{
  name: string;
  value: string;
}>;


export type SetSecretMutation = { setSecret: { createdAt: string, name: string, updatedAt: string, usedBy: Array<{ id: string, key: string, version: number }> } };

export type SkipNextRunsMutationVariables = Exact<{
  count: number;
  id: string | number;
  reason: string;
}>;


export type SkipNextRunsMutation = { skipNextRuns: { afterMode: AfterMode, afterWindowSeconds: number | null, anchorAt: string | null, armedOn: Array<string>, calendars: Array<string> | null, captureBytes: number, catchUp: CatchUpPolicy, catchUpLimit: number | null, concurrencyPool: string | null, consecutiveFailures: number, createdAt: string, createdBy: string | null, cronExpression: string | null, cronExpressions: Array<string> | null, description: string | null, endAt: string | null, every: string | null, expectSuccessWithinSeconds: number | null, heartbeatTimeoutSeconds: number | null, id: string, jitterSeconds: number, key: string, labels: unknown, lastFailureAt: string | null, lastSuccessAt: string | null, maxConcurrentRuns: number, maxRuns: number | null, misfireGraceSeconds: number | null, nextRunAt: string | null, notify: Array<string> | null, overlap: OverlapPolicy, owner: string | null, pauseAfterFailures: number | null, pausedUntil: string | null, pauseReason: string | null, payload: unknown, runAt: string | null, scheduleDescription: string | null, schedules: Array<string>, scheduleType: ScheduleType, skipReason: string | null, skipRemaining: number, startAt: string | null, status: JobStatus, target: string, timeoutSeconds: number | null, timezone: string, updatedAt: string, updatedBy: string | null, version: number, after: Array<{ on: DependencyOutcome, upstream: { id: string, key: string, version: number } }>, lastRun: { id: string, status: RunStatus } | null, retry: { backoff: BackoffKind, delaySeconds: number, maxAttempts: number, maxDelaySeconds: number | null, retryOn: Array<string> | null } | null, supersededBy: { id: string, key: string, version: number } | null, supersedes: { id: string, key: string, version: number } | null } };

export type TestNotificationChannelMutationVariables = Exact<{
  name: string;
}>;


export type TestNotificationChannelMutation = { testNotificationChannel: boolean };

export type RunChangedSubscriptionVariables = Exact<{
  filter?: RunFilter | null | undefined;
}>;


export type RunChangedSubscription = { runChanged: { changedAt: string, previousStatus: RunStatus | null, run: { attempt: number, createdAt: string, durationMs: number | null, failureCode: string | null, failureDetails: unknown, failureMessage: string | null, finishedAt: string | null, heartbeatAt: string | null, id: string, jobKey: string, jobVersion: number, nextAttemptAt: string | null, output: unknown, payloadSnapshot: unknown, progress: number | null, progressMessage: string | null, runnerInstanceId: string | null, scheduledAt: string, startedAt: string | null, status: RunStatus, target: string, traceId: string | null, triggeredBy: string | null, triggerType: TriggerType, updatedAt: string, waitingFor: string | null, job: { id: string, key: string, version: number }, retryOf: { id: string, status: RunStatus } | null, upstreamRuns: Array<{ id: string, status: RunStatus }> } } };

export type RunLogsSubscriptionVariables = Exact<{
  runId: string | number;
}>;


export type RunLogsSubscription = { runLogs: { at: string, fields: unknown, level: string, message: string, sequence: number } };

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

export const ApiTokensDocument = new TypedDocumentString(`
    query ApiTokens {
  apiTokens {
    createdAt
    expiresAt
    id
    labelSelector
    lastUsedAt
    name
    revokedAt
    role
  }
}
    `) as unknown as TypedDocumentString<ApiTokensQuery, ApiTokensQueryVariables>;
export const AuditLogDocument = new TypedDocumentString(`
    query AuditLog($after: String, $filter: AuditFilter, $first: Int) {
  auditLog(after: $after, filter: $filter, first: $first) {
    totalCount
    pageInfo {
      endCursor
      hasNextPage
    }
    nodes {
      action
      actor
      at
      details
      id
      jobKey
      subject
    }
  }
}
    `) as unknown as TypedDocumentString<AuditLogQuery, AuditLogQueryVariables>;
export const BackfillDocument = new TypedDocumentString(`
    query Backfill($id: ID!) {
  backfill(id: $id) {
    created
    createdAt
    finishedAt
    from
    id
    job {
      id
      key
      version
    }
    reason
    requestedBy
    scope
    skippedExisting
    slots
    state
    to
  }
}
    `) as unknown as TypedDocumentString<BackfillQuery, BackfillQueryVariables>;
export const BackfillsDocument = new TypedDocumentString(`
    query Backfills($first: Int, $jobId: ID!) {
  backfills(first: $first, jobId: $jobId) {
    created
    createdAt
    finishedAt
    from
    id
    job {
      id
      key
      version
    }
    reason
    requestedBy
    scope
    skippedExisting
    slots
    state
    to
  }
}
    `) as unknown as TypedDocumentString<BackfillsQuery, BackfillsQueryVariables>;
export const CalendarDocument = new TypedDocumentString(`
    query Calendar($name: String!) {
  calendar(name: $name) {
    dailyWindows {
      end
      reason
      start
    }
    dates
    description
    lastDate
    name
    runsOutSoon
    timezone
    updatedAt
    updatedBy
    usedBy {
      id
      key
      version
    }
    windows {
      from
      reason
      to
    }
    yearly
  }
}
    `) as unknown as TypedDocumentString<CalendarQuery, CalendarQueryVariables>;
export const CalendarsDocument = new TypedDocumentString(`
    query Calendars {
  calendars {
    dailyWindows {
      end
      reason
      start
    }
    dates
    description
    lastDate
    name
    runsOutSoon
    timezone
    updatedAt
    updatedBy
    usedBy {
      id
      key
      version
    }
    windows {
      from
      reason
      to
    }
    yearly
  }
}
    `) as unknown as TypedDocumentString<CalendarsQuery, CalendarsQueryVariables>;
export const ConcurrencyPoolsDocument = new TypedDocumentString(`
    query ConcurrencyPools {
  concurrencyPools {
    jobs {
      id
      key
      version
    }
    limit
    name
    running
    waiting
  }
}
    `) as unknown as TypedDocumentString<ConcurrencyPoolsQuery, ConcurrencyPoolsQueryVariables>;
export const DescribeScheduleDocument = new TypedDocumentString(`
    query DescribeSchedule($cronExpression: String!, $timezone: String) {
  describeSchedule(cronExpression: $cronExpression, timezone: $timezone)
}
    `) as unknown as TypedDocumentString<DescribeScheduleQuery, DescribeScheduleQueryVariables>;
export const HealthDocument = new TypedDocumentString(`
    query Health {
  health {
    checks {
      name
      status
    }
    lostRunsLastHour
    missedSlotsLastHour
    ready
  }
}
    `) as unknown as TypedDocumentString<HealthQuery, HealthQueryVariables>;
export const InstancesDocument = new TypedDocumentString(`
    query Instances {
  instances {
    activeRuns
    heartbeatAt
    host
    id
    ownedJobs
    role
    startedAt
    version
  }
}
    `) as unknown as TypedDocumentString<InstancesQuery, InstancesQueryVariables>;
export const JobDocument = new TypedDocumentString(`
    query Job($id: ID!) {
  job(id: $id) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<JobQuery, JobQueryVariables>;
export const JobsDocument = new TypedDocumentString(`
    query Jobs($after: String, $filter: JobFilter, $first: Int) {
  jobs(after: $after, filter: $filter, first: $first) {
    totalCount
    pageInfo {
      endCursor
      hasNextPage
    }
    nodes {
      after {
        on
        upstream {
          id
          key
          version
        }
      }
      afterMode
      afterWindowSeconds
      anchorAt
      armedOn
      calendars
      captureBytes
      catchUp
      catchUpLimit
      concurrencyPool
      consecutiveFailures
      createdAt
      createdBy
      cronExpression
      cronExpressions
      description
      endAt
      every
      expectSuccessWithinSeconds
      heartbeatTimeoutSeconds
      id
      jitterSeconds
      key
      labels
      lastFailureAt
      lastSuccessAt
      maxConcurrentRuns
      maxRuns
      misfireGraceSeconds
      nextRunAt
      notify
      overlap
      owner
      pauseAfterFailures
      pausedUntil
      pauseReason
      payload
      retry {
        backoff
        delaySeconds
        maxAttempts
        maxDelaySeconds
        retryOn
      }
      runAt
      scheduleDescription
      schedules
      scheduleType
      skipReason
      skipRemaining
      startAt
      status
      target
      timeoutSeconds
      timezone
      updatedAt
      updatedBy
      version
    }
  }
}
    `) as unknown as TypedDocumentString<JobsQuery, JobsQueryVariables>;
export const NotificationChannelsDocument = new TypedDocumentString(`
    query NotificationChannels {
  notificationChannels {
    default
    events
    kind
    lastDeliveryAt
    lastError
    name
    urlHost
  }
}
    `) as unknown as TypedDocumentString<NotificationChannelsQuery, NotificationChannelsQueryVariables>;
export const ParseScheduleDocument = new TypedDocumentString(`
    query ParseSchedule($text: String!, $timezone: String) {
  parseSchedule(text: $text, timezone: $timezone) {
    anchorAt
    cronExpression
    description
    every
    next
    scheduleType
    timezone
  }
}
    `) as unknown as TypedDocumentString<ParseScheduleQuery, ParseScheduleQueryVariables>;
export const PreviewScheduleDocument = new TypedDocumentString(`
    query PreviewSchedule($anchorAt: DateTime, $count: Int, $cronExpression: String, $cronExpressions: [String!], $every: String, $from: DateTime, $timezone: String) {
  previewSchedule(
    anchorAt: $anchorAt
    count: $count
    cronExpression: $cronExpression
    cronExpressions: $cronExpressions
    every: $every
    from: $from
    timezone: $timezone
  )
}
    `) as unknown as TypedDocumentString<PreviewScheduleQuery, PreviewScheduleQueryVariables>;
export const PreviewScheduleSlotsDocument = new TypedDocumentString(`
    query PreviewScheduleSlots($count: Int, $cronExpression: String!, $from: DateTime, $timezone: String) {
  previewScheduleSlots(
    count: $count
    cronExpression: $cronExpression
    from: $from
    timezone: $timezone
  ) {
    at
    dstMark
    dstNote
  }
}
    `) as unknown as TypedDocumentString<PreviewScheduleSlotsQuery, PreviewScheduleSlotsQueryVariables>;
export const RunDocument = new TypedDocumentString(`
    query Run($id: ID!) {
  run(id: $id) {
    attempt
    createdAt
    durationMs
    failureCode
    failureDetails
    failureMessage
    finishedAt
    heartbeatAt
    id
    job {
      id
      key
      version
    }
    jobKey
    jobVersion
    nextAttemptAt
    output
    payloadSnapshot
    progress
    progressMessage
    retryOf {
      id
      status
    }
    runnerInstanceId
    scheduledAt
    startedAt
    status
    target
    traceId
    triggeredBy
    triggerType
    updatedAt
    upstreamRuns {
      id
      status
    }
    waitingFor
  }
}
    `) as unknown as TypedDocumentString<RunQuery, RunQueryVariables>;
export const RunsDocument = new TypedDocumentString(`
    query Runs($after: String, $filter: RunFilter, $first: Int) {
  runs(after: $after, filter: $filter, first: $first) {
    totalCount
    pageInfo {
      endCursor
      hasNextPage
    }
    nodes {
      attempt
      createdAt
      durationMs
      failureCode
      failureDetails
      failureMessage
      finishedAt
      heartbeatAt
      id
      jobKey
      jobVersion
      nextAttemptAt
      output
      payloadSnapshot
      progress
      progressMessage
      runnerInstanceId
      scheduledAt
      startedAt
      status
      target
      traceId
      triggeredBy
      triggerType
      updatedAt
      waitingFor
    }
  }
}
    `) as unknown as TypedDocumentString<RunsQuery, RunsQueryVariables>;
export const SecretsDocument = new TypedDocumentString(`
    query Secrets {
  secrets {
    createdAt
    name
    updatedAt
    usedBy {
      id
      key
      version
    }
  }
}
    `) as unknown as TypedDocumentString<SecretsQuery, SecretsQueryVariables>;
export const StatsDocument = new TypedDocumentString(`
    query Stats($window: Int) {
  stats(window: $window) {
    byStatus {
      count
      status
    }
    byTarget {
      failureRate
      failures
      runs
      target
    }
    byTrigger {
      count
      trigger
    }
    lateness {
      maxMs
      p50Ms
      p90Ms
      p99Ms
    }
    mostFailing {
      failures
      jobId
      jobKey
      runs
    }
    since
    total
    until
  }
}
    `) as unknown as TypedDocumentString<StatsQuery, StatsQueryVariables>;
export const TargetsDocument = new TypedDocumentString(`
    query Targets {
  targets {
    description
    name
  }
}
    `) as unknown as TypedDocumentString<TargetsQuery, TargetsQueryVariables>;
export const UpcomingDocument = new TypedDocumentString(`
    query Upcoming($after: String, $filter: JobFilter, $first: Int, $from: DateTime, $to: DateTime!) {
  upcoming(after: $after, filter: $filter, first: $first, from: $from, to: $to) {
    pageInfo {
      endCursor
      hasNextPage
    }
    nodes {
      dueAt
      slot
    }
  }
}
    `) as unknown as TypedDocumentString<UpcomingQuery, UpcomingQueryVariables>;
export const WhoamiDocument = new TypedDocumentString(`
    query Whoami {
  whoami {
    createdAt
    expiresAt
    id
    labelSelector
    lastUsedAt
    name
    revokedAt
    role
  }
}
    `) as unknown as TypedDocumentString<WhoamiQuery, WhoamiQueryVariables>;
export const BackfillJobDocument = new TypedDocumentString(`
    mutation BackfillJob($dryRun: Boolean, $from: DateTime!, $id: ID!, $reason: String!, $scope: BackfillScope, $to: DateTime!) {
  backfillJob(
    dryRun: $dryRun
    from: $from
    id: $id
    reason: $reason
    scope: $scope
    to: $to
  ) {
    created
    createdAt
    finishedAt
    from
    id
    job {
      id
      key
      version
    }
    reason
    requestedBy
    scope
    skippedExisting
    slots
    state
    to
  }
}
    `) as unknown as TypedDocumentString<BackfillJobMutation, BackfillJobMutationVariables>;
export const CancelBackfillDocument = new TypedDocumentString(`
    mutation CancelBackfill($id: ID!) {
  cancelBackfill(id: $id) {
    created
    createdAt
    finishedAt
    from
    id
    job {
      id
      key
      version
    }
    reason
    requestedBy
    scope
    skippedExisting
    slots
    state
    to
  }
}
    `) as unknown as TypedDocumentString<CancelBackfillMutation, CancelBackfillMutationVariables>;
export const CancelRunDocument = new TypedDocumentString(`
    mutation CancelRun($id: ID!) {
  cancelRun(id: $id) {
    attempt
    createdAt
    durationMs
    failureCode
    failureDetails
    failureMessage
    finishedAt
    heartbeatAt
    id
    job {
      id
      key
      version
    }
    jobKey
    jobVersion
    nextAttemptAt
    output
    payloadSnapshot
    progress
    progressMessage
    retryOf {
      id
      status
    }
    runnerInstanceId
    scheduledAt
    startedAt
    status
    target
    traceId
    triggeredBy
    triggerType
    updatedAt
    upstreamRuns {
      id
      status
    }
    waitingFor
  }
}
    `) as unknown as TypedDocumentString<CancelRunMutation, CancelRunMutationVariables>;
export const CreateApiTokenDocument = new TypedDocumentString(`
    mutation CreateApiToken($expiresAt: DateTime, $labelSelector: String, $name: String!, $role: TokenRole!) {
  createApiToken(
    expiresAt: $expiresAt
    labelSelector: $labelSelector
    name: $name
    role: $role
  ) {
    secret
    token {
      createdAt
      expiresAt
      id
      labelSelector
      lastUsedAt
      name
      revokedAt
      role
    }
  }
}
    `) as unknown as TypedDocumentString<CreateApiTokenMutation, CreateApiTokenMutationVariables>;
export const CreateJobDocument = new TypedDocumentString(`
    mutation CreateJob($input: CreateJobInput!) {
  createJob(input: $input) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<CreateJobMutation, CreateJobMutationVariables>;
export const CreateJobsDocument = new TypedDocumentString(`
    mutation CreateJobs($inputs: [CreateJobInput!]!) {
  createJobs(inputs: $inputs) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<CreateJobsMutation, CreateJobsMutationVariables>;
export const CreateJobVersionDocument = new TypedDocumentString(`
    mutation CreateJobVersion($id: ID!, $input: NewJobVersionInput!) {
  createJobVersion(id: $id, input: $input) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<CreateJobVersionMutation, CreateJobVersionMutationVariables>;
export const CreateJobVersionsDocument = new TypedDocumentString(`
    mutation CreateJobVersions($inputs: [CreateJobVersionInput!]!) {
  createJobVersions(inputs: $inputs) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<CreateJobVersionsMutation, CreateJobVersionsMutationVariables>;
export const DeleteCalendarDocument = new TypedDocumentString(`
    mutation DeleteCalendar($name: String!) {
  deleteCalendar(name: $name)
}
    `) as unknown as TypedDocumentString<DeleteCalendarMutation, DeleteCalendarMutationVariables>;
export const DeleteConcurrencyPoolDocument = new TypedDocumentString(`
    mutation DeleteConcurrencyPool($name: String!) {
  deleteConcurrencyPool(name: $name)
}
    `) as unknown as TypedDocumentString<DeleteConcurrencyPoolMutation, DeleteConcurrencyPoolMutationVariables>;
export const DeleteNotificationChannelDocument = new TypedDocumentString(`
    mutation DeleteNotificationChannel($name: String!) {
  deleteNotificationChannel(name: $name)
}
    `) as unknown as TypedDocumentString<DeleteNotificationChannelMutation, DeleteNotificationChannelMutationVariables>;
export const DeleteSecretDocument = new TypedDocumentString(`
    mutation DeleteSecret($name: String!) {
  deleteSecret(name: $name)
}
    `) as unknown as TypedDocumentString<DeleteSecretMutation, DeleteSecretMutationVariables>;
export const PauseJobDocument = new TypedDocumentString(`
    mutation PauseJob($id: ID!, $reason: String!, $until: DateTime) {
  pauseJob(id: $id, reason: $reason, until: $until) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<PauseJobMutation, PauseJobMutationVariables>;
export const PauseJobsDocument = new TypedDocumentString(`
    mutation PauseJobs($labelSelector: String!, $reason: String!, $until: DateTime) {
  pauseJobs(labelSelector: $labelSelector, reason: $reason, until: $until)
}
    `) as unknown as TypedDocumentString<PauseJobsMutation, PauseJobsMutationVariables>;
export const ResumeJobDocument = new TypedDocumentString(`
    mutation ResumeJob($id: ID!) {
  resumeJob(id: $id) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<ResumeJobMutation, ResumeJobMutationVariables>;
export const ResumeJobsDocument = new TypedDocumentString(`
    mutation ResumeJobs($labelSelector: String!) {
  resumeJobs(labelSelector: $labelSelector)
}
    `) as unknown as TypedDocumentString<ResumeJobsMutation, ResumeJobsMutationVariables>;
export const RetireJobDocument = new TypedDocumentString(`
    mutation RetireJob($id: ID!) {
  retireJob(id: $id) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<RetireJobMutation, RetireJobMutationVariables>;
export const RevokeApiTokenDocument = new TypedDocumentString(`
    mutation RevokeApiToken($id: ID!) {
  revokeApiToken(id: $id) {
    createdAt
    expiresAt
    id
    labelSelector
    lastUsedAt
    name
    revokedAt
    role
  }
}
    `) as unknown as TypedDocumentString<RevokeApiTokenMutation, RevokeApiTokenMutationVariables>;
export const RunJobNowDocument = new TypedDocumentString(`
    mutation RunJobNow($id: ID!, $payload: JSON) {
  runJobNow(id: $id, payload: $payload) {
    attempt
    createdAt
    durationMs
    failureCode
    failureDetails
    failureMessage
    finishedAt
    heartbeatAt
    id
    job {
      id
      key
      version
    }
    jobKey
    jobVersion
    nextAttemptAt
    output
    payloadSnapshot
    progress
    progressMessage
    retryOf {
      id
      status
    }
    runnerInstanceId
    scheduledAt
    startedAt
    status
    target
    traceId
    triggeredBy
    triggerType
    updatedAt
    upstreamRuns {
      id
      status
    }
    waitingFor
  }
}
    `) as unknown as TypedDocumentString<RunJobNowMutation, RunJobNowMutationVariables>;
export const SetCalendarDocument = new TypedDocumentString(`
    mutation SetCalendar($input: CalendarInput!) {
  setCalendar(input: $input) {
    dailyWindows {
      end
      reason
      start
    }
    dates
    description
    lastDate
    name
    runsOutSoon
    timezone
    updatedAt
    updatedBy
    usedBy {
      id
      key
      version
    }
    windows {
      from
      reason
      to
    }
    yearly
  }
}
    `) as unknown as TypedDocumentString<SetCalendarMutation, SetCalendarMutationVariables>;
export const SetConcurrencyPoolDocument = new TypedDocumentString(`
    mutation SetConcurrencyPool($limit: Int!, $name: String!) {
  setConcurrencyPool(limit: $limit, name: $name) {
    jobs {
      id
      key
      version
    }
    limit
    name
    running
    waiting
  }
}
    `) as unknown as TypedDocumentString<SetConcurrencyPoolMutation, SetConcurrencyPoolMutationVariables>;
export const SetNotificationChannelDocument = new TypedDocumentString(`
    mutation SetNotificationChannel($input: NotificationChannelInput!) {
  setNotificationChannel(input: $input) {
    default
    events
    kind
    lastDeliveryAt
    lastError
    name
    urlHost
  }
}
    `) as unknown as TypedDocumentString<SetNotificationChannelMutation, SetNotificationChannelMutationVariables>;
export const SetSecretDocument = new TypedDocumentString(`
    mutation SetSecret($name: String!, $value: String!) {
  setSecret(name: $name, value: $value) {
    createdAt
    name
    updatedAt
    usedBy {
      id
      key
      version
    }
  }
}
    `) as unknown as TypedDocumentString<SetSecretMutation, SetSecretMutationVariables>;
export const SkipNextRunsDocument = new TypedDocumentString(`
    mutation SkipNextRuns($count: Int!, $id: ID!, $reason: String!) {
  skipNextRuns(count: $count, id: $id, reason: $reason) {
    after {
      on
      upstream {
        id
        key
        version
      }
    }
    afterMode
    afterWindowSeconds
    anchorAt
    armedOn
    calendars
    captureBytes
    catchUp
    catchUpLimit
    concurrencyPool
    consecutiveFailures
    createdAt
    createdBy
    cronExpression
    cronExpressions
    description
    endAt
    every
    expectSuccessWithinSeconds
    heartbeatTimeoutSeconds
    id
    jitterSeconds
    key
    labels
    lastFailureAt
    lastRun {
      id
      status
    }
    lastSuccessAt
    maxConcurrentRuns
    maxRuns
    misfireGraceSeconds
    nextRunAt
    notify
    overlap
    owner
    pauseAfterFailures
    pausedUntil
    pauseReason
    payload
    retry {
      backoff
      delaySeconds
      maxAttempts
      maxDelaySeconds
      retryOn
    }
    runAt
    scheduleDescription
    schedules
    scheduleType
    skipReason
    skipRemaining
    startAt
    status
    supersededBy {
      id
      key
      version
    }
    supersedes {
      id
      key
      version
    }
    target
    timeoutSeconds
    timezone
    updatedAt
    updatedBy
    version
  }
}
    `) as unknown as TypedDocumentString<SkipNextRunsMutation, SkipNextRunsMutationVariables>;
export const TestNotificationChannelDocument = new TypedDocumentString(`
    mutation TestNotificationChannel($name: String!) {
  testNotificationChannel(name: $name)
}
    `) as unknown as TypedDocumentString<TestNotificationChannelMutation, TestNotificationChannelMutationVariables>;
export const RunChangedDocument = new TypedDocumentString(`
    subscription RunChanged($filter: RunFilter) {
  runChanged(filter: $filter) {
    changedAt
    previousStatus
    run {
      attempt
      createdAt
      durationMs
      failureCode
      failureDetails
      failureMessage
      finishedAt
      heartbeatAt
      id
      job {
        id
        key
        version
      }
      jobKey
      jobVersion
      nextAttemptAt
      output
      payloadSnapshot
      progress
      progressMessage
      retryOf {
        id
        status
      }
      runnerInstanceId
      scheduledAt
      startedAt
      status
      target
      traceId
      triggeredBy
      triggerType
      updatedAt
      upstreamRuns {
        id
        status
      }
      waitingFor
    }
  }
}
    `) as unknown as TypedDocumentString<RunChangedSubscription, RunChangedSubscriptionVariables>;
export const RunLogsDocument = new TypedDocumentString(`
    subscription RunLogs($runId: ID!) {
  runLogs(runId: $runId) {
    at
    fields
    level
    message
    sequence
  }
}
    `) as unknown as TypedDocumentString<RunLogsSubscription, RunLogsSubscriptionVariables>;