import {
  DashboardPoolsDocument,
  DashboardSetPoolDocument,
  DashboardDeletePoolDocument,
  type DashboardPoolFragment,
  DashboardCalendarsDocument,
  DashboardDeleteCalendarDocument,
  DashboardDependentsDocument,
  DashboardSetCalendarDocument,
  DashboardAuditDocument,
  DashboardApiTokensDocument,
  DashboardCreateApiTokenDocument,
  DashboardRevokeApiTokenDocument,
  type ApiTokenFieldsFragment,
  type DashboardAuditEntryFragment,
  DashboardBackfillJobDocument,
  DashboardBackfillStateDocument,
  DashboardCancelBackfillDocument,
  DashboardCancelDocument,
  DashboardCreateJobDocument,
  DashboardInstancesDocument,
  DashboardJobDocument,
  DashboardJobsDocument,
  DashboardJobVersionsDocument,
  DashboardNewVersionDocument,
  DashboardParseDocument,
  DashboardPauseDocument,
  DashboardPreviewDocument,
  DashboardResumeDocument,
  DashboardPauseJobsDocument,
  DashboardResumeJobsDocument,
  DashboardJobCountDocument,
  DashboardRetireDocument,
  DashboardRoleDocument,
  DashboardRunChangedDocument,
  DashboardRunDocument,
  DashboardRunLogsDocument,
  DashboardRunLogsLiveDocument,
  DashboardRunNowDocument,
  DashboardRunsDocument,
  DashboardSkipNextDocument,
  DashboardTargetsDocument,
  type DashboardCalendarFragment,
  DashboardUpcomingDocument,
  type DashboardBackfillFragment,
  type DashboardInstancesQuery,
  type DashboardDependentsQuery,
  type DashboardJobDetailFragment,
  type DashboardJobRowFragment,
  type DashboardJobVersionsQuery,
  type DashboardLogLineFragment,
  type DashboardRunLogsQuery,
  type DashboardPreviewQuery,
  type DashboardRunQuery,
  type DashboardRunRowFragment,
  type JobStatus,
  type RunStatus,
  type TriggerType,
} from './generated/graphql.js';

/**
 * The GraphQL operations the dashboard sends and the shapes it reads: written in
 * operations.graphql and typed by codegen (src/dashboard/app/generated, `npm run codegen`), named
 * here for the views.
 */
export type {
  BackfillScope,
  BackoffKind,
  CalendarInput,
  CatchUpPolicy,
  CreateJobInput,
  JobStatus,
  NewJobVersionInput,
  OverlapPolicy,
  RunStatus,
  ScheduleType,
  TriggerType,
} from './generated/graphql.js';
export type { TypedDocumentString } from './generated/graphql.js';

export const JOB_STATUSES: JobStatus[] = ['ACTIVE', 'PAUSED', 'RETIRED'];
export const RUN_STATUSES: RunStatus[] = ['PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED'];
export const TRIGGER_TYPES: TriggerType[] = ['SCHEDULED', 'MANUAL', 'AD_HOC', 'BACKFILL', 'DEPENDENCY'];
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

export type RunRow = DashboardRunRowFragment;
export type RunDetail = NonNullable<DashboardRunQuery['run']>;
export type JobRow = DashboardJobRowFragment;
export type JobDetail = DashboardJobDetailFragment;
export type JobVersion = DashboardJobVersionsQuery['jobs']['nodes'][number];
export type InstanceRow = DashboardInstancesQuery['instances'][number];
export type CalendarRow = DashboardCalendarFragment;
export type DependentJob = DashboardDependentsQuery['jobs']['nodes'][number];
export type AuditRow = DashboardAuditEntryFragment;
export type LogLine = DashboardLogLineFragment;
export type RunLogsAnswer = DashboardRunLogsQuery;
export type PreviewedSlot = DashboardPreviewQuery['previewScheduleSlots'][number];

/** What the jobs view filters by. */
export interface JobFilter {
  status?: JobStatus[];
  target?: string;
  keyContains?: string;
  labelSelector?: string;
}

/** What the runs views filter by (the live feed applies the same filter: run-filter.ts). */
export interface RunFilter {
  jobKey?: string;
  status?: RunStatus[];
  target?: string;
  triggerType?: TriggerType[];
  scheduledAfter?: string;
  scheduledBefore?: string;
}

export const Q = {
  /** ADMIN-only by the contract: whether it answers tells the dashboard which actions to offer. */
  role: DashboardRoleDocument,
  targets: DashboardTargetsDocument,
  instances: DashboardInstancesDocument,
  jobs: DashboardJobsDocument,
  job: DashboardJobDocument,
  /** The live AFTER jobs: a job's dependents are those naming its key. */
  dependents: DashboardDependentsDocument,
  versions: DashboardJobVersionsDocument,
  parseSchedule: DashboardParseDocument,
  preview: DashboardPreviewDocument,
  runs: DashboardRunsDocument,
  run: DashboardRunDocument,
  /** A run's log, 500 lines a page (a run keeps at most 1,001). */
  runLogs: DashboardRunLogsDocument,
  /** A run's lines as they are written; completes when the run ends. */
  runLogsLive: DashboardRunLogsLiveDocument,
  /** The live feed: narrow rows, so 100 runs/s stay cheap for the server and the page. */
  runChanged: DashboardRunChangedDocument,
  createJob: DashboardCreateJobDocument,
  createJobVersion: DashboardNewVersionDocument,
  pauseJob: DashboardPauseDocument,
  skipNextRuns: DashboardSkipNextDocument,
  upcoming: DashboardUpcomingDocument,
  resumeJob: DashboardResumeDocument,
  pauseJobs: DashboardPauseJobsDocument,
  resumeJobs: DashboardResumeJobsDocument,
  jobCount: DashboardJobCountDocument,
  retireJob: DashboardRetireDocument,
  runJobNow: DashboardRunNowDocument,
  cancelRun: DashboardCancelDocument,
  calendars: DashboardCalendarsDocument,
  setCalendar: DashboardSetCalendarDocument,
  deleteCalendar: DashboardDeleteCalendarDocument,
  /** Concurrency pools: each with its running and waiting runs. */
  pools: DashboardPoolsDocument,
  setPool: DashboardSetPoolDocument,
  deletePool: DashboardDeletePoolDocument,
  backfillJob: DashboardBackfillJobDocument,
  cancelBackfill: DashboardCancelBackfillDocument,
  backfill: DashboardBackfillStateDocument,
  /** The audit log (ADMIN): a job's history, the Audit page. */
  audit: DashboardAuditDocument,
  /** Named API tokens (ADMIN): the Tokens page. */
  apiTokens: DashboardApiTokensDocument,
  /** Its answer holds the new token's secret, the only time it is ever shown. */
  createApiToken: DashboardCreateApiTokenDocument,
  revokeApiToken: DashboardRevokeApiTokenDocument,
} as const;

/** A named API token as the Tokens page shows it (never a secret). */
export type ApiTokenRow = ApiTokenFieldsFragment;

/** A concurrency pool as the dashboard shows it. */
export type PoolRow = DashboardPoolFragment;

/** A backfill as the dashboard shows it (its plan, its progress). */
export type BackfillRow = DashboardBackfillFragment;
