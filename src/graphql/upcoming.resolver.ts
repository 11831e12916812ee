import { Arg, Authorized, Ctx, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import type { UpcomingSlot as UpcomingSlotRecord } from '../services/upcoming.service.js';
import { UPCOMING_PAGE_SIZE } from '../services/upcoming.service.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { JobFilterInput } from './job.input.js';
import { Job } from './job.type.js';
import { DateTimeScalar } from './scalars.js';
import { UpcomingConnection, UpcomingSlot } from './upcoming.type.js';
import { scopeOf } from '../domain/scope.js';

@Resolver(() => UpcomingSlot)
export class UpcomingResolver {
  @Authorized(...rolesFor('Query.upcoming'))
  @Query(() => UpcomingConnection, {
    description:
      'Every ACTIVE job\'s slots in [from, to] that will run (and those of jobs paused until an instant, from then on), in time order (slot, then job id): bounds, calendars, pauses that end, skipped slots and maxRuns applied. `first` ≤ 500.',
  })
  async upcoming(
    @Arg('from', () => DateTimeScalar, { nullable: true, description: 'Default: now.' }) from: Date | null,
    @Arg('to', () => DateTimeScalar) to: Date,
    @Arg('filter', () => JobFilterInput, { nullable: true }) filter: JobFilterInput | null,
    @Arg('first', () => Int, { nullable: true, defaultValue: UPCOMING_PAGE_SIZE }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<{ nodes: UpcomingSlotRecord[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }> {
    const page = await ctx.cronql.upcoming.page({ from, to, filter: filter ? { ...filter } : null, first, after, scope: scopeOf(ctx.principal) });
    return { nodes: page.nodes, pageInfo: { hasNextPage: page.hasNextPage, endCursor: page.endCursor } };
  }

  @FieldResolver(() => Job)
  async job(@Root() slot: UpcomingSlotRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord> {
    return (await ctx.loaders.job.load(slot.jobId))!;
  }
}
