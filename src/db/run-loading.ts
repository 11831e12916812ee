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

/**
 * The upstream runs of each of `ids` (DEPENDENCY runs: the runs whose ends created them,
 * `Run.upstreamRuns`), oldest first: one statement for a page of runs.
 */
export async function loadUpstreamRuns(pool: Pool, ids: readonly string[]): Promise<Map<string, RunRecord[]>> {
  const out = new Map<string, RunRecord[]>();
  if (ids.length === 0) return out;
  const res = await pool.query(
    `SELECT l.run_id AS of_run, ${RUN_COLUMNS.split(',').map((c) => `r.${c.trim()}`).join(', ')}
     FROM cron_run_upstreams l JOIN cron_job_runs r ON r.id = l.upstream_run_id
     WHERE l.run_id = ANY($1::uuid[]) ORDER BY l.run_id, r.finished_at, r.id`,
    [ids],
  );
  for (const row of res.rows) {
    const list = out.get(row.of_run as string) ?? [];
    list.push(rowToRun(row));
    out.set(row.of_run as string, list);
  }
  return out;
}
