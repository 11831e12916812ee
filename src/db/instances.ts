import type { Pool } from './pool.js';

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
export async function beat(pool: Pool, me: InstanceIdentity): Promise<void> {
  await pool.query(
    `INSERT INTO cron_instances (id, role, host, pid, version, started_at, heartbeat_at)
     VALUES ($1, $2, $3, $4, $5, now(), now())
     ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()`,
    [me.id, me.role, me.host, me.pid, me.version],
  );
}

/** A clean stop: the instance is gone, and none of its runs is left RUNNING. */
export async function removeInstance(pool: Pool, id: string): Promise<void> {
  await pool.query('DELETE FROM cron_instances WHERE id = $1', [id]);
}

/** Rows of instances silent for longer than `ms` (their runs were settled long before). */
export async function pruneInstances(pool: Pool, ms: number): Promise<number> {
  const res = await pool.query(
    `DELETE FROM cron_instances WHERE heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.status = 'RUNNING' AND r.runner_instance_id = cron_instances.id)`,
    [ms],
  );
  return res.rowCount ?? 0;
}

export async function listInstances(pool: Pool): Promise<InstanceRecord[]> {
  const res = await pool.query(
    `SELECT i.id, i.role, i.host, i.pid, i.version, i.started_at, i.heartbeat_at, coalesce(a.n, 0)::int AS active_runs
     FROM cron_instances i
     LEFT JOIN (SELECT runner_instance_id, count(*) AS n FROM cron_job_runs WHERE status = 'RUNNING' GROUP BY runner_instance_id) a
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
  }));
}
