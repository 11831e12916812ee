import { Arg, Authorized, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import type { PoolRow } from '../services/pool.service.js';
import type { GraphQLContext } from './context.type.js';
import { Job } from './job.type.js';
import { ConcurrencyPool } from './pool.type.js';
import { rolesFor } from './auth.js';

/** Concurrency pools: any token reads them; only ADMIN sets or deletes one. */
@Resolver(() => ConcurrencyPool)
export class ConcurrencyPoolResolver {
  @Authorized(...rolesFor('Query.concurrencyPools'))
  @Query(() => [ConcurrencyPool], { description: 'Every concurrency pool, by name, with its running and waiting runs.' })
  concurrencyPools(@Ctx() ctx: GraphQLContext): Promise<PoolRow[]> {
    return ctx.cronql.pools.list();
  }

  @Authorized(...rolesFor('Mutation.setConcurrencyPool'))
  @Mutation(() => ConcurrencyPool, { description: 'Creates a concurrency pool, or sets its limit (ADMIN): a higher limit starts waiting runs at once, a lower one lets running runs end.' })
  setConcurrencyPool(@Arg('name', () => String) name: string, @Arg('limit', () => Int) limit: number, @Ctx() ctx: GraphQLContext): Promise<PoolRow> {
    return ctx.cronql.pools.set(name, limit, ctx.principal.name);
  }

  @Authorized(...rolesFor('Mutation.deleteConcurrencyPool'))
  @Mutation(() => Boolean, { description: 'Deletes a concurrency pool (ADMIN); POOL_IN_USE while a live job names it. False when there was none.' })
  deleteConcurrencyPool(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return ctx.cronql.pools.delete(name, ctx.principal.name);
  }

  @FieldResolver(() => [Job], { description: 'The live (not RETIRED) job versions in the pool, by key.' })
  async jobs(@Root() pool: PoolRow, @Ctx() ctx: GraphQLContext): Promise<JobRecord[]> {
    const jobs = await ctx.loaders.job.loadMany(pool.jobIds);
    return jobs.filter((j): j is JobRecord => j !== null && !(j instanceof Error));
  }
}
