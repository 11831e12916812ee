import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import type { CronqlProcess } from '../support/processes.js';
import { jsonLines, runs, useProcessTest } from './support.js';

/**
 * Concurrency pools with real processes on one database (docs/behaviour.md, "Concurrency pools").
 * The handlers (fixtures/policy-targets.mjs, `slow`) stamp their own entry and exit in a file
 * shared by the processes, so how many ran at once is measured from the handlers' log, whatever
 * the runs table says.
 */
const TARGETS = fileURLToPath(new URL('../fixtures/policy-targets.mjs', import.meta.url));

interface Stamp {
  event: 'start' | 'end' | 'abort';
  runId: string;
  jobKey: string;
  pid: number;
  at: number;
}

const stamps = (file: string): Stamp[] => jsonLines<Stamp>(file);

/** The most handlers inside at once, from their entry and exit stamps (an exit at the same instant as an entry counts first). */
function mostAtOnce(events: Stamp[]): number {
  const sorted = events.filter((e) => e.event !== 'abort').sort((x, y) => x.at - y.at || (x.event === 'end' ? -1 : 1));
  let inside = 0;
  let most = 0;
  for (const e of sorted) {
    inside += e.event === 'start' ? 1 : -1;
    most = Math.max(most, inside);
  }
  return most;
}

async function gql<T>(p: CronqlProcess, query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const res = await p.graphql<T>(query, variables);
  if (!res.data) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

const setPool = (p: CronqlProcess, name: string, limit: number) =>
  gql(p, 'mutation($name: String!, $limit: Int!) { setConcurrencyPool(name: $name, limit: $limit) { name } }', { name, limit });

describe('the pool burst: co-due jobs of one pool on three instances', () => {
  const t = useProcessTest();
  // The burst: 1,000 co-due jobs, a pool of 5, three instances (short handlers keep it to seconds).
  const JOBS = 1_000;
  const LIMIT = 5;
  const HANDLER_MS = 20;

  it(`${JOBS} co-due jobs in a pool of ${LIMIT}: never more than ${LIMIT} handlers at once, each job once`, async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'cronql-pools-')), 'handlers.jsonl');
    const env = { CRONQL_TARGETS: TARGETS, POLICY_LOG: log };
    const [a, b, c] = await Promise.all(['burst-a', 'burst-b', 'burst-c'].map((id) => t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: id } })));
    await setPool(a, 'partner-api', LIMIT);
    // All due at one instant, a few seconds from now (every instance has armed them by then).
    const runAt = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000).toISOString();
    const inputs = Array.from({ length: JOBS }, (_, i) => ({
      key: `burst-${i}`, target: 'slow', scheduleType: 'ONE_TIME', runAt, payload: { ms: HANDLER_MS }, concurrencyPool: 'partner-api',
    }));
    await gql(a, 'mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { id } }', { inputs });

    // While the burst drains, the pool's gauges show it across the cluster (read at scrape time).
    const waitingSeen = await eventually(async () => {
      const m = /cronql_pool_waiting\{pool="partner-api"\} (\d+)/.exec((await b.get('/metrics')).body);
      return m && Number(m[1]) > 0 ? Number(m[1]) : null;
    }, 20_000);
    const running = Number(/cronql_pool_running\{pool="partner-api"\} (\d+)/.exec((await c.get('/metrics')).body)?.[1]);
    expect(running).toBeLessThanOrEqual(LIMIT);

    await eventually(() => stamps(log).filter((e) => e.event === 'end').length === JOBS, 90_000);
    const events = stamps(log);
    const starts = events.filter((e) => e.event === 'start');
    expect(new Set(starts.map((e) => e.jobKey)).size).toBe(JOBS);
    expect(starts.length).toBe(JOBS);
    const most = mostAtOnce(events);
    expect(most).toBe(LIMIT);
    // A handler's exit is logged before its run's end commits: the last ends may still be on their way.
    let succeeded = 0;
    const count = async () => (await gql<{ runs: { totalCount: number } }>(a, 'query { runs(filter: { status: [SUCCEEDED] }, first: 1) { totalCount } }')).runs.totalCount;
    await eventually(async () => (succeeded = await count()) >= JOBS, 30_000).catch(() => {});
    expect(succeeded).toBe(JOBS);
    const byInstance = new Map<number, number>();
    for (const e of starts) byInstance.set(e.pid, (byInstance.get(e.pid) ?? 0) + 1);
    const first = Math.min(...starts.map((e) => e.at));
    const last = Math.max(...events.filter((e) => e.event === 'end').map((e) => e.at));
    console.log(
      `pool burst: ${JOBS} co-due jobs, pool of ${LIMIT}, handlers of ${HANDLER_MS} ms on 3 instances: at most ${most} at once (handlers' log), ` +
        `${last - first} ms from first entry to last exit (ideal ${(JOBS / LIMIT) * HANDLER_MS} ms), ${waitingSeen} waiting seen on /metrics, ` +
        `handlers by process ${JSON.stringify(Object.fromEntries(byInstance))}`,
    );
  }, 150_000);
});

describe('a run waiting in a pool whose instance is killed with SIGKILL', () => {
  const t = useProcessTest();

  it('is not lost: the place the dead instance held frees when its run is settled, and another instance starts the waiting run', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'cronql-pools-')), 'handlers.jsonl');
    const env = { CRONQL_TARGETS: TARGETS, POLICY_LOG: log, CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '2000' };
    // The survivor starts once `a` is dead: with a 2 s lost-after, a live `b` could judge `a` lost
    // while a loaded machine stalls `a` (its place freed, the waiter run at once) before the kill.
    // (`a` never judges its own runs lost: src/db/runs/maintenance.ts, settleLost.)
    const a = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'pool-a' } });
    await setPool(a, 'single', 1);
    const create = async (key: string, ms: number) =>
      (await gql<{ createJob: { id: string } }>(a, 'mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', {
        input: { key, target: 'slow', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', payload: { ms }, concurrencyPool: 'single' },
      })).createJob.id;
    const holder = await create('holder', 120_000);
    const waiter = await create('waiter', 50);
    const runNow = (id: string) =>
      gql<{ runJobNow: { id: string; status: string; waitingFor: string | null; runnerInstanceId: string | null } }>(
        a, 'mutation($id: ID!) { runJobNow(id: $id) { id status waitingFor runnerInstanceId } }', { id },
      );
    const held = (await runNow(holder)).runJobNow;
    expect(held).toMatchObject({ status: 'RUNNING', runnerInstanceId: 'pool-a', waitingFor: null });
    const waiting = (await runNow(waiter)).runJobNow;
    expect(waiting).toMatchObject({ status: 'PENDING', waitingFor: 'pool single: 1/1 running' });
    await eventually(() => stamps(log).some((e) => e.event === 'start' && e.runId === held.id), 10_000);

    a.kill('SIGKILL');
    const killedAt = Date.now();
    await a.exited;
    const b = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'pool-b' } });

    const ran = await eventually(async () => (await runs(b, { jobId: waiter })).find((r) => r.id === waiting.id && r.status === 'SUCCEEDED'), 30_000);
    const startedMs = Date.now() - killedAt;
    expect(ran.runnerInstanceId).toBe('pool-b');
    expect((await runs(b, { jobId: holder })).find((r) => r.id === held.id)).toMatchObject({ status: 'FAILED', failureCode: 'RUNNER_LOST' });
    expect(stamps(log).filter((e) => e.event === 'start' && e.runId === waiting.id)).toHaveLength(1);
    console.log(`a run waiting in a pool of 1 ran on another instance (started after) ${startedMs} ms after kill -9 of the instance holding the place (lost after 2 s)`);
  }, 90_000);
});
