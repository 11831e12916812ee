import { auditPerRow, type AuditEntryInput } from './audit.js';
import type { AlertEvent, ChannelKind } from '../domain/notifications.js';
import { JobStatus } from '../domain/enums.js';
import type { Sealed } from '../secrets/cipher.js';
import type { Pool } from './pool.js';
import { lit } from './sql.js';

/** A channel as listed: never its URL (only the host) nor its secret. */
export interface ChannelRow {
  name: string;
  kind: ChannelKind;
  urlHost: string;
  /** The events it takes; null: every event. */
  events: AlertEvent[] | null;
  isDefault: boolean;
  /** Defined by CRONQL_ALERT_WEBHOOK_URL: the body and header it always had, besides Standard Webhooks'. */
  fromEnv: boolean;
  createdAt: Date;
  updatedAt: Date;
  lastDeliveryAt: Date | null;
  lastError: string | null;
}

/** A channel with its sealed credentials, for the one who sends to it (the env channel's: null, they are in the environment). */
export interface SealedChannel extends ChannelRow {
  url: Sealed | null;
  secret: Sealed | null;
}

/** A channel to write; its URL and secret sealed by the service (which holds the key); none for the env channel. */
export interface ChannelWrite {
  name: string;
  kind: ChannelKind;
  url: Sealed | null;
  urlHost: string;
  secret: Sealed | null;
  events: AlertEvent[] | null;
  isDefault: boolean;
  fromEnv: boolean;
}

const CHANNEL_COLUMNS = `name, kind, url_host, events, is_default, from_env, created_at, updated_at, last_delivery_at, last_error`;
const date = (v: unknown) => (v == null ? null : new Date(v as string));
const sealedOf = (iv: unknown, ciphertext: unknown, tag: unknown): Sealed | null =>
  iv == null ? null : { iv: iv as Buffer, ciphertext: ciphertext as Buffer, tag: tag as Buffer };

export function rowToChannel(row: Record<string, unknown>): ChannelRow {
  return {
    name: row.name as string,
    kind: row.kind as ChannelKind,
    urlHost: row.url_host as string,
    events: (row.events as AlertEvent[] | null) ?? null,
    isDefault: row.is_default as boolean,
    fromEnv: row.from_env as boolean,
    createdAt: new Date(row.created_at as string),
    updatedAt: new Date(row.updated_at as string),
    lastDeliveryAt: date(row.last_delivery_at),
    lastError: (row.last_error as string | null) ?? null,
  };
}

export function rowToSealedChannel(row: Record<string, unknown>): SealedChannel {
  return {
    ...rowToChannel(row),
    url: sealedOf(row.url_iv, row.url_ciphertext, row.url_tag),
    secret: sealedOf(row.secret_iv, row.secret_ciphertext, row.secret_tag),
  };
}

/** The SQL of notification channels: sealed values in, sealed values out (the service holds the key). */
export class ChannelStore {
  constructor(private readonly pool: Pool) {}

  async list(): Promise<ChannelRow[]> {
    const res = await this.pool.query(`SELECT ${CHANNEL_COLUMNS} FROM cron_notification_channels ORDER BY name`);
    return res.rows.map(rowToChannel);
  }

  async get(name: string): Promise<SealedChannel | null> {
    const res = await this.pool.query('SELECT * FROM cron_notification_channels WHERE name = $1', [name]);
    return res.rows[0] ? rowToSealedChannel(res.rows[0]) : null;
  }

  /** Creates or replaces `c` (its delivery record is kept); returns it as listed. With `audit`, its entry is written by the same statement. */
  async upsert(c: ChannelWrite, actor: string | null, now: Date, audit: AuditEntryInput | null = null): Promise<ChannelRow> {
    const params: unknown[] = [
      c.name, c.kind, c.url?.iv ?? null, c.url?.ciphertext ?? null, c.url?.tag ?? null, c.urlHost, c.secret?.iv ?? null, c.secret?.ciphertext ?? null, c.secret?.tag ?? null,
      c.events, c.isDefault, c.fromEnv, now, actor,
    ];
    const res = await this.pool.query(
      `WITH saved AS (INSERT INTO cron_notification_channels (name, kind, url_iv, url_ciphertext, url_tag, url_host, secret_iv, secret_ciphertext, secret_tag,
         events, is_default, from_env, created_at, updated_at, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14)
       ON CONFLICT (name) DO UPDATE SET kind = EXCLUDED.kind, url_iv = EXCLUDED.url_iv, url_ciphertext = EXCLUDED.url_ciphertext,
         url_tag = EXCLUDED.url_tag, url_host = EXCLUDED.url_host, secret_iv = EXCLUDED.secret_iv,
         secret_ciphertext = EXCLUDED.secret_ciphertext, secret_tag = EXCLUDED.secret_tag, events = EXCLUDED.events,
         is_default = EXCLUDED.is_default, from_env = EXCLUDED.from_env, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
       RETURNING ${CHANNEL_COLUMNS})
       ${audit ? `, audit AS (${auditPerRow(params, 'saved', audit, now, { subject: 'saved.name' })})` : ''}
       SELECT * FROM saved`,
      params,
    );
    return rowToChannel(res.rows[0]);
  }

  /** Deletes the channel (its pending deliveries with it), and writes its audit entry when there was one. */
  async delete(name: string, audit: AuditEntryInput, now: Date): Promise<boolean> {
    const params: unknown[] = [name];
    const res = await this.pool.query(
      `WITH gone AS (DELETE FROM cron_notification_channels WHERE name = $1 RETURNING name),
         audit AS (${auditPerRow(params, 'gone', audit, now, { subject: 'gone.name' })})
       SELECT count(*)::int AS deleted FROM gone`,
      params,
    );
    return res.rows[0].deleted > 0;
  }

  /** The names of `names` that exist. */
  async existing(names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const res = await this.pool.query('SELECT name FROM cron_notification_channels WHERE name = ANY($1::text[])', [names]);
    return new Set(res.rows.map((r) => r.name as string));
  }

  /** The keys of the live (not RETIRED) jobs whose `notify` names `name`. */
  async usedBy(name: string): Promise<string[]> {
    const res = await this.pool.query(
      `SELECT job_key FROM cron_job_definitions WHERE status <> ${lit(JobStatus.RETIRED)} AND $1 = ANY (notify) ORDER BY job_key LIMIT 20`,
      [name],
    );
    return res.rows.map((r) => r.job_key as string);
  }
}
