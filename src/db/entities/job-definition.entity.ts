import { ArrayType, Entity, Enum, Formula, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { BackoffKind, JobStatus, ScheduleType } from '../../domain/enums.js';
import { entityReader, RETRY_PARTS, retryOf, type RetryPolicy } from '../../domain/job.js';
import { settingEntries, type JobSettings } from '../../domain/job-fields.js';
import { S } from '../runs/vocabulary.js';

/** The settings' properties (domain/job-fields.ts), mapped below: the retry policy is its five columns. */
type Settings = Omit<JobSettings, 'retry'>;
type NullableSetting = { [K in keyof Settings]: null extends Settings[K] ? K : never }[keyof Settings];
type SettingColumns = { [K in NullableSetting]?: Settings[K] } & { [K in Exclude<keyof Settings, NullableSetting>]: Settings[K] & Opt } & {
  retryMaxAttempts?: number | null;
  retryBackoff?: BackoffKind | null;
  retryDelaySeconds?: number | null;
  retryMaxDelaySeconds?: number | null;
  retryOn?: string[] | null;
};

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface JobDefinition extends SettingColumns {}

/**
 * A versioned job definition. `(jobKey, version)` is unique; at most one version per key is not
 * RETIRED (partial unique index, see the migration), so two instances cannot both activate one.
 */
@Entity({ tableName: 'cron_job_definitions' })
@Unique({ properties: ['jobKey', 'version'] })
export class JobDefinition {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'text', fieldName: 'job_key' })
  jobKey!: string;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'text' })
  @Index()
  target!: string;

  @Enum({ items: () => ScheduleType, type: 'text', fieldName: 'schedule_type' })
  scheduleType!: ScheduleType;

  @Property({ type: 'text', nullable: true })
  cronExpression?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  runAt?: Date | null;

  /**
   * A RECURRING or INTERVAL job's last slot ever — its expressions all name their years, or it has
   * an `endAt` — (null otherwise): the run of that slot retires the job when it ends, as a one-time
   * job's run does.
   */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finalSlotAt?: Date | null;

  @Property({ type: 'text', default: 'UTC' })
  timezone: string & Opt = 'UTC';

  /** A RECURRING job's expressions when it has several (the first is `cronExpression`); null: one. */
  @Property({ type: ArrayType, columnType: 'text[]', nullable: true })
  cronExpressions?: string[] | null;

  /** An INTERVAL job's spacing in milliseconds (whole seconds); see the migration for why not `interval`. */
  @Property({ type: 'bigint', columnType: 'bigint', nullable: true, fieldName: 'every_ms' })
  everyMs?: number | null;

  /** An INTERVAL job's first slot: the others are anchorAt + k·every. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  anchorAt?: Date | null;

  /** No slot before this instant. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startAt?: Date | null;

  /** No slot after this instant: the run of the last slot before it retires the job. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  endAt?: Date | null;

  /** The retry policy as one value (null: a failed run is final). */
  get retry(): RetryPolicy | null {
    return retryOf(entityReader(this));
  }

  /** FAILED runs since the last SUCCEEDED one; kept by the statements that end runs. */
  @Property({ type: 'integer', default: 0 })
  consecutiveFailures: number & Opt = 0;

  /** When the newest SUCCEEDED run ended: read from the runs (a partial index), never written here. */
  @Formula(
    (alias) => `(SELECT max(r.finished_at) FROM cron_job_runs r WHERE r.job_definition_id = ${alias}.id AND r.status = ${S.SUCCEEDED})`,
    { type: 'datetime', nullable: true, lazy: false },
  )
  lastSuccessAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastFailureAt?: Date | null;

  @Enum({ items: () => JobStatus, type: 'text' })
  status: JobStatus & Opt = JobStatus.ACTIVE;

  @Property({ type: 'text', nullable: true })
  pauseReason?: string | null;

  /** A PAUSED job with this set resumes by itself at this instant (pauseJob's `until`). */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  pausedUntil?: Date | null;

  /** The job's next slots still to record SKIPPED (skipNextRuns); the fire path counts it down. */
  @Property({ type: 'integer', default: 0 })
  skipRemaining: number & Opt = 0;

  /** The reason given with skipNextRuns: the message of the slots it skips. */
  @Property({ type: 'text', nullable: true })
  skipReason?: string | null;

  @ManyToOne(() => JobDefinition, { fieldName: 'supersedes_job_id', nullable: true, ref: false })
  supersedes?: JobDefinition | null;

  @Property({ type: 'text', nullable: true })
  createdBy?: string | null;

  @Property({ type: 'text', nullable: true })
  updatedBy?: string | null;

  /** Bumped by the database on every change (trigger); orders snapshots across instances. */
  @Property({ type: 'integer', default: 1 })
  revision: number & Opt = 1;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date & Opt = new Date();
}

/**
 * The settings' columns, from the settings table: a nullable setting is a nullable column, one
 * with a default has it as the column's default (the migrations create the same).
 */
for (const [name, spec] of settingEntries()) {
  const target = JobDefinition.prototype;
  if (spec.kind === 'retry') {
    const [maxAttempts, backoff, delay, maxDelay, retryOn] = Object.values(RETRY_PARTS).map(([property]) => property);
    for (const property of [maxAttempts, delay, maxDelay]) Property({ type: 'integer', nullable: true })(target, property);
    Enum({ items: () => BackoffKind, type: 'text', nullable: true })(target, backoff);
    Property({ type: ArrayType, columnType: 'text[]', nullable: true })(target, retryOn);
  } else if (spec.kind === 'json') {
    Property({ type: 'json', columnType: 'jsonb', nullable: true, fieldName: spec.column })(target, name);
  } else if (spec.kind === 'dependencies') {
    Property({ type: 'json', columnType: 'jsonb', fieldName: spec.column, default: '[]' })(target, name);
  } else if (spec.kind === 'labels') {
    Property({ type: 'json', columnType: 'jsonb', fieldName: spec.column, default: "'{}'" })(target, name);
  } else if (spec.kind === 'text') {
    Property({ type: 'text', nullable: true, fieldName: spec.column })(target, name);
  } else if (spec.kind === 'names') {
    Property({ type: ArrayType, columnType: 'text[]', fieldName: spec.column, default: '{}' })(target, name);
  } else if (spec.kind === 'name') {
    Property({ type: 'text', nullable: true, fieldName: spec.column })(target, name);
  } else if (spec.kind === 'enum') {
    Enum({ items: () => spec.values, type: 'text', default: spec.default, fieldName: spec.column })(target, name);
  } else {
    Property({ type: 'integer', fieldName: spec.column, ...(spec.nullable ? { nullable: true } : { default: spec.default! }) })(target, name);
  }
}
