import { auditPerRow } from './audit.js';
import { UNIQUE_VIOLATION, type Pool } from './pool.js';
import { Channel } from './notifier.js';

/** A named API token as stored: never its secret, only the secret's SHA-256 digest (not returned either). */
export interface ApiTokenRow {
  id: string;
  name: string;
  role: 'ADMIN' | 'OPERATOR' | 'VIEWER';
  labelSelector: string | null;
  createdAt: Date;
  createdBy: string;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** createApiToken refused by the database: an unrevoked token has that name. */
export class TokenNameTaken extends Error {
  constructor(readonly tokenName: string) {
    super(`a token named ${tokenName} exists`);
  }
}

const COLUMNS = 'id, name, role, label_selector, created_at, created_by, expires_at, last_used_at, revoked_at';

const date = (v: unknown): Date | null => (v == null ? null : new Date(v as string));

function toRow(r: Record<string, unknown>): ApiTokenRow {
  return {
    id: r.id as string,
    name: r.name as string,
    role: r.role as ApiTokenRow['role'],
    labelSelector: (r.label_selector as string | null) ?? null,
    createdAt: new Date(r.created_at as string),
    createdBy: r.created_by as string,
    expiresAt: date(r.expires_at),
    lastUsedAt: date(r.last_used_at),
    revokedAt: date(r.revoked_at),
  };
}

export interface NewApiToken {
  id: string;
  name: string;
  role: ApiTokenRow['role'];
  labelSelector: string | null;
  secretSha256: Buffer;
  createdBy: string;
  expiresAt: Date | null;
}

/** The SQL of named API tokens (`cron_api_tokens`, migration 20261128010000_api_tokens). */
export class ApiTokenStore {
  constructor(private readonly pool: Pool) {}

  /** Inserts the token and its audit entry (`createApiToken`, its name as subject; never the secret nor its digest), in one statement. */
  async insert(token: NewApiToken, now: Date): Promise<ApiTokenRow> {
    const params: unknown[] = [token.id, token.name, token.role, token.labelSelector, token.secretSha256, now, token.createdBy, token.expiresAt];
    const details = { id: token.id, role: token.role, labelSelector: token.labelSelector, expiresAt: token.expiresAt?.toISOString() ?? null };
    const audit = auditPerRow(params, 'saved', { actor: token.createdBy, action: 'createApiToken', subject: token.name, details }, now);
    try {
      const res = await this.pool.query(
        `WITH saved AS (
           INSERT INTO cron_api_tokens (id, name, role, label_selector, secret_sha256, created_at, created_by, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}
         ), audit AS (${audit})
         SELECT * FROM saved`,
        params,
      );
      return toRow(res.rows[0]);
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === UNIQUE_VIOLATION && e.constraint === 'cron_api_tokens_live_name') throw new TokenNameTaken(token.name);
      throw err;
    }
  }

  /** Every token, revoked ones included (newest first). */
  async list(): Promise<ApiTokenRow[]> {
    const res = await this.pool.query(`SELECT ${COLUMNS} FROM cron_api_tokens ORDER BY created_at DESC, id`);
    return res.rows.map(toRow);
  }

  async get(id: string): Promise<ApiTokenRow | null> {
    const res = await this.pool.query(`SELECT ${COLUMNS} FROM cron_api_tokens WHERE id = $1`, [id]);
    return res.rows[0] ? toRow(res.rows[0]) : null;
  }

  /** The token whose secret has this digest (revoked or expired included), or null. */
  async byDigest(sha256: Buffer): Promise<(ApiTokenRow & { secretSha256: Buffer }) | null> {
    const res = await this.pool.query(`SELECT ${COLUMNS}, secret_sha256 FROM cron_api_tokens WHERE secret_sha256 = $1`, [sha256]);
    const r = res.rows[0];
    return r ? { ...toRow(r), secretSha256: r.secret_sha256 as Buffer } : null;
  }

  /**
   * Revokes the token (once: a revoked token keeps its first revocation) and, in the same
   * statement, writes its audit entry (`revokeApiToken`, when it changed something) and NOTIFYs
   * every instance, delivered when it commits. Null when there is no such token.
   */
  async revoke(id: string, actor: string, now: Date): Promise<ApiTokenRow | null> {
    const params: unknown[] = [id, now, actor, Channel.TOKEN_REVOKED];
    const audit = auditPerRow(params, 'done', { actor, action: 'revokeApiToken', details: { id } }, now, { subject: 'done.name' });
    const res = await this.pool.query(
      `WITH done AS (
         UPDATE cron_api_tokens SET revoked_at = $2, revoked_by = $3 WHERE id = $1 AND revoked_at IS NULL RETURNING id, name
       ), sent AS (SELECT pg_notify($4, id::text) FROM done),
       audit AS (${audit})
       SELECT ${COLUMNS}, (SELECT count(*) FROM sent) AS notified FROM cron_api_tokens WHERE id = $1`,
      params,
    );
    // The outer SELECT sees the row as it was before the UPDATE (one snapshot): the revocation is ours to report.
    const row = res.rows[0];
    if (!row) return null;
    return { ...toRow(row), revokedAt: row.revoked_at ? new Date(row.revoked_at as string) : now };
  }

  /** Of these tokens, the ones revoked or expired by `now`: what a lost notification may have hidden. */
  async endedAmong(ids: readonly string[], now: Date): Promise<string[]> {
    if (ids.length === 0) return [];
    const res = await this.pool.query(
      `SELECT id FROM cron_api_tokens WHERE id = ANY($1::uuid[]) AND (revoked_at IS NOT NULL OR expires_at <= $2)`,
      [ids, now],
    );
    return res.rows.map((r) => r.id as string);
  }

  /**
   * Records when tokens were last used. The database holds "at most once a minute" across
   * instances: a row written less than a minute before is left as it is.
   */
  async touch(uses: readonly { id: string; at: Date }[]): Promise<void> {
    if (uses.length === 0) return;
    await this.pool.query(
      `UPDATE cron_api_tokens t SET last_used_at = u.at
       FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
       WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at <= u.at - interval '1 minute')`,
      [uses.map((u) => u.id), uses.map((u) => u.at)],
    );
  }
}
