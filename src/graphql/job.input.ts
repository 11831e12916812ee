import { Field, ID, InputType, Int } from 'type-graphql';
import { BackoffKind, DependencyOutcome, JobStatus, ScheduleType } from './enums.js';
import { DateTimeScalar } from './scalars.js';
import { RETRY_DEFAULTS } from '../domain/job.js';
import type { SettingsInput } from '../services/job-rules.js';
import { settingFields } from './job-settings.js';

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

  @Field(() => String, { nullable: true, description: 'Jobs whose labels match this label selector ("team=billing,env!=dev,tier in (a,b),!legacy"; empty: every job; INVALID_SELECTOR).' })
  labelSelector?: string | null;
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

@InputType('DependencyInput', { description: 'An upstream of an AFTER job: its key, and which end of its runs starts this job.' })
export class DependencyInput {
  @Field(() => String)
  jobKey!: string;

  @Field(() => DependencyOutcome, { nullable: true, defaultValue: DependencyOutcome.SUCCEEDED })
  on?: DependencyOutcome | null;
}

/**
 * The settings CreateJobInput and NewJobVersionInput share as they are (what the job does and
 * how), from the settings table (domain/job-fields.ts). Registered (type-graphql inherits fields
 * only from an input type) but referenced by no field, so the schema has no such type: the two
 * inputs carry its fields.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
interface JobSettingsInput extends SettingsInput {}
@InputType('JobSettingsInput')
abstract class JobSettingsInput {}
settingFields(JobSettingsInput.prototype, 'input', RetryPolicyInput, DependencyInput);

@InputType('CreateJobInput')
export class CreateJobInput extends JobSettingsInput {
  @Field(() => String)
  key!: string;

  @Field(() => String)
  target!: string;

  @Field(() => ScheduleType)
  scheduleType!: ScheduleType;

  @Field(() => String, { nullable: true, description: 'Required for RECURRING; 5 fields, 6 with seconds first, or 7 with seconds first and the year last.' })
  cronExpression?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Required for ONE_TIME.' })
  runAt?: Date | null;

  @Field(() => String, { nullable: true, defaultValue: 'UTC', description: 'IANA name; stored in canonical form.' })
  timezone?: string | null;

  @Field(() => [String], { nullable: true, description: 'RECURRING: the whole list of expressions (1–20; the first is cronExpression): a slot of any is a slot, each instant once. Give this or cronExpression.' })
  cronExpressions?: string[] | null;

  @Field(() => String, { nullable: true, description: 'Required for INTERVAL: "45m", "1h30m", "90s", "2d" or ISO 8601 "PT45M" (whole seconds, 1 s to 366 days).' })
  every?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'INTERVAL: the instant the slots count from (a whole second): anchorAt + k·every, in absolute time; only slots after creation are due, so a future anchorAt is the first run. Default: the creation instant (first run one every later).' })
  anchorAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'RECURRING, INTERVAL: no slot before this instant.' })
  startAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'RECURRING, INTERVAL: no slot after this instant; the job retires after its last slot.' })
  endAt?: Date | null;
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

  @Field(() => [String], { nullable: true, description: 'The whole list (its first is cronExpression); a cronExpression given alone replaces the list.' })
  cronExpressions?: string[] | null;

  @Field(() => String, { nullable: true })
  every?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  anchorAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Null clears it.' })
  startAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'Null clears it.' })
  endAt?: Date | null;
}

/** One job of createJobVersions: what createJobVersion takes. */
@InputType('CreateJobVersionInput', { description: 'One job of createJobVersions: the arguments of createJobVersion.' })
export class CreateJobVersionInput {
  @Field(() => ID, { description: 'The live version to replace.' })
  id!: string;

  @Field(() => NewJobVersionInput)
  input!: NewJobVersionInput;
}

