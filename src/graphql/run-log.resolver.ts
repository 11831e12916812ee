import { Arg, Authorized, Ctx, FieldResolver, ID, Int, Resolver, Root, Subscription } from 'type-graphql';
import type { RunLogLine as RunLogLineRecord } from '../domain/run-log.js';
import { RUN_LOG_PAGE_SIZE } from '../domain/run-log.js';
import type { RunRecord } from '../domain/run.js';
import type { RunLogPage } from '../services/run-log.service.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { forRole } from './redact.js';
import { RunLogConnection, RunLogLine } from './run-log.type.js';
import { Run } from './run.type.js';
import { JSONScalar } from './scalars.js';
import { scopeOf } from '../domain/scope.js';

/** Run logs (docs/run-logs.md): `Run.logs` pages them, `runLogs` streams them. */
@Resolver(() => Run)
export class RunLogsResolver {
  @FieldResolver(() => RunLogConnection, { description: "The lines its handler wrote with ctx.log, oldest first; `after` is a line's sequence (a page's endCursor)." })
  logs(
    @Root() run: RunRecord,
    @Arg('first', () => Int, { nullable: true, defaultValue: RUN_LOG_PAGE_SIZE }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<RunLogPage> {
    return ctx.loaders.runLogs.load({ runId: run.id, first, after });
  }
}

@Resolver(() => RunLogLine)
export class RunLogLineResolver {
  @FieldResolver(() => JSONScalar, { nullable: true, description: 'The structured fields of the line. A VIEWER reads credential-looking values as "[redacted]".' })
  fields(@Root() line: RunLogLineRecord, @Ctx() ctx: GraphQLContext): unknown {
    return forRole(ctx, line.fields);
  }

  @Authorized(...rolesFor('Subscription.runLogs'))
  @Subscription(() => RunLogLine, {
    description: "The run's log lines as they are written, from the moment of subscribing (earlier ones: Run.logs), in order; completes once the run has ended and its last line is sent. A run already ended completes at once.",
    subscribe: ({ args, context }) => (context as GraphQLContext).cronql.runLogs.follow(args.runId as string, scopeOf((context as GraphQLContext).principal)),
  })
  runLogs(@Root() line: RunLogLineRecord, @Arg('runId', () => ID) _runId: string): RunLogLineRecord {
    return line;
  }
}
