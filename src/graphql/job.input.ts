import { Field, InputType, Int } from 'type-graphql';
import { CatchUpPolicy, JobStatus, ScheduleType } from './enums.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';

@InputType('JobFilter')
export class JobFilterInput {
  @Field(() => [JobStatus], { nullable: true })
  status?: JobStatus[] | null;

  @Field(() => String, { nullable: true })
  target?: string | null;

  @Field(() => String, { nullable: true })
  key?: string | null;

  @Field(() => String, { nullable: true, description: 'Keys containing this text, ignoring case (a search; `key` is exact).' })
  keyContains?: string | null;

  @Field(() => ScheduleType, { nullable: true })
  scheduleType?: ScheduleType | null;
}

@InputType('CreateJobInput')
export class CreateJobInput {
  @Field(() => String)
  key!: string;

  @Field(() => String)
  target!: string;

  @Field(() => ScheduleType)
  scheduleType!: ScheduleType;

  @Field(() => String, { nullable: true, description: 'Required for RECURRING; 5 fields, or 6 with seconds first.' })
  cronExpression?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Required for ONE_TIME.' })
  runAt?: Date | null;

  @Field(() => String, { nullable: true, defaultValue: 'UTC', description: 'IANA name; stored in canonical form.' })
  timezone?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  payload?: unknown;

  @Field(() => Int, { nullable: true })
  timeoutSeconds?: number | null;

  @Field(() => CatchUpPolicy, { nullable: true, description: 'What becomes of missed slots. Default NONE.' })
  catchUp?: CatchUpPolicy | null;

  @Field(() => Int, { nullable: true, description: 'ALL only: at most this many missed slots of one gap run (1–1000, default 10).' })
  catchUpLimit?: number | null;

  @Field(() => Int, { nullable: true, description: 'cronql pauses the job after this many failed runs in a row (1–1000); null: never.' })
  pauseAfterFailures?: number | null;
}

/** Omitted fields are copied from the version being replaced. */
@InputType('NewJobVersionInput', { description: 'Omitted fields are copied from the version being replaced.' })
export class NewJobVersionInput {
  @Field(() => String, { nullable: true })
  target?: string | null;

  @Field(() => ScheduleType, { nullable: true })
  scheduleType?: ScheduleType | null;

  @Field(() => String, { nullable: true })
  cronExpression?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  runAt?: Date | null;

  @Field(() => String, { nullable: true })
  timezone?: string | null;

  @Field(() => JSONScalar, { nullable: true })
  payload?: unknown;

  @Field(() => Int, { nullable: true })
  timeoutSeconds?: number | null;

  @Field(() => CatchUpPolicy, { nullable: true, description: 'What becomes of missed slots. Default NONE.' })
  catchUp?: CatchUpPolicy | null;

  @Field(() => Int, { nullable: true, description: 'ALL only: at most this many missed slots of one gap run (1–1000, default 10).' })
  catchUpLimit?: number | null;

  @Field(() => Int, { nullable: true, description: 'cronql pauses the job after this many failed runs in a row (1–1000); null: never.' })
  pauseAfterFailures?: number | null;
}

