import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import express from 'express';
import type { Cronql } from '../app.js';
import { OptionsError } from '../options.js';
import type { SharedSubscriptions } from '../graphql/shared-subscriptions.js';
import type { CronqlHttpOptions } from './http-options.js';
import { mountCronqlRoutes } from './routes.js';

/** A middleware as Express (4 or 5), connect and plain Node servers call it. */
export type HostMiddleware = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

/**
 * The host application: anything with `use(middleware)` that sees the request's whole path, e.g.
 * an Express app (or a router mounted at the root: `path` is a path of the server, since the
 * pages link to it and the WebSocket upgrade is matched on it).
 */
export interface HostApp {
  use(middleware: HostMiddleware): unknown;
}

export interface AttachCronqlOptions extends CronqlHttpOptions {
  /** The cronql to serve (started by the host, before or after attaching). */
  cronql: Cronql;
  /** Where cronql's routes go on the host, e.g. "/cronql": `/cronql/graphql`, `/cronql/graphiql`, `/cronql/dashboard`. */
  path: string;
}

export interface AttachedCronql {
  /** The API's path (HTTP and graphql-ws), e.g. `/cronql/graphql`. */
  graphqlPath: string;
  /** The API's shared subscriptions (undefined when the cronql's role is `scheduler`). */
  subscriptions?: SharedSubscriptions;
  /**
   * Detaches cronql: its WebSocket clients are closed (1001), its API stops, its routes answer
   * nothing more (the host's next handlers get those requests). The host's server, routes and
   * WebSockets are left as they are, and the cronql itself runs on (`cronql.stop()` is the host's).
   */
  close(): Promise<void>;
}

/** One or more path segments, no trailing slash, none `.` or `..`: what can prefix `/graphql` and stay a plain path. */
const PREFIX = /^(\/(?!\.+(?:\/|$))[A-Za-z0-9._~-]+)+$/;

/**
 * Serves cronql from a host application's own HTTP server, under `path`: the same routes as
 * `npm start` serves at the root (routes.ts: health, metrics, GraphiQL, the dashboard, the GraphQL
 * API), the pages calling the API under the prefix. graphql-ws needs the `http.Server` itself: it
 * takes the server's `upgrade` events for `<path>/graphql` only and leaves every other path to the
 * host's own WebSocket handlers (which must, likewise, leave cronql's path alone).
 * @throws OptionsError when `path` is not a plain path such as "/cronql".
 */
export async function attachCronql(server: Server | HttpsServer, app: HostApp, options: AttachCronqlOptions): Promise<AttachedCronql> {
  const { cronql, path, ...http } = options;
  if (typeof path !== 'string' || !PREFIX.test(path)) {
    throw new OptionsError('path', `must be a path such as "/cronql" (segments of letters, digits, ".", "_", "~", "-", not "." or ".."; no trailing "/"), got ${JSON.stringify(path)}`, 'attachCronql');
  }
  const routes = await mountCronqlRoutes(cronql, { ...http, base: path, role: cronql.role });
  // An Express app of cronql's own around the routes: Express 5's request and response helpers
  // whatever the host runs (another Express, connect, a bare handler), and the host's settings
  // (trust proxy, query parser, …) neither used nor changed.
  const inner = express();
  inner.disable('x-powered-by');
  inner.use(routes.router);
  let closed = false;
  app.use((req, res, next) => {
    if (closed) return next();
    // As Express does for a mounted app: the host's prototypes back for whatever handles it next.
    const request = Object.getPrototypeOf(req) as object;
    const response = Object.getPrototypeOf(res) as object;
    inner(req as express.Request, res as express.Response, (err?: unknown) => {
      Object.setPrototypeOf(req, request);
      Object.setPrototypeOf(res, response);
      next(err);
    });
  });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!closed) routes.upgrade(req, socket, head);
  };
  server.on('upgrade', onUpgrade);
  let closing: Promise<void> | undefined;
  return {
    graphqlPath: routes.graphqlPath,
    subscriptions: routes.subscriptions,
    close() {
      closing ??= (async () => {
        closed = true;
        server.off('upgrade', onUpgrade);
        await routes.close();
      })();
      return closing;
    },
  };
}
