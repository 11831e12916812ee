import type { Cronql } from '../app.js';
import type { Logger } from '../logger.js';
import type { Loaders } from './loaders.js';
import type { Delivery } from './shared-subscriptions.js';

/**
 * What a token may do: ADMIN everything, OPERATOR the day-to-day actions on existing jobs (pause,
 * resume, run now, cancel, skip, backfill) and reads, VIEWER queries and subscriptions.
 */
export type AccessRole = 'ADMIN' | 'OPERATOR' | 'VIEWER';

/** The authenticated caller. `name` is what `createdBy`/`updatedBy` record. */
export interface Principal {
  role: AccessRole;
  name: string;
  /** The named token's id; null for the environment's tokens (`admin`, `viewer`). */
  tokenId: string | null;
  /** A label selector limiting the jobs (and their runs) the token sees and acts on; null: all of them. */
  scope: string | null;
}

/** Built per HTTP request, and per operation on a WebSocket. */
export interface GraphQLContext {
  cronql: Cronql;
  principal: Principal;
  loaders: Loaders;
  log: Logger;
  /** WebSocket operations: closes the connection of a reader too slow to keep up (4429). */
  onSlowConsumer?: () => void;
  /** WebSocket subscriptions: where the shared results of the operation are written. */
  delivery?: Delivery;
  /** With tracing on: the W3C context of the operation's span, which the runs it creates continue. */
  traceparent?: string;
}
