import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { BackfillRecord } from '../domain/backfill.js';
import type { JobRecord } from '../domain/job.js';
import { rolesFor } from './auth.js';
import { Backfill, BackfillScope } from './backfill.type.js';
import type { GraphQLContext } from './context.type.js';
import { Job } from './job.type.js';
import { DateTimeScalar } from './scalars.js';
import { scopeOf } from '../domain/scope.js';

/** The most backfills `backfills` returns. */
const MAX_LISTED = 100;

@Resolver(() => Backfill)
export class BackfillResolver {
  @Authorized(...rolesFor('Mutation.backfillJob'))
  @Mutation(() => Backfill, {
    description:
      'Plans the slots of [from, to] of the job (this version\'s schedule) by scope and, unless dryRun, runs them oldest first, one at a time, ' +
      'as BACKFILL runs of the live version. More than 10,000 slots in the range: BACKFILL_TOO_LARGE. from = to on a slot: "run this slot again".',
  })
  backfillJob(
    @Arg('id', () => ID) id: string,
    @Arg('from', () => DateTimeScalar) from: Date,
    @Arg('to', () => DateTimeScalar) to: Date,
    @Arg('scope', () => BackfillScope, { nullable: true, defaultValue: BackfillScope.NOT_SUCCEEDED }) scope: BackfillScope | null,
    @Arg('dryRun', () => Boolean, { nullable: true, defaultValue: false }) dryRun: boolean | null,
    @Arg('reason', () => String) reason: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<BackfillRecord> {
    return ctx.cronql.backfills.backfill({ jobId: id, from, to, scope, dryRun, reason, traceparent: ctx.traceparent }, ctx.principal.name, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.cancelBackfill'))
  @Mutation(() => Backfill, { description: 'No slot of the backfill starts from now on; its run already RUNNING finishes, its waiting attempts are CANCELED.' })
  cancelBackfill(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<BackfillRecord> {
    return ctx.cronql.backfills.cancel(id, ctx.principal.name, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Query.backfill'))
  @Query(() => Backfill, { nullable: true })
  backfill(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<BackfillRecord | null> {
    return ctx.cronql.backfills.get(id, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Query.backfills'))
  @Query(() => [Backfill], { description: `The backfills of a job (every version of its key), newest first; first ≤ ${MAX_LISTED}.` })
  async backfills(
    @Arg('jobId', () => ID) jobId: string,
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<BackfillRecord[]> {
    const callerScope = scopeOf(ctx.principal);
    const job = await ctx.cronql.jobs.getOrThrow(jobId, callerScope);
    return ctx.cronql.backfills.ofJob(job.jobKey, Math.max(0, Math.min(first ?? 20, MAX_LISTED)), callerScope);
  }

  @FieldResolver(() => Job, { description: 'The job version whose slots were planned.' })
  async job(@Root() b: BackfillRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord> {
    const job = await ctx.loaders.job.load(b.jobId);
    if (!job) throw new Error(`backfill ${b.id} references missing job ${b.jobId}`);
    return job;
  }
}
