import { Kind, type GraphQLResolveInfo } from 'graphql';
import { Arg, Authorized, Ctx, FieldResolver, ID, Info, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import { runDurationMs, type RunRecord } from '../domain/run.js';
import { waitingForPool } from '../domain/pools.js';
import { toConnection, RunConnection, type Connection } from './connection.type.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Job } from './job.type.js';
import { RunFilterInput } from './run.input.js';
import { Run } from './run.type.js';
import { DateTimeScalar, JSONScalar } from './scalars.js';
import { RunStatus, TriggerType } from '../domain/enums.js';
import { forRole } from './redact.js';
import { traceIdOf } from '../tracing/traceparent.js';
import { scopeOf } from '../domain/scope.js';

@Resolver(() => Run)
export class RunResolver {
  @Authorized(...rolesFor('Query.runs'))
  @Query(() => RunConnection, { description: 'Newest scheduledAt first.' })
  async runs(
    @Arg('filter', () => RunFilterInput, { nullable: true }) filter: RunFilterInput | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: 20 }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<Connection<RunRecord>> {
    const runs = ctx.cronql.runs;
    const scope = scopeOf(ctx.principal);
    return toConnection(await runs.page({ ...filter }, first, after, scope), () => runs.count({ ...filter }, scope));
  }

  @Authorized(...rolesFor('Query.run'))
  @Query(() => Run, { nullable: true })
  async run(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<RunRecord | null> {
    return ctx.cronql.runs.get(id, scopeOf(ctx.principal));
  }

  @Authorized(...rolesFor('Mutation.runJobNow'))
  @Mutation(() => Run, {
    description: 'MANUAL; AD_HOC when payload is given; SKIPPED (OVERLAP) when a run of the job is active.',
  })
  async runJobNow(
    @Arg('id', () => ID) id: string,
    @Arg('payload', () => JSONScalar, { nullable: true }) payload: unknown,
    @Ctx() ctx: GraphQLContext,
  ): Promise<RunRecord> {
    // The run's span continues the operation's (tracing on).
    return ctx.cronql.runs.runNow(id, payload, { traceparent: ctx.traceparent, actor: ctx.principal.name, scope: scopeOf(ctx.principal) });
  }

  @Authorized(...rolesFor('Mutation.cancelRun'))
  @Mutation(() => Run, { description: 'PENDING or RUNNING → CANCELED; a handler in flight sees its signal fire.' })
  async cancelRun(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext): Promise<RunRecord> {
    return ctx.cronql.runs.cancel(id, ctx.principal.name, scopeOf(ctx.principal));
  }

  @FieldResolver(() => JSONScalar, { nullable: true, description: 'The payload it ran with. A VIEWER reads credential-looking values as "[redacted]".' })
  payloadSnapshot(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): unknown {
    return forRole(ctx, run.payloadSnapshot);
  }

  @FieldResolver(() => JSONScalar, { nullable: true, description: 'What the handler returned. A VIEWER reads credential-looking values as "[redacted]".' })
  output(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): unknown {
    return forRole(ctx, run.output);
  }

  @FieldResolver(() => JSONScalar, { nullable: true, description: 'Structured diagnostics of a failure or skip. A VIEWER reads credential-looking values as "[redacted]".' })
  failureDetails(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): unknown {
    return forRole(ctx, run.failureDetails);
  }

  // Not `async`: the common answers are returned as values, not promises. One promise per row
  // makes graphql-js complete every row of the page asynchronously (promiseForObject), a large
  // part of a page's execution time.
  @FieldResolver(() => Job)
  job(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext, @Info() info: GraphQLResolveInfo): JobRecord | Promise<JobRecord> {
    // `job { id }` (what a page of runs usually asks, the clients' RunFields among them) is the
    // run's own column: no read of 50 jobs per page for it.
    if (onlyId(info)) return { id: run.jobId } as JobRecord;
    return ctx.loaders.job.load(run.jobId).then((job) => {
      // Runs reference their job with a foreign key: a missing job is a broken invariant.
      if (!job) throw new Error(`run ${run.id} references missing job ${run.jobId}`);
      return job;
    });
  }

  @FieldResolver(() => Run, { nullable: true, description: 'The attempt this one retries (null for a first attempt, or once retention pruned it).' })
  retryOf(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): RunRecord | null | Promise<RunRecord | null> {
    return run.retryOf ? ctx.loaders.run.load(run.retryOf) : null;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: 'Why a due PENDING run has not started: its concurrency pool is full ("pool billing-api: 5/5 running"). Null otherwise.',
  })
  waitingFor(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): string | null | Promise<string | null> {
    // Only a due PENDING run of a pool reads its pool (batched): every other run answers at once.
    if (run.status !== RunStatus.PENDING || !run.concurrencyPool) return null;
    if (run.dueAt && run.dueAt.getTime() > ctx.cronql.clock.now().getTime()) return null;
    return ctx.loaders.pool.load(run.concurrencyPool).then((p) => (p ? waitingForPool(p.name, p.running, p.limit) : null));
  }

  @FieldResolver(() => [Run], { description: 'DEPENDENCY runs: the upstream runs whose ends created this one (one for afterMode ANY, one per upstream for ALL; fewer once retention pruned them). Empty for the other triggers.' })
  upstreamRuns(@Root() run: RunRecord, @Ctx() ctx: GraphQLContext): RunRecord[] | Promise<RunRecord[]> {
    return run.triggerType === TriggerType.DEPENDENCY ? ctx.loaders.upstreamRuns.load(run.id) : [];
  }

  @FieldResolver(() => DateTimeScalar, { nullable: true, description: 'While a retry waits (PENDING): when it starts.' })
  nextAttemptAt(@Root() run: RunRecord): Date | null {
    return run.status === RunStatus.PENDING && run.attempt > 1 ? run.dueAt : null;
  }

  @FieldResolver(() => String, {
    nullable: true,
    description: "The W3C trace id of the run's trace (OpenTelemetry): a run-now's or a backfill's continues its mutation's. Null when the run was created with tracing off.",
  })
  traceId(@Root() run: RunRecord): string | null {
    return traceIdOf(run.traceparent);
  }

  @FieldResolver(() => Int, { nullable: true, description: 'finishedAt - startedAt, in milliseconds.' })
  durationMs(@Root() run: RunRecord): number | null {
    return runDurationMs(run);
  }
}

/** Whether the field's selection is its `id` (and `__typename`) alone, written as plain fields. */
function onlyId(info: GraphQLResolveInfo): boolean {
  return info.fieldNodes.every((node) =>
    (node.selectionSet?.selections ?? []).every((s) => s.kind === Kind.FIELD && (s.name.value === 'id' || s.name.value === '__typename') && !s.alias),
  );
}
