// The options of cronql's HTTP surface, in a file of their own: they are public (`cronql`'s
// `startHttpServer` and `attachCronql` take them), and the public declarations must not reach
// routes.ts, whose types name Express's and, through the API, type-graphql's — packages whose
// types a consumer does not have (docs/architecture.md, "The public types").

/** What cronql serves over HTTP, wherever it is mounted (its own server or a host application's). */
export interface CronqlHttpOptions {
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
}
