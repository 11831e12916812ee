import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Cronql } from '../app.js';
import type { Config } from '../config.js';
import { mountDashboard } from './dashboard.js';
import { mountGraphiql } from './graphiql.js';
import { mountGraphqlApi, type GraphqlApi } from './graphql.js';
import { mountHealth } from './health.js';
import { mountMetrics } from './metrics.js';
import { lastErrorHandler, notFound } from './errors.js';
import type { SharedSubscriptions } from '../graphql/shared-subscriptions.js';

export interface HttpServer {
  server: Server;
  url: string;
  /** The API's shared subscriptions (undefined with role `scheduler`). */
  subscriptions?: SharedSubscriptions;
  /** Stops the GraphQL API (WebSocket clients, then Apollo), then the HTTP server. Idempotent. */
  close(): Promise<void>;
}

export type HttpServerOptions = Pick<Config, 'host' | 'port' | 'role'> & {
  /** Token of the ADMIN role; required unless the role is `scheduler`. */
  adminToken?: string;
  /** Optional token of the read-only VIEWER role. */
  viewerToken?: string;
  /** Largest accepted request body / WebSocket message, in bytes. @default 1048576 */
  maxBodyBytes?: number;
  /** @default 50 */
  maxSubscriptionsPerConnection?: number;
  /** @default 5000 */
  maxConnections?: number;
  /** @default 8388608 */
  maxResponseBytes?: number;
  /** Bearer token `/metrics` requires; unset: open. */
  metricsToken?: string;
  /** Browser origins allowed to call the API. @default none beyond the same origin */
  corsOrigins?: string[];
};

/** How long in-flight HTTP requests get to finish on close before their connections are cut. */
const CLOSE_GRACE_MS = 5_000;

/**
 * The HTTP side of a cronql process: health endpoints always; unless the role is `scheduler`,
 * GraphiQL (`/graphiql`) and the dashboard (`/dashboard`) — public: the pages hold no data — and
 * the GraphQL API with its WebSocket
 * (same port, `/graphql`, token required).
 */
export async function startHttpServer(cronql: Cronql, config: HttpServerOptions): Promise<HttpServer> {
  const app = express();
  app.disable('x-powered-by');
  mountHealth(app, cronql);
  mountMetrics(app, cronql, config.metricsToken);
  const server = createServer(app);
  let api: GraphqlApi | undefined;
  if (config.role !== 'scheduler') {
    if (!config.adminToken) throw new Error('startHttpServer: adminToken is required to serve the GraphQL API');
    mountGraphiql(app);
    mountDashboard(app);
    api = await mountGraphqlApi(app, server, cronql, {
      adminToken: config.adminToken,
      viewerToken: config.viewerToken,
      maxBodyBytes: config.maxBodyBytes,
      maxSubscriptionsPerConnection: config.maxSubscriptionsPerConnection,
      maxConnections: config.maxConnections,
      maxResponseBytes: config.maxResponseBytes,
      corsOrigins: config.corsOrigins,
    });
  }
  // Last: nothing Express answers by itself (its default pages carry stack traces).
  app.use(notFound);
  app.use(lastErrorHandler(cronql.log));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (err) {
    await api?.close();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    server,
    url: `http://${host}:${port}`,
    subscriptions: api?.subscriptions,
    close() {
      closing ??= (async () => {
        // WebSocket clients first (they would keep the server open), then Apollo, then HTTP.
        await api?.close();
        await new Promise<void>((resolve) => {
          const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
          force.unref();
          server.close(() => {
            clearTimeout(force);
            resolve();
          });
          server.closeIdleConnections();
        });
      })();
      return closing;
    },
  };
}
