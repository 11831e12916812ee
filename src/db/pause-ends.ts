import type { Pool } from './pool.js';
import { JOB } from './runs/vocabulary.js';

/**
 * The PAUSED jobs whose pause ends at or before `until` (pauseJob's `until`), soonest first, at
 * most `limit` (a partial index holds exactly these rows).
 */
export async function pausesEndingBy(pool: Pool, until: Date, limit: number): Promise<{ jobId: string; until: Date }[]> {
  const res = await pool.query(
    `SELECT id, paused_until FROM cron_job_definitions
     WHERE status = ${JOB.PAUSED} AND paused_until IS NOT NULL AND paused_until <= $1
     ORDER BY paused_until LIMIT $2`,
    [until, limit],
  );
  return res.rows.map((r) => ({ jobId: r.id as string, until: new Date(r.paused_until as string) }));
}
