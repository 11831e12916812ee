import type { Pool } from '../db/pool.js';
import { CronqlError } from '../errors.js';
import { RunStatus, TriggerType } from '../domain/enums.js';

/** `stats(window)` in hours: at least 1, at most 30 days. */
export const MAX_STATS_WINDOW_HOURS = 720;
const MOST_FAILING = 10;

export interface Stats {
  since: Date;
  until: Date;
  total: number;
  byStatus: { status: RunStatus; count: number }[];
  byTarget: { target: string; runs: number; failures: number; failureRate: number }[];
  byTrigger: { trigger: TriggerType; count: number }[];
  /** Slot → start of SCHEDULED runs that started, in milliseconds; null when there were none. */
  lateness: { p50Ms: number; p90Ms: number; p99Ms: number; maxMs: number } | null;
  mostFailing: { jobId: string; jobKey: string; failures: number; runs: number }[];
}

/**
 * The operational signals (docs/product.md) over a window of run history (runs scheduled in it: a slot in the window, or a run-now made in it): counts by
 * status, target (with the failure rate: FAILED among finished-or-failed runs) and trigger;
 * fire-lateness percentiles; the jobs failing most. Two statements, both driven by the index on
 * `scheduled_at`, so the cost follows the window, not the table.
 */
export async function runStats(pool: Pool, now: Date, windowHours: number | null | undefined): Promise<Stats> {
  const hours = windowHours ?? 24;
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_STATS_WINDOW_HOURS) {
    throw new CronqlError('BAD_USER_INPUT', `window must be a whole number of hours from 1 to ${MAX_STATS_WINDOW_HOURS}`, { field: 'window' });
  }
  const since = new Date(now.getTime() - hours * 3_600_000);
  const [groups, extra] = await Promise.all([
    pool.query(
      `SELECT status, target, trigger_type, count(*)::int AS n, count(*) FILTER (WHERE status = 'FAILED')::int AS failures,
         count(*) FILTER (WHERE status IN ('SUCCEEDED', 'FAILED'))::int AS ended
       FROM cron_job_runs WHERE scheduled_at >= $1 AND scheduled_at <= $2
       GROUP BY GROUPING SETS ((status), (target), (trigger_type))`,
      [since, now],
    ),
    pool.query(
      `WITH w AS (SELECT * FROM cron_job_runs WHERE scheduled_at >= $1 AND scheduled_at <= $2),
       late AS (
         SELECT percentile_cont(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - coalesce(due_at, scheduled_at))) AS p,
                max(extract(epoch FROM started_at - coalesce(due_at, scheduled_at))) AS mx
         FROM w WHERE trigger_type = 'SCHEDULED' AND started_at IS NOT NULL
       ), failing AS (
         SELECT job_definition_id, min(job_key) AS job_key, count(*) FILTER (WHERE status = 'FAILED')::int AS failures, count(*)::int AS runs
         FROM w GROUP BY job_definition_id HAVING count(*) FILTER (WHERE status = 'FAILED') > 0
         ORDER BY failures DESC, runs DESC, job_definition_id LIMIT ${MOST_FAILING}
       )
       SELECT (SELECT row_to_json(late) FROM late) AS late, (SELECT coalesce(json_agg(failing), '[]') FROM failing) AS failing`,
      [since, now],
    ),
  ]);
  const byStatus: Stats['byStatus'] = [];
  const byTarget: Stats['byTarget'] = [];
  const byTrigger: Stats['byTrigger'] = [];
  let total = 0;
  for (const r of groups.rows) {
    if (r.status !== null) {
      byStatus.push({ status: r.status, count: r.n });
      total += r.n;
    } else if (r.target !== null) {
      byTarget.push({ target: r.target, runs: r.n, failures: r.failures, failureRate: r.ended > 0 ? r.failures / r.ended : 0 });
    } else if (r.trigger_type !== null) {
      byTrigger.push({ trigger: r.trigger_type, count: r.n });
    }
  }
  byStatus.sort((a, b) => b.count - a.count || a.status.localeCompare(b.status));
  byTarget.sort((a, b) => b.runs - a.runs || a.target.localeCompare(b.target));
  byTrigger.sort((a, b) => b.count - a.count || a.trigger.localeCompare(b.trigger));
  const late = extra.rows[0].late as { p: number[] | null; mx: number | null } | null;
  const ms = (s: number) => Math.round(s * 1000);
  return {
    since,
    until: now,
    total,
    byStatus,
    byTarget,
    byTrigger,
    lateness: late?.p ? { p50Ms: ms(late.p[0]), p90Ms: ms(late.p[1]), p99Ms: ms(late.p[2]), maxMs: ms(late.mx ?? 0) } : null,
    mostFailing: (extra.rows[0].failing as { job_definition_id: string; job_key: string; failures: number; runs: number }[]).map((f) => ({
      jobId: f.job_definition_id,
      jobKey: f.job_key,
      failures: f.failures,
      runs: f.runs,
    })),
  };
}
