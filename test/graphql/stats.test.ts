import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { gql, startApi, type Api } from './support.js';

/** percentile_cont, as PostgreSQL computes it (linear interpolation between ranks). */
function percentile(sorted: number[], p: number): number {
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** `stats` figures equal those computed directly from the rows of a varied, generated history. */
describe('the stats query', () => {
  const now = new Date('2026-06-10T12:00:00.000Z');
  let api: Api;
  interface Row { job: number; status: string; target: string; trigger: string; slotAgoH: number; lateMs: number | null }
  const rows: Row[] = [];

  beforeAll(async () => {
    api = await startApi({ instanceId: 'stats', clock: new ManualClock(now), role: 'api', listen: false });
    const jobs = await api.cronql.pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, pause_reason)
       SELECT gen_random_uuid(), 'stats-' || i, 1, 'log', 'RECURRING', '0 3 * * *', 'PAUSED', 'fixture' FROM generate_series(0, 11) AS i
       ORDER BY i RETURNING id, job_key`,
    );
    const ids = jobs.rows.map((r) => r.id as string);
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let i = 0; i < 600; i++) {
      const status = ['SUCCEEDED', 'SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED'][rand(5)];
      const trigger = ['SCHEDULED', 'SCHEDULED', 'MANUAL', 'AD_HOC'][rand(4)];
      const started = status !== 'SKIPPED';
      rows.push({ job: rand(12), status, target: ['log', 'http', 'sleep'][rand(3)], trigger, slotAgoH: rand(72 * 60) / 60, lateMs: started ? rand(5_000) : null });
    }
    await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, finished_at, created_at, updated_at)
       SELECT gen_random_uuid(), (ARRAY[${ids.map((id) => `'${id}'::uuid`).join(',')}])[r.job + 1], 'stats-' || r.job, 1, r.target, r.trigger,
         r.slot, r.status,
         CASE WHEN r.late IS NULL THEN NULL ELSE r.slot + make_interval(secs => r.late / 1000.0) END,
         w.written, w.written, w.written
       FROM (SELECT * FROM json_to_recordset($1::json) AS x(job int, status text, target text, trigger text, ago float8, late float8, n int)) AS t,
         LATERAL (SELECT t.job, t.status, t.target, t.trigger, $2::timestamptz - make_interval(secs => t.ago * 3600 + t.n / 1000.0) AS slot, t.late, t.n) AS r,
         -- written up to two hours after the slot (a catch-up, a retry): the window goes by the slot
         LATERAL (SELECT least($2::timestamptz, r.slot + make_interval(secs => 7200 - r.n)) AS written) AS w`,
      [JSON.stringify(rows.map((r, n) => ({ job: r.job, status: r.status, target: r.target, trigger: r.trigger, ago: r.slotAgoH, late: r.lateMs, n }))), now],
    );
  });
  afterAll(async () => {
    await api.close();
  });

  it.each([24, 1, 48, 720])('window %i h: every figure matches the rows', async (hours) => {
    const res = await gql<{ stats: Record<string, unknown> }, unknown>(
      api.url,
      `query($w: Int) { stats(window: $w) { total byStatus { status count } byTarget { target runs failures failureRate }
         byTrigger { trigger count } lateness { p50Ms p90Ms p99Ms maxMs } mostFailing { jobKey failures runs } } }`,
      { w: hours },
      api.viewerToken,
    );
    const stats = res.data!.stats as {
      total: number; byStatus: { status: string; count: number }[]; byTarget: { target: string; runs: number; failures: number; failureRate: number }[];
      byTrigger: { trigger: string; count: number }[]; lateness: Record<string, number> | null; mostFailing: { jobKey: string; failures: number; runs: number }[];
    };
    // Each row's slot is `slotAgoH` plus its index in milliseconds before now (slots are unique per job).
    const inWindow = rows.filter((r, n) => r.slotAgoH * 3_600_000 + n <= hours * 3_600_000);
    expect(stats.total).toBe(inWindow.length);
    const count = <K extends keyof Row>(key: K) => {
      const m = new Map<Row[K], number>();
      for (const r of inWindow) m.set(r[key], (m.get(r[key]) ?? 0) + 1);
      return m;
    };
    expect(new Map(stats.byStatus.map((s) => [s.status, s.count]))).toEqual(count('status'));
    expect(new Map(stats.byTrigger.map((s) => [s.trigger, s.count]))).toEqual(count('trigger'));
    for (const t of stats.byTarget) {
      const of = inWindow.filter((r) => r.target === t.target);
      const failures = of.filter((r) => r.status === 'FAILED').length;
      const ended = of.filter((r) => r.status === 'FAILED' || r.status === 'SUCCEEDED').length;
      expect(t).toEqual({ target: t.target, runs: of.length, failures, failureRate: ended ? failures / ended : 0 });
    }
    const late = inWindow.filter((r) => r.trigger === 'SCHEDULED' && r.lateMs !== null).map((r) => r.lateMs!).sort((a, b) => a - b);
    expect(stats.lateness).toEqual({
      p50Ms: Math.round(percentile(late, 0.5)),
      p90Ms: Math.round(percentile(late, 0.9)),
      p99Ms: Math.round(percentile(late, 0.99)),
      maxMs: late[late.length - 1],
    });
    const perJob = new Map<number, { failures: number; runs: number }>();
    for (const r of inWindow) {
      const j = perJob.get(r.job) ?? { failures: 0, runs: 0 };
      j.runs++;
      if (r.status === 'FAILED') j.failures++;
      perJob.set(r.job, j);
    }
    const expected = [...perJob.entries()].filter(([, j]) => j.failures > 0).sort((a, b) => b[1].failures - a[1].failures || b[1].runs - a[1].runs);
    expect(stats.mostFailing.map((f) => f.failures)).toEqual(expected.slice(0, 10).map(([, j]) => j.failures));
    for (const f of stats.mostFailing) expect(perJob.get(Number(f.jobKey.slice('stats-'.length)))).toEqual({ failures: f.failures, runs: f.runs });
  });

  it('refuses a window out of range', async () => {
    for (const w of [0, -1, 721]) {
      const res = await gql(api.url, 'query($w: Int) { stats(window: $w) { total } }', { w }, api.viewerToken);
      expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});
