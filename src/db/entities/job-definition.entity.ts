import { ArrayType, Entity, Enum, Formula, Index, ManyToOne, PrimaryKey, Property, Unique, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { BackoffKind, CatchUpPolicy, JobStatus, OverlapPolicy, ScheduleType } from '../../domain/enums.js';
import { DEFAULT_CAPTURE_BYTES, retryPolicyOf, type RetryPolicy } from '../../domain/job.js';

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

  @Property({ type: 'json', columnType: 'jsonb', nullable: true })
  payload?: unknown;

  @Enum({ items: () => ScheduleType, type: 'text', fieldName: 'schedule_type' })
  scheduleType!: ScheduleType;

  @Property({ type: 'text', nullable: true })
  cronExpression?: string | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  runAt?: Date | null;

  /**
   * A RECURRING job's last slot ever, when its expression has a year field (null otherwise): the
   * run of that slot retires the job when it ends, as a one-time job's run does.
   */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finalSlotAt?: Date | null;

  @Property({ type: 'text', default: 'UTC' })
  timezone: string & Opt = 'UTC';

  @Property({ type: 'integer', nullable: true })
  timeoutSeconds?: number | null;

  /** What becomes of slots missed while no cronql could fire them (see docs/behaviour.md, the ledger). */
  @Enum({ items: () => CatchUpPolicy, type: 'text', default: CatchUpPolicy.NONE })
  catchUp: CatchUpPolicy & Opt = CatchUpPolicy.NONE;

  /** ALL: at most this many missed slots of one gap run (the rest are recorded MISSED). */
  @Property({ type: 'integer', nullable: true })
  catchUpLimit?: number | null;

  /** Retry policy (null max attempts: no retry). See `retry`. */
  @Property({ type: 'integer', nullable: true })
  retryMaxAttempts?: number | null;

  @Enum({ items: () => BackoffKind, type: 'text', nullable: true })
  retryBackoff?: BackoffKind | null;

  @Property({ type: 'integer', nullable: true })
  retryDelaySeconds?: number | null;

  @Property({ type: 'integer', nullable: true })
  retryMaxDelaySeconds?: number | null;

  @Property({ type: ArrayType, columnType: 'text[]', nullable: true })
  retryOn?: string[] | null;

  /** What a slot does while a run of the job is active (see docs/policies.md). */
  @Enum({ items: () => OverlapPolicy, type: 'text', default: OverlapPolicy.SKIP })
  overlap: OverlapPolicy & Opt = OverlapPolicy.SKIP;

  /** ALLOW: how many runs at once. */
  @Property({ type: 'integer', default: 1 })
  maxConcurrentRuns: number & Opt = 1;

  /** Slots start after a deterministic offset in [0, jitterSeconds). */
  @Property({ type: 'integer', default: 0 })
  jitterSeconds: number & Opt = 0;

  /** How much of an `http` response a run keeps in its output. */
  @Property({ type: 'integer', default: DEFAULT_CAPTURE_BYTES })
  captureBytes: number & Opt = DEFAULT_CAPTURE_BYTES;

  /** The retry policy as one value (null: a failed run is final). */
  get retry(): RetryPolicy | null {
    return retryPolicyOf({
      maxAttempts: this.retryMaxAttempts,
      backoff: this.retryBackoff,
      delaySeconds: this.retryDelaySeconds,
      maxDelaySeconds: this.retryMaxDelaySeconds,
      retryOn: this.retryOn,
    });
  }

  /** FAILED runs since the last SUCCEEDED one; kept by the statements that end runs. */
  @Property({ type: 'integer', default: 0 })
  consecutiveFailures: number & Opt = 0;

  /** When the newest SUCCEEDED run ended: read from the runs (a partial index), never written here. */
  @Formula(
    (alias) => `(SELECT max(r.finished_at) FROM cron_job_runs r WHERE r.job_definition_id = ${alias}.id AND r.status = 'SUCCEEDED')`,
    { type: 'datetime', nullable: true, lazy: false },
  )
  lastSuccessAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  lastFailureAt?: Date | null;

  /** cronql pauses the job once this many runs failed in a row (null: never). */
  @Property({ type: 'integer', nullable: true })
  pauseAfterFailures?: number | null;

  @Enum({ items: () => JobStatus, type: 'text' })
  status: JobStatus & Opt = JobStatus.ACTIVE;

  @Property({ type: 'text', nullable: true })
  pauseReason?: string | null;

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
