import pg from 'pg';
import type { Logger } from '../logger.js';

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
} as const;
export type ChannelName = (typeof Channel)[keyof typeof Channel];

type Handler = (payload: string) => void;

/**
 * One dedicated connection LISTENing on cronql's channels. It reconnects with backoff when the
 * connection drops, and calls `onReconnect` after each reconnection, because notifications sent
 * while it was away are lost: listeners resynchronise from the tables then.
 */
export class Notifier {
  private client: pg.Client | undefined;
  private readonly handlers = new Map<string, Set<Handler>>();
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private attempt = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
    private readonly onReconnect: () => void = () => {},
  ) {}

  on(channel: ChannelName, handler: Handler): void {
    if (!this.handlers.has(channel)) this.handlers.set(channel, new Set());
    this.handlers.get(channel)!.add(handler);
  }

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
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
      await client.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      // close() ran while this connection was being made.
      client.removeAllListeners('end');
      await client.end().catch(() => {});
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
    void client.end().catch(() => {});
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer) return;
    const delay = Math.min(30_000, 250 * 2 ** this.attempt++);
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
    const client = this.client;
    this.client = undefined;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
    }
  }
}

/** Sends a notification through a pool or client; delivered when its transaction commits. */
export async function notify(db: pg.Pool | pg.Client, channel: ChannelName, payload: string): Promise<void> {
  await db.query('SELECT pg_notify($1, $2)', [channel, payload]);
}
