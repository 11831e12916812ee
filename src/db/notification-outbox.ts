import { auditPerRow, type AuditEntryInput } from './audit.js';
import type { Pool } from './pool.js';
import { rowToSealedChannel, type SealedChannel } from './notification-channels.js';

/**
 * The outbox of alert deliveries (`cron_notification_outbox`): rows are written by the statements
 * that record events (runs/alert-rules.ts, late-jobs.ts) and sent by the deliverers
 * (alerts/deliverer.ts). Each channel's rows go in order, one at a time: only a channel's oldest
 * pending row (its head) is ever claimed. A claim moves the row's `due_at` past the attempt's
 * bound in one conditional UPDATE, so one instance sends it at a time, without a transaction held
 * open during the HTTP call; an instance that dies mid-attempt leaves the row due again once that
 * bound has passed (the attempt timed out: the one case besides a failure where a receiver can
 * see a delivery twice, with the same `webhook-id`). Due times are the database's clock.
 */

/** A delivery claimed for one attempt, with its channel's sealed credentials. */
export interface ClaimedDelivery {
  id: string;
  event: string;
  data: Record<string, unknown>;
  createdAt: Date;
  /** This attempt's number (1 for the first). */
  attempt: number;
  channel: SealedChannel;
}

const PENDING = 'o.delivered_at IS NULL AND o.given_up_at IS NULL';

const toClaimed = (row: Record<string, unknown>): ClaimedDelivery => ({
  id: row.outbox_id as string,
  event: row.event as string,
  data: row.data as Record<string, unknown>,
  createdAt: new Date(row.outbox_created_at as string),
  attempt: Number(row.attempts),
  channel: rowToSealedChannel(row),
});

/** The claim of rows `which` (a condition on `o`) for an attempt lasting at most `$1` ms. */
const claimSql = (which: string) => `WITH won AS (
    UPDATE cron_notification_outbox o SET due_at = now() + make_interval(secs => $1::float8 / 1000), attempts = o.attempts + 1
    WHERE ${which} AND ${PENDING} AND o.due_at <= now()
    RETURNING o.id, o.channel, o.event, o.data, o.created_at, o.attempts
  )
  SELECT won.id AS outbox_id, won.event, won.data, won.created_at AS outbox_created_at, won.attempts, c.*
  FROM won JOIN cron_notification_channels c ON c.name = won.channel`;

export class OutboxStore {
  constructor(private readonly pool: Pool) {}

  /**
   * The due heads of the channels (at most one row per channel), claimed for an attempt of at most
   * `attemptMs`; without `withEnv`, not the env channel's (this instance has not its URL).
   */
  async claimHeads(attemptMs: number, limit: number, withEnv: boolean): Promise<ClaimedDelivery[]> {
    const res = await this.pool.query(
      claimSql(`o.id IN (SELECT h.id FROM (
          SELECT DISTINCT ON (o.channel) o.id, o.due_at FROM cron_notification_outbox o
          WHERE ${PENDING} AND ($3::boolean OR o.channel NOT IN (SELECT e.name FROM cron_notification_channels e WHERE e.from_env))
          ORDER BY o.channel, o.seq
        ) h WHERE h.due_at <= now() LIMIT $2)`),
      [attemptMs, limit, withEnv],
    );
    return res.rows.map(toClaimed);
  }

  /**
   * A new row (a test delivery, sent at once) written already claimed for its first attempt of at
   * most `attemptMs`: no other instance's deliverer can take it between the write and the attempt.
   * With `audit` (a test an admin asked for), its entry is written by the same statement.
   */
  async insertClaimed(channel: string, event: string, data: Record<string, unknown>, at: Date, attemptMs: number, audit: AuditEntryInput | null = null): Promise<ClaimedDelivery | null> {
    const params: unknown[] = [attemptMs, channel, event, JSON.stringify(data), at];
    const res = await this.pool.query(
      `WITH won AS (
         INSERT INTO cron_notification_outbox (id, channel, event, data, created_at, due_at, attempts)
         VALUES (gen_random_uuid(), $2, $3, $4, $5, now() + make_interval(secs => $1::float8 / 1000), 1)
         RETURNING id, channel, event, data, created_at, attempts
       )${audit ? `, audit AS (${auditPerRow(params, 'won', audit, at, { subject: 'won.channel' })})` : ''}
       SELECT won.id AS outbox_id, won.event, won.data, won.created_at AS outbox_created_at, won.attempts, c.*
       FROM won JOIN cron_notification_channels c ON c.name = won.channel`,
      params,
    );
    return res.rows[0] ? toClaimed(res.rows[0]) : null;
  }

  /** Milliseconds until the next channel head is due (0: now); null when nothing is pending. */
  async nextDueInMs(): Promise<number | null> {
    const res = await this.pool.query(
      `SELECT greatest(0, extract(epoch FROM min(h.due_at) - now()) * 1000)::float8 AS ms FROM (
         SELECT DISTINCT ON (o.channel) o.due_at FROM cron_notification_outbox o WHERE ${PENDING} ORDER BY o.channel, o.seq) h`,
    );
    const ms = res.rows[0]?.ms;
    return ms == null ? null : Number(ms);
  }

  /** Delivered: the row is done, its channel records the delivery (and no error). */
  async delivered(id: string, at: Date): Promise<void> {
    await this.pool.query(
      `WITH o AS (UPDATE cron_notification_outbox SET delivered_at = $2, last_error = NULL WHERE id = $1 AND delivered_at IS NULL RETURNING channel)
       UPDATE cron_notification_channels c SET last_delivery_at = $2, last_error = NULL FROM o WHERE c.name = o.channel`,
      [id, at],
    );
  }

  /** An attempt failed: due again in `retryInMs` (database time), or given up when null; the channel records the error. */
  async failed(id: string, error: string, retryInMs: number | null, at: Date): Promise<void> {
    await this.pool.query(
      `WITH o AS (
         UPDATE cron_notification_outbox SET last_error = $2,
           due_at = CASE WHEN $3::float8 IS NULL THEN due_at ELSE now() + make_interval(secs => $3::float8 / 1000) END,
           given_up_at = CASE WHEN $3::float8 IS NULL THEN $4::timestamptz END
         WHERE id = $1 AND delivered_at IS NULL RETURNING channel)
       UPDATE cron_notification_channels c SET last_error = $2 FROM o WHERE c.name = o.channel`,
      [id, error, retryInMs, at],
    );
  }

  /** Rows waiting to be delivered (the pending gauge). */
  async pendingCount(): Promise<number> {
    const res = await this.pool.query(`SELECT count(*)::int AS n FROM cron_notification_outbox o WHERE ${PENDING}`);
    return Number(res.rows[0].n);
  }

  /** Deletes up to `limit` delivered or given-up rows recorded before `before` (retention); how many. */
  async prune(before: Date, limit: number): Promise<number> {
    const res = await this.pool.query(
      `DELETE FROM cron_notification_outbox WHERE id IN (
         SELECT id FROM cron_notification_outbox WHERE (delivered_at IS NOT NULL OR given_up_at IS NOT NULL) AND created_at < $1 LIMIT $2)`,
      [before, limit],
    );
    return res.rowCount ?? 0;
  }
}
