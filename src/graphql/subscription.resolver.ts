import { Arg, Authorized, Ctx, Resolver, Root, Subscription } from 'type-graphql';
import type { RunChange as RunChangeEvent } from '../runtime/run-events.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { RunFilterInput } from './run.input.js';
import { runChangeFeed } from './run-feed.js';
import { RunChange } from './run.type.js';
import { scopeOf } from '../domain/scope.js';

@Resolver()
export class SubscriptionResolver {
  @Authorized(...rolesFor('Subscription.runChanged'))
  @Subscription(() => RunChange, {
    description: 'Every run state change, including creation, in order per run; filtered on the server.',
    subscribe: ({ args, context }) => {
      const ctx = context as GraphQLContext;
      return runChangeFeed(
        ctx.cronql.events,
        (args.filter as RunFilterInput | null) ?? undefined,
        () => {
          ctx.log.warn({ principal: ctx.principal.name }, 'runChanged subscriber fell too far behind; closing its connection');
          ctx.onSlowConsumer?.();
        },
        // The job service keeps the labels it read (a version's never change): no query per change.
        (ids) => ctx.cronql.jobs.labelsOf(ids),
        // A scoped caller gets the changes of its jobs' runs only (docs/teams.md).
        scopeOf(ctx.principal),
      );
    },
  })
  runChanged(
    @Root() change: RunChangeEvent,
    @Arg('filter', () => RunFilterInput, { nullable: true }) _filter: RunFilterInput | null,
    @Ctx() ctx: GraphQLContext,
  ): RunChangeEvent {
    // One context serves the whole subscription: resolve each event with fresh data.
    ctx.loaders.clear();
    return change;
  }
}
