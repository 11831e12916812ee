import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { InstanceRecord } from '../db/instances.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Instance } from './instance.type.js';

@Resolver(() => Instance)
export class InstanceResolver {
  @Authorized(...rolesFor('Query.instances'))
  @Query(() => [Instance], { description: 'The runtimes alive or recently seen, oldest first (ADMIN).' })
  instances(@Ctx() ctx: GraphQLContext): Promise<InstanceRecord[]> {
    return ctx.cronql.instances();
  }
}
