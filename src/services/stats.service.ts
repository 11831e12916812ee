import type { Pool } from '../db/pool.js';
import { windowStats } from '../db/stats-queries.js';
import { CronqlError } from '../errors.js';
import { RunStatus, TriggerType } from '../domain/enums.js';
import { EVERY_JOB, type Scope } from '../domain/scope.js';

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
 * fire-lateness percentiles; the jobs failing most (db/stats-queries.ts). A scoped caller's
 * stats are those of the runs of its jobs (docs/teams.md).
 */
export async function runStats(pool: Pool, now: Date, windowHours: number | null | undefined, scope: Scope = EVERY_JOB): Promise<Stats> {
  const hours = windowHours ?? 24;
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_STATS_WINDOW_HOURS) {
    throw new CronqlError('BAD_USER_INPUT', `window must be a whole number of hours from 1 to ${MAX_STATS_WINDOW_HOURS}`, { field: 'window' });
  }
  const since = new Date(now.getTime() - hours * 3_600_000);
  const { groups, late, failing } = await windowStats(pool, since, now, MOST_FAILING, scope);
  const byStatus: Stats['byStatus'] = [];
  const byTarget: Stats['byTarget'] = [];
  const byTrigger: Stats['byTrigger'] = [];
  let total = 0;
  for (const r of groups) {
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
  const ms = (s: number) => Math.round(s * 1000);
  return {
    since,
    until: now,
    total,
    byStatus,
    byTarget,
    byTrigger,
    lateness: late?.p ? { p50Ms: ms(late.p[0]), p90Ms: ms(late.p[1]), p99Ms: ms(late.p[2]), maxMs: ms(late.mx ?? 0) } : null,
    mostFailing: failing.map((f) => ({
      jobId: f.job_definition_id,
      jobKey: f.job_key,
      failures: f.failures,
      runs: f.runs,
    })),
  };
}
