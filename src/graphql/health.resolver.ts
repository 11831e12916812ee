import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Health } from './health.type.js';

@Resolver(() => Health)
export class HealthResolver {
  @Authorized(...rolesFor('Query.health'))
  @Query(() => Health, { description: 'Readiness by named check, as /readyz reports it.' })
  async health(@Ctx() ctx: GraphQLContext): Promise<Health> {
    const { ready, checks, lastHour } = await ctx.cronql.readiness();
    return {
      ready,
      checks: Object.entries(checks).map(([name, status]) => ({ name, status })),
      lostRunsLastHour: lastHour?.lostRuns ?? null,
      missedSlotsLastHour: lastHour?.missedSlots ?? null,
    };
  }
}
