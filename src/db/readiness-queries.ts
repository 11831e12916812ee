import { FailureCode } from '../domain/enums.js';
import type { Pool } from './pool.js';
import { lit, litList } from './sql.js';

/**
 * Runs lost (their runner vanished or went stale) and slots missed since `since`, across every
 * instance: what /readyz and the `health` query report beside the checks. A partial index on the
 * runs that did not succeed keeps it cheap.
 */
export async function lastHourLosses(pool: Pool, since: Date): Promise<{ lostRuns: number; missedSlots: number }> {
  const res = await pool.query(
    `SELECT count(*) FILTER (WHERE failure_code <> ${lit(FailureCode.MISSED)})::int AS lost,
            count(*) FILTER (WHERE failure_code = ${lit(FailureCode.MISSED)})::int AS missed
     FROM cron_job_runs
     WHERE failure_code IN (${litList([FailureCode.RUNNER_LOST, FailureCode.STALE_TIMEOUT, FailureCode.MISSED])}) AND finished_at > $1`,
    [since],
  );
  return { lostRuns: res.rows[0].lost as number, missedSlots: res.rows[0].missed as number };
}
