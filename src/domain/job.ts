import { BackoffKind, JobStatus, ScheduleType } from './enums.js';

import { JOB_SETTINGS, SETTING_NAMES, type JobSettings } from './job-fields.js';

/** How much of an `http` response a run keeps, unless the job says otherwise; and the most it may say. */
export { DEFAULT_CAPTURE_BYTES, MAX_CAPTURE_BYTES } from './job-fields.js';

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

/**
 * A job's schedule beyond its type, its one expression and its runAt (see domain/job-schedule.ts,
 * which turns them into the slot math's `JobSchedule` and `ScheduleBounds`).
 */
export interface ScheduleExtras {
  /** RECURRING: every expression, the first being `cronExpression`; empty for the other types. */
  cronExpressions: string[];
  /** INTERVAL: the length between slots, in milliseconds (whole seconds, at least 1 s); else null. */
  everyMs: number | null;
  /** INTERVAL: the first slot; the others are anchorAt + k·every. Null for the other types. */
  anchorAt: Date | null;
  /** No slot before this instant (RECURRING, INTERVAL); null: none. */
  startAt: Date | null;
  /** No slot after this instant (RECURRING, INTERVAL); null: none. */
  endAt: Date | null;
}

/** The extras of a job with one expression, or none (ONE_TIME). */
export const NO_SCHEDULE_EXTRAS: Readonly<ScheduleExtras> = Object.freeze({ cronExpressions: [], everyMs: null, anchorAt: null, startAt: null, endAt: null });

/** What the runtime needs of a job definition: a plain snapshot, detached from any ORM session. */
export interface JobSnapshot extends JobSettings, ScheduleExtras {
  id: string;
  jobKey: string;
  version: number;
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: Date | null;
  timezone: string;
  status: JobStatus;
  /** A PAUSED job with this set resumes by itself at this instant. */
  pausedUntil: Date | null;
  /** Bumped by the database on every change: snapshots apply in revision order. */
  revision: number;
  updatedAt: Date;
}

/** What an admin defines of a job version: its target, schedule and settings. */
export interface JobDefinitionFields extends JobSettings, ScheduleExtras {
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: Date | null;
  timezone: string;
}

/** The five columns of the retry policy, as entity properties and as columns. */
export const RETRY_PARTS = {
  maxAttempts: ['retryMaxAttempts', 'retry_max_attempts'],
  backoff: ['retryBackoff', 'retry_backoff'],
  delaySeconds: ['retryDelaySeconds', 'retry_delay_seconds'],
  maxDelaySeconds: ['retryMaxDelaySeconds', 'retry_max_delay_seconds'],
  retryOn: ['retryOn', 'retry_on'],
} as const;

/** The columns a snapshot is read from (the settings' from the settings table). */
export const JOB_COLUMNS = [
  'id', 'job_key', 'version', 'target', 'schedule_type', 'cron_expression', 'run_at', 'timezone', 'status', 'paused_until',
  'cron_expressions', 'every_ms', 'anchor_at', 'start_at', 'end_at',
  ...SETTING_NAMES.flatMap((name) => (JOB_SETTINGS[name].kind === 'retry' ? Object.values(RETRY_PARTS).map(([, column]) => column) : [JOB_SETTINGS[name].column])),
  'revision', 'updated_at',
].join(', ');

/**
 * A value of a job, by its entity property and its column: an entity answers by property, a raw
 * row (`JOB_COLUMNS`) by column. The one mapper below reads both.
 */
export type JobReader = (property: string, column: string) => unknown;

export const entityReader = (entity: object): JobReader => (property) => (entity as Record<string, unknown>)[property];
export const rowReader = (row: Record<string, unknown>): JobReader => (_, column) => row[column];

/** The retry policy of a job's five `retry_*` columns. */
export function retryOf(read: JobReader): RetryPolicy | null {
  const part = (p: keyof typeof RETRY_PARTS) => read(RETRY_PARTS[p][0], RETRY_PARTS[p][1]) as never;
  return retryPolicyOf({
    maxAttempts: part('maxAttempts'),
    backoff: part('backoff'),
    delaySeconds: part('delaySeconds'),
    maxDelaySeconds: part('maxDelaySeconds'),
    retryOn: part('retryOn'),
  });
}

/** A job's settings, from its entity or its row; missing values read as their defaults. */
export function settingsOf(read: JobReader): JobSettings {
  return readSettings(read, {}) as JobSettings;
}

/** Sets each setting on `into`, in the table's order. */
function readSettings(read: JobReader, into: Record<string, unknown>): Record<string, unknown> {
  for (const name of SETTING_NAMES) {
    const spec = JOB_SETTINGS[name];
    if (spec.kind === 'retry') {
      into[name] = retryOf(read);
      continue;
    }
    const value = read(name, spec.column);
    if (spec.kind === 'names') into[name] = value == null ? [] : [...(value as string[])];
    else if (spec.kind === 'dependencies') into[name] = value == null ? [] : (typeof value === 'string' ? JSON.parse(value) : value).map((d: object) => ({ ...d }));
    else if (spec.kind === 'labels') into[name] = value == null ? {} : { ...(value as Record<string, string>) };
    else into[name] = value == null ? spec.default : spec.kind === 'int' ? Number(value) : value;
  }
  return into;
}

/** Sets every field of a job's snapshot on `into`, always in the same order. */
function readSnapshot(read: JobReader, into: Record<string, unknown>): JobSnapshot {
  const at = (property: string, column: string) => {
    const v = read(property, column);
    return v == null ? null : new Date(v as string | Date);
  };
  // `cron_expressions` holds the whole list only when there are several (one expression is
  // `cron_expression` alone, as every job before them); `every_ms` is a bigint.
  const list = read('cronExpressions', 'cron_expressions') as string[] | null | undefined;
  const one = (read('cronExpression', 'cron_expression') as string | null | undefined) ?? null;
  const every = read('everyMs', 'every_ms');
  into.id = read('id', 'id') as string;
  into.jobKey = read('jobKey', 'job_key') as string;
  into.version = Number(read('version', 'version'));
  into.target = read('target', 'target') as string;
  into.scheduleType = read('scheduleType', 'schedule_type') as ScheduleType;
  into.cronExpression = one;
  into.runAt = at('runAt', 'run_at');
  into.timezone = read('timezone', 'timezone') as string;
  into.cronExpressions = list && list.length > 0 ? [...list] : one ? [one] : [];
  into.everyMs = every == null ? null : Number(every);
  into.anchorAt = at('anchorAt', 'anchor_at');
  into.startAt = at('startAt', 'start_at');
  into.endAt = at('endAt', 'end_at');
  into.status = read('status', 'status') as JobStatus;
  into.pausedUntil = at('pausedUntil', 'paused_until');
  readSettings(read, into);
  into.revision = Number(read('revision', 'revision'));
  into.updatedAt = at('updatedAt', 'updated_at')!;
  return into as unknown as JobSnapshot;
}

/**
 * Every snapshot starts as a copy of this one, its values then overwritten: a start reads every
 * ACTIVE job (100,000 at a time), and adding the ~45 properties one by one by name to a new object
 * cost V8 three times as much (measured: 1.1 s against 0.42 s of CPU for 100,000 rows). Built
 * by JSON.parse, whose objects have the layout V8 copies fastest.
 */
const SNAPSHOT_SHAPE: object = JSON.parse(JSON.stringify(readSnapshot(() => null, {})));

/** The snapshot of a job, from its entity (`entityReader`) or its row (`rowReader`). */
export function jobSnapshot(read: JobReader): JobSnapshot {
  return readSnapshot(read, { ...SNAPSHOT_SHAPE });
}

export const rowToJobSnapshot = (row: Record<string, unknown>): JobSnapshot => jobSnapshot(rowReader(row));

/** Every setting at its default (what a job that says nothing has). */
export const DEFAULT_SETTINGS: Readonly<JobSettings> = Object.freeze(settingsOf(() => undefined));

/**
 * A job version as the services, the API and the library hand it out: a plain record (a row of
 * `cron_job_definitions`), whatever reads it — never an ORM entity.
 */
export interface JobRecord extends JobSnapshot {
  /** A recurring job whose expression names its years: its last slot (the job retires after it); else null. */
  finalSlotAt: Date | null;
  /** FAILED runs since the last SUCCEEDED one. */
  consecutiveFailures: number;
  /** When the newest SUCCEEDED run ended (read from the runs). */
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  pauseReason: string | null;
  /** The job's next slots still to be recorded SKIPPED (SKIPPED_BY_ADMIN), and why. */
  skipRemaining: number;
  skipReason: string | null;
  /** The version this one replaced. */
  supersedesId: string | null;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
}
