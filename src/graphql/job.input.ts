import { Field, InputType, Int } from 'type-graphql';
import { BackoffKind, CatchUpPolicy, JobStatus, OverlapPolicy, ScheduleType } from './enums.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';
import { RETRY_DEFAULTS } from '../domain/job.js';

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

@InputType('RetryPolicyInput', { description: 'Retries with backoff; out-of-range values fail with INVALID_POLICY.' })
export class RetryPolicyInput {
  @Field(() => Int, { description: 'Attempts per slot or run-now, the first included (1–10).' })
  maxAttempts!: number;

  @Field(() => BackoffKind, { nullable: true, defaultValue: RETRY_DEFAULTS.backoff })
  backoff?: BackoffKind | null;

  @Field(() => Int, { nullable: true, defaultValue: RETRY_DEFAULTS.delaySeconds, description: 'The base delay d, in seconds (0–86400).' })
  delaySeconds?: number | null;

  @Field(() => Int, { nullable: true, description: 'The longest a retry waits (at least delaySeconds, at most 86400); null: no cap.' })
  maxDelaySeconds?: number | null;

  @Field(() => [String], { nullable: true, description: 'Only these failure codes are retried; null: every retryable code.' })
  retryOn?: string[] | null;
}

/**
 * The fields CreateJobInput and NewJobVersionInput share as they are — what the job does and how
 * (payload, timeout, missed slots, auto-pause, retries, overlap, jitter, capture) — written once.
 * Registered (type-graphql inherits fields only from an input type) but referenced by no field,
 * so the schema has no such type: the two inputs carry its fields.
 */
@InputType('JobSettingsInput')
abstract class JobSettingsInput {
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

  @Field(() => RetryPolicyInput, { nullable: true, description: 'Retries with backoff; null: none (the default).' })
  retry?: RetryPolicyInput | null;

  @Field(() => OverlapPolicy, { nullable: true, description: 'What a slot does while a run of the job is active. Default SKIP.' })
  overlap?: OverlapPolicy | null;

  @Field(() => Int, { nullable: true, description: 'ALLOW only: how many runs at once (1–100, default 1).' })
  maxConcurrentRuns?: number | null;

  @Field(() => Int, { nullable: true, description: 'Each slot starts after a stable offset in [0, jitterSeconds); at most the schedule’s shortest interval. Default 0.' })
  jitterSeconds?: number | null;

  @Field(() => Int, { nullable: true, description: 'http target: bytes of the response body kept in the output (0–1048576, default 4096).' })
  captureBytes?: number | null;
}

@InputType('CreateJobInput')
export class CreateJobInput extends JobSettingsInput {
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
}

/** Omitted fields are copied from the version being replaced. */
@InputType('NewJobVersionInput', { description: 'Omitted fields are copied from the version being replaced.' })
export class NewJobVersionInput extends JobSettingsInput {
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
}

