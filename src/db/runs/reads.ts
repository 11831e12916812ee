import type { RunStatus } from '../../domain/enums.js';
import type { RunRecord } from '../../domain/run.js';
import type { RunContext } from './context.js';
import { rowToRun } from './record.js';
import { RUN_COLUMNS } from './vocabulary.js';

/** The store's reads of runs by id (the API's pages, filters and stats have queries of their own). */

export async function get(ctx: RunContext, runId: string): Promise<RunRecord | null> {
  const res = await ctx.pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = $1`, [runId]);
  return res.rows[0] ? rowToRun(res.rows[0]) : null;
}

/** The current status of runs (to reconcile runs in flight after lost notifications). */
export async function statuses(ctx: RunContext, runIds: string[]): Promise<Map<string, RunStatus>> {
  if (runIds.length === 0) return new Map();
  const res = await ctx.pool.query('SELECT id, status FROM cron_job_runs WHERE id = ANY($1::uuid[])', [runIds]);
  return new Map(res.rows.map((r) => [r.id as string, r.status as RunStatus]));
}

/** The attempt made after run `runId` (its retry, by `retry_of`), if any: its id and status. */
export async function nextAttempt(ctx: RunContext, runId: string): Promise<{ id: string; status: RunStatus } | null> {
  const res = await ctx.pool.query('SELECT id, status FROM cron_job_runs WHERE retry_of = $1', [runId]);
  return res.rows[0] ? { id: res.rows[0].id as string, status: res.rows[0].status as RunStatus } : null;
}
