import { Field, ID, Int, ObjectType } from 'type-graphql';
import type { JobSettings } from '../domain/job-fields.js';
import { BackoffKind, DependencyOutcome, JobStatus, ScheduleType } from './enums.js';
import { DateTimeScalar } from './scalars.js';
import { settingFields } from './job-settings.js';

@ObjectType('RetryPolicy', { description: 'A FAILED attempt with a retryable code gets a next attempt (a new run of the same slot), up to maxAttempts.' })
export class RetryPolicy {
  @Field(() => Int, { description: 'Attempts per slot or run-now, the first included (1–10).' })
  maxAttempts!: number;

  @Field(() => BackoffKind)
  backoff!: BackoffKind;

  @Field(() => Int, { description: 'The base delay d of the backoff, in seconds.' })
  delaySeconds!: number;

  @Field(() => Int, { nullable: true, description: 'The longest a retry waits; null: no cap.' })
  maxDelaySeconds?: number | null;

  @Field(() => [String], { nullable: true, description: 'Only these failure codes are retried; null: every code but UNKNOWN_TARGET, HTTP_BLOCKED, UNKNOWN_SECRET and SHUTDOWN.' })
  retryOn?: string[] | null;
}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface Job extends JobSettings {}

/**
 * One version of a job definition. Resolvers return plain `JobRecord`s (domain/job.ts); this
 * class only describes their GraphQL shape (`key` reads the record's `jobKey`). Its settings are fields of
 * the settings table (domain/job-fields.ts), added below. Relations and computed fields
 * (`supersedes`, `supersededBy`, `nextRunAt`, `lastRun`, `runs`) live in job.resolver.ts.
 */
@ObjectType('Job', { description: 'One version of a job definition.' })
export class Job {
  @Field(() => ID)
  id!: string;

  @Field(() => String, { name: 'key', description: 'Stable name shared by all versions of the job.' })
  jobKey!: string;

  @Field(() => Int)
  version!: number;

  @Field(() => String)
  target!: string;

  @Field(() => ScheduleType)
  scheduleType!: ScheduleType;

  @Field(() => String, { nullable: true })
  cronExpression?: string | null;

  @Field(() => DateTimeScalar, { nullable: true })
  runAt?: Date | null;

  @Field(() => String, { description: 'IANA time zone, canonical spelling.' })
  timezone!: string;

  @Field(() => DateTimeScalar, { nullable: true, description: 'INTERVAL: the instant the slots count from: anchorAt + k·every (only those after creation are due).' })
  anchorAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'No slot before this instant.' })
  startAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'No slot after this instant: the job retires after its last slot.' })
  endAt?: Date | null;







  @Field(() => Int, { description: 'FAILED slots since the last SUCCEEDED one (a retried slot counts once, by its last attempt; canceled and skipped runs do not count); resume resets it.' })
  consecutiveFailures!: number;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When its latest SUCCEEDED run ended.' })
  lastSuccessAt?: Date | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'When its latest FAILED run ended.' })
  lastFailureAt?: Date | null;

  @Field(() => JobStatus)
  status!: JobStatus;

  @Field(() => String, { nullable: true })
  pauseReason?: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'A PAUSED job resumes by itself at this instant (pauseJob until); the slot at it runs.' })
  pausedUntil?: Date | null;

  @Field(() => Int, { description: 'Its next slots still to be recorded SKIPPED (code SKIPPED_BY_ADMIN) instead of run (skipNextRuns).' })
  skipRemaining!: number;

  @Field(() => String, { nullable: true, description: 'The reason given with skipNextRuns: the message of the slots it skips.' })
  skipReason?: string | null;

  @Field(() => String, { nullable: true, description: 'Role or token name of the caller that created it.' })
  createdBy?: string | null;

  @Field(() => String, { nullable: true, description: 'Role or token name of the caller that last changed it.' })
  updatedBy?: string | null;

  @Field(() => DateTimeScalar)
  createdAt!: Date;

  @Field(() => DateTimeScalar)
  updatedAt!: Date;
}

settingFields(Job.prototype, 'output', RetryPolicy);

@ObjectType('Dependency', { description: 'An upstream of an AFTER job: its current version (RETIRED when its key has no live version), and which end of its runs starts the job.' })
export class Dependency {
  @Field(() => Job)
  upstream!: Job;

  @Field(() => DependencyOutcome)
  on!: DependencyOutcome;
}
