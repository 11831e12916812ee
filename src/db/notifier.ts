import pg from 'pg';
import type { Logger } from '../logger.js';
import { connectionOptions, DEFAULT_DB_BOUNDS, type DbBounds } from './pool.js';

/** PostgreSQL channels cronql uses to tell other instances what changed. */
export const Channel = {
  /** payload: job id — a job was created or changed state; schedulers re-read it. */
  JOB_CHANGED: 'cronql_job_changed',
  /** payload: run id — a PENDING run was created by run-now; a runtime claims and runs it. */
  RUN_CREATED: 'cronql_run_created',
  /** payload: run id — an admin canceled a run; the instance running it aborts its handler. */
  RUN_CANCELED: 'cronql_run_canceled',
  /** payload: run id + status — a run changed state; API instances publish it to subscribers. */
  RUN_CHANGED: 'cronql_run_changed',
  /** payload: instance id + (run id, first, last sequence) ranges — lines of run logs were written (runtime/run-log-relay.ts). */
  RUN_LOGS: 'cronql_run_logs',
  /** payload: instance id — a scheduler armed its share or stopped; the others rebalance. */
  MEMBERSHIP: 'cronql_membership',
  /** payload: calendar name — a calendar was set or deleted; every runtime re-reads it. */
  CALENDAR_CHANGED: 'cronql_calendar_changed',
  /** payload: pool name — a place in a concurrency pool freed (a run ended) or its limit rose; runtimes admit its waiting runs. */
  POOL_FREED: 'cronql_pool_freed',
  /** payload: token id — a named API token was revoked; every instance forgets it and closes its sockets. */
  TOKEN_REVOKED: 'cronql_token_revoked',
  /** no payload — alerts were written to the outbox; a deliverer sends them. */
  OUTBOX: 'cronql_outbox',
} as const;
export type ChannelName = (typeof Channel)[keyof typeof Channel];

type Handler = (payload: string) => void;

export interface NotifierOptions {
  /** Connect and statement bounds of the LISTEN connection. */
  bounds?: DbBounds;
  /** How often the connection proves it is alive with a round trip (bounded at 2 s). @default 2000 */
  pingMs?: number;
  /** Longest wait between two reconnection attempts. @default 5000 */
  maxRetryMs?: number;
}

/**
 * One dedicated connection LISTENing on cronql's channels. A LISTEN connection carries no
 * traffic of its own, so a half-open one (the network silently dropped it) would never be
 * noticed: it proves itself alive with a round trip every `pingMs`, bounded by the statement
 * timeout, and is replaced when that fails. Reconnection attempts are bounded, back off up to
 * `maxRetryMs`, and never stop being scheduled. After each reconnection `onReconnect` runs,
 * because notifications sent while it was away are lost: listeners resynchronise from the tables.
 */
export class Notifier {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private attempt = 0;
  private readonly bounds: DbBounds;
  private readonly pingMs: number;
  private readonly maxRetryMs: number;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onReconnect: () => void = () => {},
    options: NotifierOptions = {},
  ) {
    this.bounds = options.bounds ?? DEFAULT_DB_BOUNDS;
    this.pingMs = options.pingMs ?? 2_000;
    this.maxRetryMs = options.maxRetryMs ?? 5_000;
  }

  /** True while the LISTEN connection is up (as far as its last round trip tells). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  on(channel: ChannelName, handler: Handler): void {
    if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    this.handlers.get(channel)!.add(handler);
  }

  async start(): Promise<void> {
    await this.connect();
    this.pingTimer = setInterval(() => void this.ping(), this.pingMs);
    this.pingTimer.unref();
  }

  /** A round trip on the LISTEN connection; a failure (or no answer in time) replaces it. */
  private async ping(): Promise<void> {
    const client = this.client;
    if (!client || this.closed) return;
    try {
      await client.query({ text: 'SELECT 1', query_timeout: Math.min(this.bounds.queryTimeoutMs, 2_000) } as pg.QueryConfig);
    } catch (err) {
      this.log.warn({ err }, 'notification connection does not answer; replacing it');
      this.lost(client);
    }
  }

  private async connect(): Promise<void> {
    // Keep-alive and timeouts: connecting, LISTEN and the pings never wait without bound.
    const client = new pg.Client(connectionOptions(this.databaseUrl, this.bounds));
    client.on('notification', (msg) => {
      for (const h of this.handlers.get(msg.channel) ?? []) {
        try {
          h(msg.payload ?? '');
        } catch (err) {
          this.log.error({ err, channel: msg.channel }, 'notification handler failed');
        }
      }
    });
    client.on('error', (err) => {
      this.log.warn({ err }, 'notification connection lost');
      this.lost(client);
    });
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      for (const channel of Object.values(Channel)) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      client.removeAllListeners('end');
      discard(client);
      throw err;
    }
    if (this.closed) {
      // close() ran while this connection was being made.
      client.removeAllListeners('end');
      discard(client);
      return;
    }
    this.client = client;
    this.attempt = 0;
  }

  /** The connection broke: drop it and reconnect later. */
  private lost(client: pg.Client): void {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    client.removeAllListeners('end');
    discard(client);
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    const delay = Math.min(this.maxRetryMs, 250 * 2 ** this.attempt++);
    this.retryTimer = setTimeout(async () => {
      this.retryTimer = undefined;
      try {
        await this.connect();
        if (!this.closed) this.onReconnect();
      } catch (err) {
        this.log.warn({ err, delay }, 'notification connection: reconnect failed');
        this.retryLater();
      }
    }, delay);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await discard(client);
    }
  }
}

/**
 * Ends a client without waiting on the network: a polite end, and if the server does not
 * confirm within a second (half-open connection), the socket is destroyed.
 */
function discard(client: pg.Client): Promise<void> {
  client.on('error', () => {});
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    client.end().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
        resolve();
      }, 1_000);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Sends a notification through a pool or client; delivered when its transaction commits. */
export async function notify(db: pg.Pool | pg.Client, channel: ChannelName, payload: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
}

/** Several notifications on one channel in one statement (one round trip), delivered in order. */
export async function notifyAll(db: pg.Pool | pg.Client, channel: ChannelName, payloads: readonly string[]): Promise<void> {
  if (payloads.length === 0) return;
  await db.query('SELECT count(pg_notify($1, p)) FROM unnest($2::text[]) AS p', [channel, payloads]);
}
