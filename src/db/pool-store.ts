import type { Pool } from './pool.js';
import type { PoolRecord } from '../domain/pools.js';
import { Channel } from './notifier.js';
import { auditPerRow, type AuditEntryInput } from './audit.js';
import { JOB, S } from './runs/vocabulary.js';

/** deleteConcurrencyPool refused by the database: a live job names the pool (`jobKey`). */
export class PoolInUse extends Error {
  constructor(readonly pool: string, readonly jobKey: string | null) {
    super(`concurrency pool ${pool} is used by job ${jobKey ?? '?'}`);
  }
}

/** A pool row with what it holds now, and its live jobs' ids. */
export type PoolRow = PoolRecord & { jobIds: string[] };

/**
 * A pool's columns with its RUNNING and waiting counts (due PENDING runs in a lane where runs run:
 * what admission would take) and its live job versions, read through the pools' partial indexes:
 * one statement for every pool, whatever their number ($1: now).
 */
const WITH_COUNTS = (p: string) => `${p}.name, ${p}.run_limit, ${p}.created_at, ${p}.updated_at, ${p}.updated_by,
    (SELECT count(*)::int FROM cron_job_runs r WHERE r.concurrency_pool = ${p}.name AND r.status = ${S.RUNNING}) AS running,
    (SELECT count(*)::int FROM cron_job_runs r WHERE r.concurrency_pool = ${p}.name AND r.status = ${S.PENDING} AND r.lane >= 0
       AND (r.due_at IS NULL OR r.due_at <= $1)) AS waiting,
    (SELECT coalesce(array_agg(d.id ORDER BY d.job_key), '{}') FROM cron_job_definitions d
       WHERE d.status <> ${JOB.RETIRED} AND d.concurrency_pool = ${p}.name) AS job_ids`;

function toRow(r: Record<string, unknown>): PoolRow {
  return {
    name: r.name as string,
    limit: Number(r.run_limit),
    running: Number(r.running ?? 0),
    waiting: Number(r.waiting ?? 0),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
    updatedBy: (r.updated_by as string | null) ?? null,
    jobIds: (r.job_ids as string[] | null) ?? [],
  };
}

/**
 * The SQL of concurrency pools' rows. Who may start is decided by the claim (runs/pool-admission.ts);
 * that a live job names only a pool that exists, by the database (triggers of migration
 * 20261128040000_concurrency_pools).
 */
export class PoolStore {
  constructor(private readonly pool: Pool) {}

  /** Every pool, by name, with its counts at `now`. */
  async list(now: Date): Promise<PoolRow[]> {
    const res = await this.pool.query(`SELECT ${WITH_COUNTS('p')} FROM cron_concurrency_pools p ORDER BY p.name`, [now]);
    return res.rows.map(toRow);
  }

  /** The pools of these names that exist, with their counts at `now`. */
  async getMany(names: readonly string[], now: Date): Promise<PoolRow[]> {
    if (names.length === 0) return [];
    const res = await this.pool.query(`SELECT ${WITH_COUNTS('p')} FROM cron_concurrency_pools p WHERE p.name = ANY($2::text[]) ORDER BY p.name`, [now, names]);
    return res.rows.map(toRow);
  }

  /**
   * Creates the pool, or sets the limit of the one of that name (its creation instant kept). Every
   * runtime is told (POOL_FREED) in the same statement: a raised limit has places for waiting runs.
   */
  async upsert(name: string, limit: number, actor: string | null, now: Date, audit: AuditEntryInput): Promise<PoolRow> {
    const params: unknown[] = [now, name, limit, actor, Channel.POOL_FREED];
    const res = await this.pool.query(
      `WITH saved AS (
         INSERT INTO cron_concurrency_pools (name, run_limit, created_at, updated_at, updated_by) VALUES ($2, $3, $1, $1, $4)
         ON CONFLICT (name) DO UPDATE SET run_limit = EXCLUDED.run_limit, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
         RETURNING *
       ), sent AS (SELECT pg_notify($5, name) FROM saved),
       audit AS (${auditPerRow(params, 'saved', audit, now, { subject: 'saved.name' })})
       SELECT ${WITH_COUNTS('saved')}, (SELECT count(*) FROM sent) AS notified FROM saved`,
      params,
    );
    return toRow(res.rows[0]);
  }

  /**
   * Deletes the pool; false when there was none.
   * @throws PoolInUse when a live (not RETIRED) job names it, whenever that job was written
   */
  async delete(name: string, audit: AuditEntryInput, now: Date): Promise<boolean> {
    try {
      const params: unknown[] = [name];
      const res = await this.pool.query(
        `WITH gone AS (DELETE FROM cron_concurrency_pools WHERE name = $1 RETURNING name, run_limit),
           audit AS (${auditPerRow(params, 'gone', audit, now, { subject: 'gone.name' })})
         SELECT (SELECT count(*) FROM gone)::int AS deleted`,
        params,
      );
      return res.rows[0].deleted > 0;
    } catch (err) {
      const e = err as { code?: string; constraint?: string; detail?: string };
      if (e.code === '23503' && e.constraint === 'cron_concurrency_pools_in_use') throw new PoolInUse(name, e.detail ?? null);
      throw err;
    }
  }
}
