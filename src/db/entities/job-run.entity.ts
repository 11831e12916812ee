import { Entity, Enum, ManyToOne, PrimaryKey, Property, type Opt } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { RunStatus, TriggerType } from '../../domain/enums.js';
import { JobDefinition } from './job-definition.entity.js';

/**
 * One execution attempt of a job, with snapshots of the job as it was when the run was created.
 * The database enforces: one first attempt of a SCHEDULED run per (job, slot), and at most one
 * PENDING/RUNNING run per (job, lane) — the overlap policy's places (partial unique indexes, see
 * the migrations; the lane is the store's business and not mapped here). The fire path writes this table with plain SQL
 * (db/run-store.ts); the entity serves reads and the admin services.
 */
@Entity({ tableName: 'cron_job_runs' })
export class JobRun {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @ManyToOne(() => JobDefinition, { fieldName: 'job_definition_id', ref: false })
  job!: JobDefinition;

  @Property({ type: 'text' })
  jobKey!: string;

  @Property({ type: 'integer' })
  jobVersion!: number;

  @Property({ type: 'text' })
  target!: string;

  @Property({ type: 'json', columnType: 'jsonb', nullable: true })
  payloadSnapshot?: unknown;

  @Enum({ items: () => TriggerType, type: 'text' })
  triggerType!: TriggerType;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  scheduledAt!: Date;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  startedAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  finishedAt?: Date | null;

  @Enum({ items: () => RunStatus, type: 'text' })
  status!: RunStatus;

  @Property({ type: 'text', nullable: true })
  failureCode?: string | null;

  @Property({ type: 'text', nullable: true })
  failureMessage?: string | null;

  @Property({ type: 'json', columnType: 'jsonb', nullable: true })
  failureDetails?: unknown;

  @Property({ type: 'json', columnType: 'jsonb', nullable: true })
  output?: unknown;

  @Property({ type: 'text', nullable: true })
  runnerInstanceId?: string | null;

  /** 1 for the first attempt of a slot or run-now; retries count on. */
  @Property({ type: 'integer', default: 1 })
  attempt: number & Opt = 1;

  /** The attempt this one retries (its row may have been pruned since). */
  @Property({ type: 'uuid', nullable: true })
  retryOf?: string | null;

  /** When the run was due to start if not at its slot: a retry's end of backoff, a jittered slot. */
  @Property({ type: 'datetime', columnType: 'timestamptz', nullable: true })
  dueAt?: Date | null;

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', columnType: 'timestamptz' })
  updatedAt: Date & Opt = new Date();
}
