import type { RunRecord } from '../domain/run.js';
import { rowToRun } from './runs/record.js';
import { RUN_COLUMNS } from './runs/vocabulary.js';
import type { Pool } from './pool.js';

/** The runs of `ids` as they are now (ids not found are left out), by primary key. */
export async function loadRuns(pool: Pool, ids: readonly string[]): Promise<RunRecord[]> {
  if (ids.length === 0) return [];
  const res = await pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = ANY($1::uuid[])`, [ids]);
  return res.rows.map(rowToRun);
}
