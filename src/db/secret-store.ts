import { auditPerRow, type AuditEntryInput } from './audit.js';
import type { Pool } from './pool.js';
import { lit } from './sql.js';
import { JobStatus } from '../domain/enums.js';
import type { Sealed } from '../secrets/cipher.js';

/** A secret as listed: never its value. */
export interface SecretRow {
  name: string;
  createdAt: Date;
  updatedAt: Date;
}

const sealedOf = (row: Record<string, unknown>): Sealed => ({ iv: row.iv as Buffer, ciphertext: row.ciphertext as Buffer, tag: row.tag as Buffer });
const toRow = (row: Record<string, unknown>): SecretRow => ({ name: row.name as string, createdAt: new Date(row.created_at as string), updatedAt: new Date(row.updated_at as string) });

/** The SQL of secrets: sealed values in, sealed values out (the service holds the key). */
export class SecretStore {
  constructor(private readonly pool: Pool) {}

  /** The key check written with the first secret, if any. */
  async keyCheck(): Promise<Sealed | null> {
    const res = await this.pool.query('SELECT iv, ciphertext, tag FROM cron_secrets_key_check WHERE id = 1');
    return res.rows[0] ? sealedOf(res.rows[0]) : null;
  }

  /** Writes the key check unless one exists; returns the one stored (ours or an earlier one). */
  async initKeyCheck(check: Sealed): Promise<Sealed> {
    await this.pool.query('INSERT INTO cron_secrets_key_check (id, iv, ciphertext, tag) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING', [
      check.iv,
      check.ciphertext,
      check.tag,
    ]);
    return (await this.keyCheck())!;
  }

  /** Creates or rotates the secret, and its audit entry (never the value), in one statement. */
  async upsert(name: string, sealed: Sealed, actor: string | null, now: Date, audit: AuditEntryInput): Promise<SecretRow> {
    const params: unknown[] = [name, sealed.iv, sealed.ciphertext, sealed.tag, now, actor];
    const res = await this.pool.query(
      `WITH saved AS (
         INSERT INTO cron_secrets (name, iv, ciphertext, tag, created_at, updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $5, $6)
         ON CONFLICT (name) DO UPDATE SET iv = EXCLUDED.iv, ciphertext = EXCLUDED.ciphertext, tag = EXCLUDED.tag,
           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
         RETURNING name, created_at, updated_at
       ), audit AS (${auditPerRow(params, 'saved', audit, now, { subject: 'saved.name' })})
       SELECT * FROM saved`,
      params,
    );
    return toRow(res.rows[0]);
  }

  /** Deletes the secret, and writes its audit entry when there was one; false when there was none. */
  async delete(name: string, audit: AuditEntryInput, now: Date): Promise<boolean> {
    const params: unknown[] = [name];
    const res = await this.pool.query(
      `WITH gone AS (DELETE FROM cron_secrets WHERE name = $1 RETURNING name),
         audit AS (${auditPerRow(params, 'gone', audit, now, { subject: 'gone.name' })})
       SELECT count(*)::int AS deleted FROM gone`,
      params,
    );
    return res.rows[0].deleted > 0;
  }

  async list(): Promise<SecretRow[]> {
    const res = await this.pool.query('SELECT name, created_at, updated_at FROM cron_secrets ORDER BY name');
    return res.rows.map(toRow);
  }

  /** The names of `names` that exist. */
  async existing(names: string[]): Promise<Set<string>> {
    if (names.length === 0) return new Set();
    const res = await this.pool.query('SELECT name FROM cron_secrets WHERE name = ANY($1::text[])', [names]);
    return new Set(res.rows.map((r) => r.name as string));
  }

  /** The sealed values of `names` (missing ones absent). */
  async sealed(names: string[]): Promise<Map<string, Sealed>> {
    if (names.length === 0) return new Map();
    const res = await this.pool.query('SELECT name, iv, ciphertext, tag FROM cron_secrets WHERE name = ANY($1::text[])', [names]);
    return new Map(res.rows.map((r) => [r.name as string, sealedOf(r)]));
  }

  /**
   * The live (not RETIRED) job versions whose payload references each of `names`, by name: one
   * statement over the live jobs (an admin's listing, not a hot path).
   */
  async usedBy(names: string[]): Promise<Map<string, string[]>> {
    const used = new Map<string, string[]>(names.map((n) => [n, []]));
    if (names.length === 0) return used;
    const res = await this.pool.query(
      `SELECT s.name, d.id FROM unnest($1::text[]) AS s(name)
       JOIN cron_job_definitions d ON d.status <> ${lit(JobStatus.RETIRED)} AND d.payload IS NOT NULL
         AND strpos(d.payload::text, '\${secrets.' || s.name || '}') > 0
       ORDER BY s.name, d.job_key`,
      [names],
    );
    for (const r of res.rows) used.get(r.name as string)!.push(r.id as string);
    return used;
  }
}
