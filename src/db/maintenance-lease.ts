import type { Pool } from './pool.js';

/**
 * The cluster-wide maintenance lease (table `cron_maintenance_leases`, after River's leader row):
 * one row per lease, its holder and an expiry on the database's clock. Taken when free, expired,
 * or already ours (then renewed), in one statement; true when this instance holds it now.
 */
export async function takeLease(pool: Pool, name: string, holder: string, ms: number): Promise<boolean> {
  const res = await pool.query(
    `INSERT INTO cron_maintenance_leases AS l (name, holder, acquired_at, expires_at)
     VALUES ($1, $2, now(), now() + make_interval(secs => $3::double precision / 1000))
     ON CONFLICT (name) DO UPDATE SET
       holder = excluded.holder,
       acquired_at = CASE WHEN l.holder = excluded.holder THEN l.acquired_at ELSE now() END,
       expires_at = excluded.expires_at
     WHERE l.holder = excluded.holder OR l.expires_at < now()
     RETURNING holder`,
    [name, holder, ms],
  );
  return res.rowCount === 1;
}

/** Gives the lease up (a clean stop): another instance takes it on its next try, not at expiry. */
export async function releaseLease(pool: Pool, name: string, holder: string): Promise<void> {
  await pool.query('DELETE FROM cron_maintenance_leases WHERE name = $1 AND holder = $2', [name, holder]);
}
