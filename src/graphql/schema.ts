import 'reflect-metadata';
import { createPubSub } from '@graphql-yoga/subscription';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type BuildSchemaOptions } from 'type-graphql';
import { ApiTokenResolver } from './api-token.resolver.js';
import { authChecker } from './auth.js';
import { AuditResolver } from './audit.resolver.js';
import { BackfillResolver } from './backfill.resolver.js';
import { HealthResolver } from './health.resolver.js';
import { NotificationChannelResolver } from './notification-channel.resolver.js';
import { SecretResolver } from './secret.resolver.js';
import { CalendarResolver } from './calendar.resolver.js';
import { ConcurrencyPoolResolver } from './pool.resolver.js';
import { StatsResolver } from './stats.resolver.js';
import { InstanceResolver } from './instance.resolver.js';
import { JobResolver } from './job.resolver.js';
import { RunResolver } from './run.resolver.js';
import { RunLogLineResolver, RunLogsResolver } from './run-log.resolver.js';
import { ScheduleResolver } from './schedule.resolver.js';
import { DateTimeScalar } from './scalars.js';
import { withPlainFields } from './plain-fields.js';
import { SubscriptionResolver } from './subscription.resolver.js';
import { TargetResolver } from './target.resolver.js';
import { UpcomingResolver } from './upcoming.resolver.js';

/** Where the committed SDL lives, relative to the package root. */
export const SCHEMA_FILE = 'schema/schema.graphql';

let built: Promise<GraphQLSchema> | undefined;

/**
 * The executable schema. Resolvers reach cronql through the context, so one schema serves every
 * server of the process; it is built once.
 */
export function cronqlSchema(): Promise<GraphQLSchema> {
  built ??= build();
  return built;
}

async function build(): Promise<GraphQLSchema> {
  const options: BuildSchemaOptions = {
    resolvers: [JobResolver, RunResolver, TargetResolver, ScheduleResolver, SubscriptionResolver, InstanceResolver, HealthResolver, StatsResolver, SecretResolver, RunLogsResolver, RunLogLineResolver, BackfillResolver, UpcomingResolver, CalendarResolver, NotificationChannelResolver, ApiTokenResolver, AuditResolver, ConcurrencyPoolResolver],
    scalarsMap: [{ type: Date, scalar: DateTimeScalar }],
    authChecker,
    authMode: 'error',
    // type-graphql insists on a pub/sub when a schema has subscriptions. runChanged streams from
    // the Cronql of the request's context instead (see subscription.resolver.ts), so this one
    // stays unused.
    pubSub: createPubSub(),
    validate: false,
    emitSchemaFile: false,
  };
  // Fields that only read a property of their object are read without type-graphql's wrapper.
  return withPlainFields(await buildSchema(options), options);
}

/** The SDL as committed in schema/schema.graphql: types sorted, so the file diffs cleanly. */
export function printCronqlSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
