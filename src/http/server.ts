import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import express from 'express';
import type { Cronql } from '../app.js';
import type { Config } from '../config.js';
import type { SharedSubscriptions } from '../graphql/shared-subscriptions.js';
import type { CronqlHttpOptions } from './http-options.js';
import { mountCronqlRoutes } from './routes.js';

export interface HttpServer {
  server: Server;
  url: string;
  /** The API's shared subscriptions (undefined with role `scheduler`). */
  subscriptions?: SharedSubscriptions;
  /** Stops the GraphQL API (WebSocket clients, then Apollo), then the HTTP server. Idempotent. */
  close(): Promise<void>;
}

export type HttpServerOptions = Pick<Config, 'host' | 'port' | 'role'> & CronqlHttpOptions;

/** How long in-flight HTTP requests get to finish on close before their connections are cut. */
const CLOSE_GRACE_MS = 5_000;

/** What ws itself answers to an upgrade on a path it does not serve. */
function refuseUpgrade(socket: Duplex): void {
  socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nBad Request');
}

/**
 * cronql's own HTTP server (`npm start`): everything of routes.ts at the root — health endpoints
 * always; unless the role is `scheduler`, GraphiQL (`/graphiql`), the dashboard (`/dashboard`) and
 * the GraphQL API with its WebSocket (same port, `/graphql`, token required). To serve them from
 * an application's own server instead, see attachCronql (attach.ts).
 */
export async function startHttpServer(cronql: Cronql, config: HttpServerOptions): Promise<HttpServer> {
  return (await prepareHttpServer(cronql, config)).listen();
}

/** The server with its routes mounted (the GraphQL schema built, Apollo started), not yet listening. */
export interface PreparedHttpServer {
  /** Listens on the configured host and port. */
  listen(): Promise<HttpServer>;
  /** Stops the GraphQL API of a server that will not listen. */
  close(): Promise<void>;
}

/**
 * Everything of `startHttpServer` but listening. No route reaches cronql before a request, so
 * `npm start` prepares the server while `start()` waits on the database (main.ts).
 */
export async function prepareHttpServer(cronql: Cronql, config: HttpServerOptions): Promise<PreparedHttpServer> {
  const app = express();
  app.disable('x-powered-by');
  const server = createServer(app);
  const routes = await mountCronqlRoutes(cronql, { ...config, base: '' });
  app.use(routes.router);
  // This server is cronql's alone: an upgrade to any other path is refused.
  if (routes.api) server.on('upgrade', (req, socket, head) => routes.upgrade(req, socket, head) || refuseUpgrade(socket));
  return {
    close: () => routes.close(),
    async listen() {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(config.port, config.host, () => resolve());
        });
      } catch (err) {
        await routes.close();
        throw err;
      }
      const { port } = server.address() as AddressInfo;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      let closing: Promise<void> | undefined;
      return {
        server,
        url: `http://${host}:${port}`,
        subscriptions: routes.subscriptions,
        close() {
          closing ??= (async () => {
            // WebSocket clients first (they would keep the server open), then Apollo, then HTTP.
            await routes.close();
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
    },
  };
}
