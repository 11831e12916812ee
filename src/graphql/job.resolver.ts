import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { NewJobVersionInput as ServiceNewJobVersionInput } from '../services/job.service.js';
import { toConnection, JobConnection, RunConnection, type Connection } from './connection.type.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { JobStatus, RunStatus, ScheduleType } from './enums.js';
import { ownersOf, partitionOfKey } from '../domain/partitions.js';
import { describeJobSchedules } from '../services/schedule-words.js';
import { formatEvery } from '../schedule/interval.js';
import { CreateJobInput, CreateJobVersionInput, JobFilterInput, NewJobVersionInput } from './job.input.js';
import { Dependency, Job } from './job.type.js';
import type { DependencyOutcome } from '../domain/enums.js';
import { Run } from './run.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';
import { forRole } from './redact.js';
import { scopeOf } from '../domain/scope.js';

/**
 * Only the fields the client sent: the service copies omitted ones from the replaced version.
 * An explicit null clears a field (e.g. `timeoutSeconds`) or, for fields the service requires,
 * also means "keep the old value".
 */
function sentFields(input: NewJobVersionInput): ServiceNewJobVersionInput {
  return Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as ServiceNewJobVersionInput;
}

@Resolver(() => Job)
export class JobResolver {
  @Authorized(...rolesFor('Query.jobs'))
  @Query(() => JobConnection, { description: 'Newest first.' })
  async jobs(
    @Arg('filter', () => JobFilterInput, { nullable: true }) filter: JobFilterInput | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<JobRecord>> {
    const page = await ctx.cronql.jobs.list({ ...filter }, first, after, scopeOf(ctx.principal));
    ctx.loaders.primeJobs(page.nodes);
    return toConnection(page);
  }

  @Authorized(...rolesFor('Query.job'))
  @Query(() => Job, { nullable: true })
  async job(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<JobRecord | null> {
    return ctx.loaders.job.load(id);
  }

  @Authorized(...rolesFor('Mutation.createJob'))
  @Mutation(() => Job)
  async createJob(@Arg('input', () => CreateJobInput) input: CreateJobInput, @Ctx() ctx: GraphQLContext): Promise<JobRecord> {
    const job = await ctx.cronql.jobs.create(
      { ...input },
      ctx.principal.name,
    );
    ctx.loaders.primeJobs([job]);
    return job;
  }

  @Authorized(...rolesFor('Mutation.createJobs'))
  @Mutation(() => [Job], {
    description:
      'Creates several jobs, all or none (at most 1,000 a call), each by the rules of createJob, in one transaction: ' +
      'what `cronql apply` sends. An error names the input it is about (extensions.details.index and key).',
  })
  async createJobs(@Arg('inputs', () => [CreateJobInput]) inputs: CreateJobInput[], @Ctx() ctx: GraphQLContext): Promise<JobRecord[]> {
    const jobs = await ctx.cronql.jobs.createMany(
      inputs.map((input) => ({ ...input })),
      ctx.principal.name,
    );
    ctx.loaders.primeJobs(jobs);
    return jobs;
  }

  @Authorized(...rolesFor('Mutation.pauseJob'))
  @Mutation(() => Job)
  async pauseJob(
    @Arg('id', () => ID) id: string,
    @Arg('reason', () => String) reason: string,
    @Arg('until', () => DateTimeScalar, { nullable: true, description: 'The job resumes by itself at this instant (in the future); the slot at it runs.' }) until: Date | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<JobRecord> {
    return ctx.cronql.jobs.pause(id, reason, ctx.principal.name, until ?? null, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.skipNextRuns'))
  @Mutation(() => Job, { description: 'The next `count` slots of the job are recorded SKIPPED (code SKIPPED_BY_ADMIN, the reason as message) when they come, instead of running; replaces an earlier request (0 cancels it; at most 1000).' })
  async skipNextRuns(
    @Arg('id', () => ID) id: string,
    @Arg('count', () => Int) count: number,
    @Arg('reason', () => String) reason: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<JobRecord> {
    return ctx.cronql.jobs.skipNext(id, count, reason, ctx.principal.name, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.resumeJob'))
  @Mutation(() => Job)
  async resumeJob(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<JobRecord> {
    return ctx.cronql.jobs.resume(id, ctx.principal.name, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.pauseJobs'))
  @Mutation(() => Int, {
    description:
      'Pauses every ACTIVE job whose labels match the selector, each as pauseJob does (reason; with `until`, the pause ends by itself then), ' +
      'in one transaction; returns how many were paused (jobs not ACTIVE are left as they are). An empty selector is refused (INVALID_SELECTOR).',
  })
  async pauseJobs(
    @Arg('labelSelector', () => String) labelSelector: string,
    @Arg('reason', () => String) reason: string,
    @Arg('until', () => DateTimeScalar, { nullable: true, description: 'The jobs resume by themselves at this instant (in the future).' }) until: Date | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<number> {
    return (await ctx.cronql.jobs.pauseMatching(labelSelector, reason, until ?? null, ctx.principal.name, scopeOf(ctx.principal))).length;
  }

  @Authorized(...rolesFor('Mutation.resumeJobs'))
  @Mutation(() => Int, {
    description: 'Resumes every PAUSED job whose labels match the selector, each as resumeJob does, in one transaction; returns how many were resumed. An empty selector is refused (INVALID_SELECTOR).',
  })
  async resumeJobs(@Arg('labelSelector', () => String) labelSelector: string, @Ctx() ctx: GraphQLContext): Promise<number> {
    return (await ctx.cronql.jobs.resumeMatching(labelSelector, ctx.principal.name, scopeOf(ctx.principal))).length;
  }

  @Authorized(...rolesFor('Mutation.createJobVersion'))
  @Mutation(() => Job, { description: 'Retires the job and activates a new version of it; returns the new version.' })
  async createJobVersion(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => NewJobVersionInput) input: NewJobVersionInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<JobRecord> {
    return ctx.cronql.jobs.createVersion(id, sentFields(input), ctx.principal.name, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.createJobVersions'))
  @Mutation(() => [Job], {
    description:
      'New versions of several jobs, all or none (at most 1,000 a call), each by the rules of createJobVersion, in one transaction: ' +
      'what `cronql apply` sends for the jobs a file changes. Returns the new versions in the order given. An error names the input it is about (extensions.details.index and key).',
  })
  async createJobVersions(@Arg('inputs', () => [CreateJobVersionInput]) inputs: CreateJobVersionInput[], @Ctx() ctx: GraphQLContext): Promise<JobRecord[]> {
    const jobs = await ctx.cronql.jobs.createVersions(
      inputs.map((i) => ({ id: i.id, input: sentFields(i.input) })),
      ctx.principal.name,
      scopeOf(ctx.principal),
    );
    ctx.loaders.primeJobs(jobs);
    return jobs;
  }

  @Authorized(...rolesFor('Mutation.retireJob'))
  @Mutation(() => Job)
  async retireJob(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<JobRecord> {
    return ctx.cronql.jobs.retire(id, ctx.principal.name, scopeOf(ctx.principal));
  }

  @FieldResolver(() => [String], { description: 'The scheduler instances arming it now (ids): the CRONQL_JOB_REPLICAS live schedulers its partition falls to; none unless ACTIVE.' })
  async armedOn(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Promise<string[]> {
    if (job.status !== JobStatus.ACTIVE) return [];
    const members = await ctx.loaders.schedulers.load('all');
    return ownersOf(partitionOfKey(job.jobKey), members, ctx.cronql.jobReplicas);
  }

  @FieldResolver(() => String, { nullable: true, description: 'The schedule in English, e.g. "At 09:00, Monday through Friday (Europe/Paris time)"; several expressions joined by "; "; null for ONE_TIME jobs.' })
  scheduleDescription(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): string | null {
    if (job.scheduleType === ScheduleType.ONE_TIME) return null;
    const all = describeJobSchedules(job, ctx.cronql.clock.now());
    return all.length > 0 ? all.join('; ') : null;
  }

  @FieldResolver(() => [String], { description: 'Every expression, or the interval, in words (empty for ONE_TIME jobs).' })
  schedules(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): string[] {
    return describeJobSchedules(job, ctx.cronql.clock.now());
  }

  @FieldResolver(() => [String], { nullable: true, description: 'RECURRING: every expression (the first is cronExpression); a slot of any is a slot, each instant once. Null for the other types.' })
  cronExpressions(@Root() job: JobRecord): string[] | null {
    return job.scheduleType === ScheduleType.RECURRING ? job.cronExpressions : null;
  }

  @FieldResolver(() => String, { nullable: true, description: 'INTERVAL: the length between slots, e.g. "1h30m" (absolute time: no DST effect). Null for the other types.' })
  every(@Root() job: JobRecord): string | null {
    return job.everyMs == null ? null : formatEvery(job.everyMs);
  }

  @FieldResolver(() => JSONScalar, { nullable: true, description: 'Handed to the target on each run. A VIEWER reads credential-looking values as "[redacted]".' })
  payload(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): unknown {
    return forRole(ctx, job.payload ?? null);
  }

  @FieldResolver(() => [Dependency], {
    description: 'AFTER jobs: the upstream jobs whose runs’ ends start this job, each at its current version (RETIRED when its key has no live version; the link is by key). Empty for the other types.',
  })
  async after(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Promise<{ upstream: JobRecord; on: DependencyOutcome }[]> {
    const upstreams = await Promise.all(job.after.map((d) => ctx.loaders.jobByKey.load(d.jobKey)));
    return job.after.flatMap((d, i) => (upstreams[i] ? [{ upstream: upstreams[i], on: d.on }] : []));
  }

  @FieldResolver(() => Job, { nullable: true, description: 'The version this one replaced.' })
  async supersedes(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord | null> {
    return job.supersedesId ? ctx.loaders.job.load(job.supersedesId) : null;
  }

  @FieldResolver(() => Job, { nullable: true, description: 'The version that replaced this one.' })
  async supersededBy(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord | null> {
    return ctx.loaders.successor.load(job.id);
  }

  @FieldResolver(() => DateTimeScalar, {
    nullable: true,
    description: 'The next slot that will run: bounds, skipped slots and a pause that ends applied (a job paused until an instant answers its first slot from then). Null for a job paused for good, retired, or with no slot left.',
  })
  nextRunAt(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Date | null {
    return ctx.cronql.jobs.nextRunAt(job);
  }

  @FieldResolver(() => [DateTimeScalar], { description: 'The next slots that will run (as nextRunAt; calendars, bounds, maxRuns, skipped slots and pause-until applied); at most 100.' })
  async nextRuns(
    @Root() job: JobRecord,
    @Arg('count', () => Int, { nullable: true, defaultValue: 10 }) count: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Date[]> {
    return ctx.cronql.jobs.nextRuns(job, count ?? 10);
  }

  @FieldResolver(() => Run, { nullable: true, description: 'The run with the latest scheduledAt.' })
  async lastRun(@Root() job: JobRecord, @Ctx() ctx: GraphQLContext): Promise<RunRecord | null> {
    return ctx.loaders.lastRun.load(job.id);
  }

  @FieldResolver(() => RunConnection, { description: 'Newest scheduledAt first.' })
  async runs(
    @Root() job: JobRecord,
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('status', () => [RunStatus], { nullable: true }) status: RunStatus[] | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<RunRecord>> {
    return toConnection(await ctx.loaders.jobRuns.load({ jobId: job.id, first, after, status }));
  }
}
