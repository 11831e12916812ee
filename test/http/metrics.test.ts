import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissedReason, ScheduleType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { startApi, type Api } from '../graphql/support.js';

/** Prometheus exposition, line by line: `# HELP`/`# TYPE`, or `name{labels} value`. */
function parse(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/.exec(line);
    if (!m) throw new Error(`not Prometheus exposition: ${JSON.stringify(line)}`);
    samples.set(m[1], Number(m[2]));
  }
  return samples;
}

describe('GET /metrics', () => {
  let api: Api;
  let base: string;
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  beforeAll(async () => {
    api = await startApi({ instanceId: 'metrics', clock }, { metricsToken: 'scrape-me' });
    base = api.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await api.close();
  });

  const scrape = async () => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(await res.text());
  };

  it('needs the metrics token when one is set', async () => {
    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer nope' } })).status).toBe(401);
  });

  it('parses as Prometheus exposition, and its counters move as runs happen', async () => {
    const before = await scrape();
    expect(before.get('cronql_active_actors')).toBe(0);
    expect(before.get('cronql_database_reachable')).toBe(1);
    expect(before.has('cronql_process_cpu_user_seconds_total')).toBe(true);
    expect(before.has('cronql_nodejs_eventloop_lag_p99_seconds')).toBe(true);

    const job = await api.cronql.jobs.create({ key: 'measured', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    clock.set('2026-06-01T12:00:10.000Z');
    await api.cronql.runtime!.whenIdle();
    await api.cronql.runs.runNow(job.id);
    await api.cronql.runtime!.whenIdle();
    clock.jump('2026-06-01T12:00:45.000Z', MissedReason.CLOCK_JUMP); // 20 and 30 missed, 40 runs
    await api.cronql.runtime!.whenIdle();

    const after = await scrape();
    expect(after.get('cronql_active_actors')).toBe(1);
    expect(after.get('cronql_runs_finished_total{status="SUCCEEDED",target="log",trigger="SCHEDULED"}')).toBe(2);
    expect(after.get('cronql_runs_finished_total{status="SUCCEEDED",target="log",trigger="MANUAL"}')).toBe(1);
    expect(after.get('cronql_runs_finished_total{status="SKIPPED",target="log",trigger="SCHEDULED"}')).toBe(2);
    expect(after.get('cronql_slots_missed_total{reason="CLOCK_JUMP"}')).toBe(2);
    expect(after.get('cronql_fire_lateness_seconds_count')).toBe(2);
    expect(after.get('cronql_run_duration_seconds_count{target="log",status="SUCCEEDED"}')).toBe(3);
    expect(after.get('cronql_db_pool_connections{state="total"}')).toBeGreaterThan(0);
    // No per-run or per-job labels: nothing in the exposition names the job.
    expect([...after.keys()].some((k) => k.includes(job.id) || k.includes('measured'))).toBe(false);
  });
});
