import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { RunStatus, TriggerType } from './enums.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';

/**
 * One execution attempt of a job. Resolvers return `RunRecord` objects; `job` and `durationMs`
 * are resolved in run.resolver.ts.
 */
@ObjectType('Run', { description: 'One execution attempt of a job, with snapshots of the job as it was.' })
export class Run {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  jobKey!: string;

  @Field(() => Int)
  jobVersion!: number;

  @Field(() => String)
  target!: string;

  @Field(() => JSONScalar, { nullable: true })
  payloadSnapshot?: unknown;

  @Field(() => TriggerType)
  triggerType!: TriggerType;

  @Field(() => DateTimeScalar, { description: 'The slot (SCHEDULED) or the request time (MANUAL, AD_HOC).' })
  scheduledAt!: Date;

  @Field(() => DateTimeScalar, { nullable: true })
  startedAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true })
  finishedAt?: Date | null;

  @Field(() => RunStatus)
  status!: RunStatus;

  @Field(() => String, { nullable: true, description: 'Why it failed, or the reason of a SKIPPED run (e.g. OVERLAP).' })
  failureCode?: string | null;

  @Field(() => String, { nullable: true })
  failureMessage?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  failureDetails?: unknown;

  @Field(() => JSONScalar, { nullable: true, description: 'What a succeeded handler returned (may be null).' })
  output?: unknown;

  @Field(() => String, { nullable: true })
  runnerInstanceId?: string | null;

  @Field(() => Int, { description: '1 for the first attempt of a slot or run-now; a retry is attempt n + 1 of the same slot.' })
  attempt!: number;

  @Field(() => Float, { nullable: true, description: 'The last progress its handler reported (0–100, ctx.progress); null if it reported none.' })
  progress?: number | null;

  @Field(() => String, { nullable: true, description: 'The message of its handler’s last progress report, if it gave one.' })
  progressMessage?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When its handler last beat (ctx.heartbeat, ctx.progress; written at most once a second); null if it never did.' })
  heartbeatAt?: Date | null;

  @Field(() => String, { nullable: true, description: 'Who asked for it: the token\'s name for MANUAL, AD_HOC and BACKFILL runs (their retries keep it); null otherwise.' })
  triggeredBy?: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar)
  updatedAt!: Date;
}

/** One state change of a run, as streamed by `runChanged` (RUNNING → RUNNING: a progress report). */
@ObjectType('RunChange')
export class RunChange {
  @Field(() => Run)
  run!: Run;

  @Field(() => RunStatus, { nullable: true, description: 'Null when the change is the creation of the run; RUNNING for a RUNNING run’s progress report.' })
  previousStatus?: RunStatus | null;

  @Field(() => DateTimeScalar)
  changedAt!: Date;
}
