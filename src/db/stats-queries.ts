import { RunStatus, TriggerType } from '../domain/enums.js';
import type { Pool } from './pool.js';
import { lit, litList } from './sql.js';
import type { Scope } from '../domain/scope.js';
import { runFilterSql } from './run-queries.js';

/** One grouping of the runs of a window: by status, by target or by trigger (the other two null). */
export interface RunGroupRow {
  status: RunStatus | null;
  target: string | null;
  trigger_type: TriggerType | null;
  n: number;
  failures: number;
  /** SUCCEEDED or FAILED: the failure rate's denominator. */
  ended: number;
}

export interface WindowStatsRows {
  groups: RunGroupRow[];
  /** Lateness (slot or due time → start) of SCHEDULED runs that started, in seconds; null: none. */
  late: { p: number[] | null; mx: number | null } | null;
  failing: { job_definition_id: string; job_key: string; failures: number; runs: number }[];
}

/**
 * The run history of a window (runs scheduled in [since, until]) summed up in two statements,
 * both driven by the index on `scheduled_at`, so the cost follows the window, not the table:
 * counts by status, target and trigger; lateness percentiles; the `mostFailing` jobs failing most.
 */
export async function windowStats(pool: Pool, since: Date, until: Date, mostFailing: number, scope: Scope = null): Promise<WindowStatsRows> {
  const FAILED = lit(RunStatus.FAILED);
  // A scoped caller's stats count its jobs' runs only (domain/scope.ts).
  const groupParams: unknown[] = [since, until];
  const inScopeOfGroups = ['TRUE', ...runFilterSql({ selector: scope }, groupParams)].join(' AND ');
  const extraParams: unknown[] = [since, until, mostFailing];
  const inScopeOfExtra = ['TRUE', ...runFilterSql({ selector: scope }, extraParams)].join(' AND ');
  const [groups, extra] = await Promise.all([
    pool.query(
      `SELECT status, target, trigger_type, count(*)::int AS n, count(*) FILTER (WHERE status = ${FAILED})::int AS failures,
         count(*) FILTER (WHERE status IN (${litList([RunStatus.SUCCEEDED, RunStatus.FAILED])}))::int AS ended
       FROM cron_job_runs WHERE scheduled_at >= $1 AND scheduled_at <= $2 AND ${inScopeOfGroups}
       GROUP BY GROUPING SETS ((status), (target), (trigger_type))`,
      groupParams,
    ),
    pool.query(
      `WITH w AS (SELECT * FROM cron_job_runs WHERE scheduled_at >= $1 AND scheduled_at <= $2 AND ${inScopeOfExtra}),
       late AS (
         SELECT percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - coalesce(due_at, scheduled_at))) AS p,
                max(extract(epoch FROM started_at - coalesce(due_at, scheduled_at))) AS mx
         FROM w WHERE trigger_type = ${lit(TriggerType.SCHEDULED)} AND started_at IS NOT NULL
       ), failing AS (
         SELECT job_definition_id, min(job_key) AS job_key, count(*) FILTER (WHERE status = ${FAILED})::int AS failures, count(*)::int AS runs
         FROM w GROUP BY job_definition_id HAVING count(*) FILTER (WHERE status = ${FAILED}) > 0
         ORDER BY failures DESC, runs DESC, job_definition_id LIMIT $3
       )
       SELECT (SELECT row_to_json(late) FROM late) AS late, (SELECT coalesce(json_agg(failing), '[]') FROM failing) AS failing`,
      extraParams,
    ),
  ]);
  return { groups: groups.rows, late: extra.rows[0].late, failing: extra.rows[0].failing };
}
