import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { TargetListing } from '../runtime/targets/registry.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Target } from './target.type.js';

@Resolver(() => Target)
export class TargetResolver {
  @Authorized(...rolesFor('Query.targets'))
  @Query(() => [Target], { description: 'The targets a job may name, by name.' })
  targets(@Ctx() ctx: GraphQLContext): TargetListing[] {
    return ctx.cronql.targets.list();
  }
}
