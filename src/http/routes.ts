import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import express, { type Router } from 'express';
import type { Cronql } from '../app.js';
import type { Role } from '../config.js';
import type { SharedSubscriptions } from '../graphql/shared-subscriptions.js';
import { lastErrorHandler, notFound } from './errors.js';
import { GRAPHQL_PATH, mountGraphqlApi, type GraphqlApi } from './graphql.js';
import { mountHealth } from './health.js';
import { lazyRoutes } from './lazy-routes.js';
import { mountMetrics } from './metrics.js';
import type { CronqlHttpOptions } from './http-options.js';

export interface CronqlRoutes {
  /** Every route of cronql, under `base`; last, cronql's own 404 and error answers, under `base` only. */
  router: Router;
  /** The API's path (HTTP and WebSocket): `<base>/graphql`. */
  graphqlPath: string;
  /** The API (undefined with role `scheduler`). */
  api?: GraphqlApi;
  /** The API's shared subscriptions (undefined with role `scheduler`). */
  subscriptions?: SharedSubscriptions;
  /** Takes an upgrade to the API's WebSocket path and returns true; false for any other path. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Stops the API: WebSocket clients first (they would keep a server open), then Apollo. Idempotent. */
  close(): Promise<void>;
}

/**
 * The one place that says what cronql serves and where, for startHttpServer (`base` "") and
 * attachCronql (`base` "/cronql"): health endpoints and metrics always; unless the role is
 * `scheduler`, GraphiQL (`<base>/graphiql`) and the dashboard (`<base>/dashboard`) — public: the
 * pages hold no data — both calling the API at `<base>/graphql` (token required), where its
 * WebSocket is too.
 */
export async function mountCronqlRoutes(cronql: Cronql, options: CronqlHttpOptions & { base: string; role: Role }): Promise<CronqlRoutes> {
  const { base } = options;
  const graphqlPath = `${base}${GRAPHQL_PATH}`;
  const router = express.Router();
  mountHealth(router, cronql, base);
  mountMetrics(router, cronql, options.metricsToken, base);
  let api: GraphqlApi | undefined;
  if (options.role !== 'scheduler') {
    if (!options.adminToken) throw new Error('cronql: adminToken is required to serve the GraphQL API');
    // The pages' bundles are imported on their first request: a start does not need them.
    const graphiql = `${base}/graphiql`;
    const dashboard = `${base}/dashboard`;
    router.use(lazyRoutes(graphiql, async (r) => void (await import('./graphiql.js')).mountGraphiql(r, { path: graphiql, endpoint: graphqlPath })));
    router.use(lazyRoutes(dashboard, async (r) => void (await import('./dashboard.js')).mountDashboard(r, { path: dashboard, endpoint: graphqlPath })));
    api = await mountGraphqlApi(router, cronql, {
      path: graphqlPath,
      adminToken: options.adminToken,
      viewerToken: options.viewerToken,
      maxBodyBytes: options.maxBodyBytes,
      maxSubscriptionsPerConnection: options.maxSubscriptionsPerConnection,
      maxConnections: options.maxConnections,
      maxResponseBytes: options.maxResponseBytes,
      corsOrigins: options.corsOrigins,
    });
  }
  // Last: nothing Express answers by itself (its default pages carry stack traces). Under `base`
  // only, so that a host application's other paths stay its own.
  if (base) {
    router.use(base, notFound(graphqlPath));
    router.use(base, lastErrorHandler(cronql.log, graphqlPath));
  } else {
    router.use(notFound(graphqlPath));
    router.use(lastErrorHandler(cronql.log, graphqlPath));
  }
  return {
    router,
    graphqlPath,
    api,
    subscriptions: api?.subscriptions,
    upgrade: (req, socket, head) => api?.upgrade(req, socket, head) ?? false,
    close: () => api?.close() ?? Promise.resolve(),
  };
}
