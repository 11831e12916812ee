/**
 * The GraphQL operations the dashboard sends (all public API, docs/api.md) and the shapes it reads.
 * Rows are deliberately narrow: payloads, outputs and failure details are fetched only when a
 * detail is opened.
 */
export type JobStatus = 'ACTIVE' | 'PAUSED' | 'RETIRED';
export type RunStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'SKIPPED';
export type TriggerType = 'SCHEDULED' | 'MANUAL' | 'AD_HOC';
export type ScheduleType = 'RECURRING' | 'ONE_TIME';
export type CatchUpPolicy = 'NONE' | 'LATEST' | 'ALL';
export type OverlapPolicy = 'SKIP' | 'BUFFER_ONE' | 'CANCEL_PREVIOUS' | 'ALLOW';
export type BackoffKind = 'FIXED' | 'LINEAR' | 'EXPONENTIAL';

export interface RetryPolicy {
  maxAttempts: number;
  backoff: BackoffKind;
  delaySeconds: number;
  maxDelaySeconds: number | null;
  retryOn: string[] | null;
}

export const JOB_STATUSES: JobStatus[] = ['ACTIVE', 'PAUSED', 'RETIRED'];
export const RUN_STATUSES: RunStatus[] = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED'];
export const TRIGGER_TYPES: TriggerType[] = ['SCHEDULED', 'MANUAL', 'AD_HOC'];
export const ACTIVE_RUN: RunStatus[] = ['PENDING', 'RUNNING'];

export interface PageInfo {
  hasNextPage: boolean;
  endCursor: string | null;
}

export interface Connection<T> {
  totalCount: number;
  pageInfo: PageInfo;
  nodes: T[];
}

export interface RunRow {
  id: string;
  jobKey: string;
  jobVersion: number;
  target: string;
  triggerType: TriggerType;
  status: RunStatus;
  scheduledAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
  failureCode: string | null;
  failureMessage: string | null;
  attempt: number;
}

const RUN_ROW = `id jobKey jobVersion target triggerType status scheduledAt startedAt finishedAt durationMs failureCode failureMessage attempt`;

export interface RunDetail extends RunRow {
  payloadSnapshot: unknown;
  output: unknown;
  failureDetails: unknown;
  runnerInstanceId: string | null;
  retryOf: { id: string; attempt: number } | null;
  nextAttemptAt: string | null;
  createdAt: string;
  updatedAt: string;
  job: { id: string };
}

export interface JobRow {
  id: string;
  key: string;
  version: number;
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: string | null;
  timezone: string;
  status: JobStatus;
  pauseReason: string | null;
  nextRunAt: string | null;
  consecutiveFailures: number;
  lastRun: { id: string; status: RunStatus; scheduledAt: string; finishedAt: string | null } | null;
}

const JOB_ROW = `id key version target scheduleType cronExpression runAt timezone status pauseReason nextRunAt consecutiveFailures
  lastRun { id status scheduledAt finishedAt }`;

export interface JobDetail extends JobRow {
  payload: unknown;
  timeoutSeconds: number | null;
  catchUp: CatchUpPolicy;
  catchUpLimit: number | null;
  pauseAfterFailures: number | null;
  retry: RetryPolicy | null;
  overlap: OverlapPolicy;
  maxConcurrentRuns: number;
  jitterSeconds: number;
  captureBytes: number;
  scheduleDescription: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  supersedes: { id: string; version: number } | null;
  supersededBy: { id: string; version: number } | null;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: string;
  updatedAt: string;
}

const JOB_DETAIL = `${JOB_ROW} payload timeoutSeconds catchUp catchUpLimit pauseAfterFailures lastSuccessAt lastFailureAt
  retry { maxAttempts backoff delaySeconds maxDelaySeconds retryOn } overlap maxConcurrentRuns jitterSeconds captureBytes scheduleDescription
  supersedes { id version } supersededBy { id version } createdBy updatedBy createdAt updatedAt`;

export interface JobVersion {
  id: string;
  version: number;
  status: JobStatus;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: string | null;
  timezone: string;
  target: string;
  createdAt: string;
  createdBy: string | null;
  supersedes: { id: string; version: number } | null;
}

export interface InstanceRow {
  id: string;
  role: string;
  host: string | null;
  version: string | null;
  startedAt: string;
  heartbeatAt: string;
  activeRuns: number;
  ownedJobs: number;
}

export interface JobFilter {
  status?: JobStatus[];
  target?: string;
  keyContains?: string;
}

export interface RunFilter {
  jobKey?: string;
  status?: RunStatus[];
  target?: string;
  triggerType?: TriggerType[];
  scheduledAfter?: string;
  scheduledBefore?: string;
}

export const Q = {
  /** ADMIN-only by the contract (docs/api.md): whether it answers tells the dashboard which actions to offer. */
  role: `query DashboardRole { instances { id } }`,
  targets: `query DashboardTargets { targets { name description } }`,
  instances: `query DashboardInstances { instances { id role host version startedAt heartbeatAt activeRuns ownedJobs } }`,
  jobs: `query DashboardJobs($filter: JobFilter, $first: Int, $after: String) {
    jobs(filter: $filter, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ${JOB_ROW} } }
  }`,
  job: `query DashboardJob($id: ID!) { job(id: $id) { ${JOB_DETAIL} } }`,
  versions: `query DashboardJobVersions($key: String!) {
    jobs(filter: { key: $key, status: [ACTIVE, PAUSED, RETIRED] }, first: 100) {
      nodes { id version status scheduleType cronExpression runAt timezone target createdAt createdBy supersedes { id version } }
    }
  }`,
  parseSchedule: `query DashboardParse($text: String!, $timezone: String) {
    parseSchedule(text: $text, timezone: $timezone) { cronExpression timezone description }
  }`,
  preview: `query DashboardPreview($cronExpression: String!, $timezone: String, $count: Int, $from: DateTime) {
    previewSchedule(cronExpression: $cronExpression, timezone: $timezone, count: $count, from: $from)
  }`,
  runs: `query DashboardRuns($filter: RunFilter, $first: Int, $after: String) {
    runs(filter: $filter, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { ${RUN_ROW} } }
  }`,
  run: `query DashboardRun($id: ID!) {
    run(id: $id) { ${RUN_ROW} payloadSnapshot output failureDetails runnerInstanceId retryOf { id attempt } nextAttemptAt createdAt updatedAt job { id } }
  }`,
  /** The live feed: narrow rows, so 100 runs/s stay cheap for the server and the page. */
  runChanged: `subscription DashboardRunChanged { runChanged { previousStatus changedAt run { ${RUN_ROW} } } }`,

  createJob: `mutation DashboardCreateJob($input: CreateJobInput!) { createJob(input: $input) { id } }`,
  createJobVersion: `mutation DashboardNewVersion($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { id } }`,
  pauseJob: `mutation DashboardPause($id: ID!, $reason: String!) { pauseJob(id: $id, reason: $reason) { id status pauseReason } }`,
  resumeJob: `mutation DashboardResume($id: ID!) { resumeJob(id: $id) { id status } }`,
  retireJob: `mutation DashboardRetire($id: ID!) { retireJob(id: $id) { id status } }`,
  runJobNow: `mutation DashboardRunNow($id: ID!, $payload: JSON) { runJobNow(id: $id, payload: $payload) { ${RUN_ROW} } }`,
  cancelRun: `mutation DashboardCancel($id: ID!) { cancelRun(id: $id) { ${RUN_ROW} } }`,
} as const;
