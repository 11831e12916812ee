import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { runStats, type Stats as StatsRecord } from '../services/stats.service.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Stats } from './stats.type.js';
import { scopeOf } from '../domain/scope.js';

@Resolver(() => Stats)
export class StatsResolver {
  @Authorized(...rolesFor('Query.stats'))
  @Query(() => Stats, { description: 'Runs by status, target (failure rate) and trigger, fire lateness, the jobs failing most.' })
  stats(
    @Arg('window', () => Int, { nullable: true, defaultValue: 24, description: 'Hours back from now (1–720).' }) window: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<StatsRecord> {
    return runStats(ctx.cronql.pool, ctx.cronql.clock.now(), window, scopeOf(ctx.principal));
  }
}
