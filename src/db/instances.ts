import { Channel } from './notifier.js';
import type { Pool } from './pool.js';
import { S } from './runs/vocabulary.js';

/** A runtime that records itself alive (table `cron_instances`). */
export interface InstanceRecord {
  id: string;
  role: string;
  host: string | null;
  pid: number | null;
  version: string | null;
  startedAt: Date;
  heartbeatAt: Date;
  /** RUNNING runs the database says it runs. */
  activeRuns: number;
  /** Jobs it arms (its share; recorded with its heartbeat). */
  ownedJobs: number;
}

export interface InstanceIdentity {
  id: string;
  role: string;
  host: string;
  pid: number;
  version: string;
}

/**
 * Records the instance alive, now (database time: instances compare heartbeats on one clock).
 * An upsert, so a beat also brings back a row that was pruned while this instance was cut off.
 */
export async function beat(pool: Pool, me: InstanceIdentity, ownedJobs?: number): Promise<void> {
  await pool.query(
    `INSERT INTO cron_instances (id, role, host, pid, version, started_at, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, now(), now())
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now(), owned_jobs = coalesce($6, cron_instances.owned_jobs)`,
    [me.id, me.role, me.host, me.pid, me.version, ownedJobs ?? null],
  );
}

/**
 * The scheduler instances that arm jobs now: armed (their share loaded) and beating within
 * `lostAfterMs` (judged on the database's clock), ids sorted. `withStarting`: those still starting
 * too — what a starting instance computes its own first share among, so that a fleet starting
 * together does not each load every job.
 */
export async function liveSchedulers(pool: Pool, lostAfterMs: number, withStarting = false): Promise<string[]> {
  const res = await pool.query(
    `SELECT id FROM cron_instances
     WHERE role IN ('all', 'scheduler') AND ($2 OR armed_at IS NOT NULL)
       AND heartbeat_at >= now() - make_interval(secs => $1::double precision / 1000)
     ORDER BY id`,
    [lostAfterMs, withStarting],
  );
  return res.rows.map((r) => r.id as string);
}

/** This instance has loaded its share: it counts among the members from now on (and says how many jobs it holds). */
export async function markArmed(pool: Pool, id: string, ownedJobs: number): Promise<void> {
  await pool.query(
    `WITH armed AS (UPDATE cron_instances SET armed_at = coalesce(armed_at, now()), owned_jobs = $2 WHERE id = $1 RETURNING id)
     SELECT pg_notify('${Channel.MEMBERSHIP}', id) FROM armed`,
    [id, ownedJobs],
  );
}

/** A clean stop: the instance is gone, and none of its runs is left RUNNING. */
export async function removeInstance(pool: Pool, id: string): Promise<void> {
  // The others take its share over at once rather than a heartbeat later.
  await pool.query(`WITH gone AS (DELETE FROM cron_instances WHERE id = $1 RETURNING id) SELECT pg_notify('${Channel.MEMBERSHIP}', id) FROM gone`, [id]);
}

/** Rows of instances silent for longer than `ms` (their runs were settled long before). */
export async function pruneInstances(pool: Pool, ms: number): Promise<number> {
  const res = await pool.query(
    `DELETE FROM cron_instances WHERE heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.status = ${S.RUNNING} AND r.runner_instance_id = cron_instances.id)`,
    [ms],
  );
  return res.rowCount ?? 0;
}

export async function listInstances(pool: Pool): Promise<InstanceRecord[]> {
  const res = await pool.query(
    `SELECT i.id, i.role, i.host, i.pid, i.version, i.started_at, i.heartbeat_at, i.owned_jobs, coalesce(a.n, 0)::int AS active_runs
     FROM cron_instances i
     LEFT JOIN (SELECT runner_instance_id, count(*) AS n FROM cron_job_runs WHERE status = ${S.RUNNING} GROUP BY runner_instance_id) a
       ON a.runner_instance_id = i.id
     ORDER BY i.started_at, i.id`,
  );
  return res.rows.map((r) => ({
    id: r.id,
    role: r.role,
    host: r.host ?? null,
    pid: r.pid ?? null,
    version: r.version ?? null,
    startedAt: new Date(r.started_at),
    heartbeatAt: new Date(r.heartbeat_at),
    activeRuns: Number(r.active_runs),
    ownedJobs: Number(r.owned_jobs ?? 0),
  }));
}
