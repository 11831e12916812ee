import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { createJob, duplicates, runs, useProcessTest } from './support.js';

/**
 * `kill -9` of real cronql processes. With default settings a lost run is settled RUNNER_LOST
 * within 30 s (CRONQL_LOST_AFTER_MS after the runner's last heartbeat), by whichever instance is alive.
 */
describe('a runner killed with SIGKILL', () => {
  const t = useProcessTest();

  it('restarted at once with default settings: the lost run is FAILED RUNNER_LOST within 30 s, and the next slots succeed', async () => {
    const first = await t.spawn({ databaseUrl: t.url, env: { CRONQL_INSTANCE_ID: 'crash-first' } });
    const jobId = await createJob(first, { key: 'crash-sleep', target: 'sleep', cronExpression: '*/5 * * * * *', payload: { ms: 3_000 } });
    const running = await eventually(async () => (await runs(first, { jobId })).find((r) => r.status === 'RUNNING'), 10_000);
    first.kill('SIGKILL');
    const killedAt = Date.now();
    await first.exited;

    const second = await t.spawn({ databaseUrl: t.url, env: { CRONQL_INSTANCE_ID: 'crash-second' } });
    const lost = await eventually(async () => (await runs(second, { jobId })).find((r) => r.id === running.id && r.status !== 'RUNNING'), 35_000);
    const detectedMs = Date.now() - killedAt;
    expect(lost).toMatchObject({ status: 'FAILED', failureCode: 'RUNNER_LOST', runnerInstanceId: 'crash-first' });
    expect(lost.failureDetails).toMatchObject({ runnerInstanceId: 'crash-first', lastHeartbeatAt: expect.any(String) });
    expect(detectedMs).toBeLessThan(30_000);
    console.log(`RUNNER_LOST detected ${detectedMs} ms after kill -9 (defaults: heartbeat 5 s, lost after 30 s)`);

    // The job is not frozen: a later slot runs on the new process and succeeds.
    const later = await eventually(
      async () => (await runs(second, { jobId })).find((r) => r.status === 'SUCCEEDED' && r.scheduledAt > running.scheduledAt),
      15_000,
    );
    expect(later.runnerInstanceId).toBe('crash-second');
    expect(duplicates(await runs(second, { jobId }))).toEqual([]);
  }, 70_000);
});

describe('two instances, one killed while it runs its share of 150 jobs', () => {
  const t = useProcessTest();
  // One replica: each job is armed on one instance, so each runs its own share. (With the default
  // two, both arm every job and race for each slot: one instance's batch can win every slot, and
  // "the runs of the killed instance" may be none.)
  const env = { CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '2000', CRONQL_JOB_REPLICAS: '1' };

  it('the survivor settles the lost runs within seconds and every job succeeds again; no slot twice', async () => {
    const a = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'pair-a' } });
    const b = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'pair-b' } });
    const keys = Array.from({ length: 150 }, (_, i) => `pair-${i}`);
    for (let i = 0; i < keys.length; i += 15) {
      await Promise.all(keys.slice(i, i + 15).map((key) => createJob(a, { key, target: 'sleep', cronExpression: '*/3 * * * * *', payload: { ms: 2_000 } })));
    }
    // Wait for a slot that A runs for some jobs, then kill A while those runs are in flight.
    const aRunning = await eventually(async () => {
      const r = (await runs(b, { status: ['RUNNING'] })).filter((x) => x.runnerInstanceId === 'pair-a');
      return r.length > 0 ? r : null;
    }, 15_000);
    a.kill('SIGKILL');
    const killedAt = Date.now();
    await a.exited;

    await eventually(async () => (await runs(b, { status: ['RUNNING'] })).every((r) => r.runnerInstanceId !== 'pair-a'), 15_000);
    const settledMs = Date.now() - killedAt;
    const all = await runs(b);
    const lostIds = new Set(aRunning.map((r) => r.id));
    expect(all.filter((r) => lostIds.has(r.id)).every((r) => r.status === 'FAILED' && r.failureCode === 'RUNNER_LOST')).toBe(true);
    console.log(`${aRunning.length}+ runs of the killed instance settled ${settledMs} ms after kill -9 (heartbeat 500 ms, lost after 2 s)`);

    // Every job succeeds again on the survivor.
    const since = new Date(Date.now() + 500).toISOString();
    await eventually(async () => {
      const ok = new Set((await runs(b, { status: ['SUCCEEDED'], scheduledAfter: since })).map((r) => r.jobKey));
      return keys.every((k) => ok.has(k));
    }, 20_000);
    expect(duplicates(await runs(b))).toEqual([]);
  }, 70_000);
});

describe('a silent handler whose instance is killed with SIGKILL', () => {
  const t = useProcessTest();

  it('fails HEARTBEAT_TIMEOUT through the heartbeat-timeouts duty of another instance, before its runner would be judged lost', async () => {
    // A's lease lasts 2 s (lost after 3 s, heartbeat 0.5 s); B judges runners lost only after a minute.
    const a = await t.spawn({ databaseUrl: t.url, env: { CRONQL_INSTANCE_ID: 'silent-a', CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '3000' } });
    const jobId = await createJob(a, {
      key: 'silent', target: 'sleep', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 3_600_000).toISOString(),
      payload: { ms: 120_000 }, heartbeatTimeoutSeconds: 6,
    });
    const res = await a.graphql<{ runJobNow: { id: string; status: string; runnerInstanceId: string } }>(
      'mutation($id: ID!) { runJobNow(id: $id) { id status runnerInstanceId } }', { id: jobId });
    const run = res.data!.runJobNow;
    expect(run).toMatchObject({ status: 'RUNNING', runnerInstanceId: 'silent-a' });
    // The `sleep` target never beats: killed well before its own timer (6 s) could end the run.
    a.kill('SIGKILL');
    const killedAt = Date.now();
    await a.exited;

    const b = await t.spawn({ databaseUrl: t.url, env: { CRONQL_INSTANCE_ID: 'silent-b', CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '60000' } });
    const ended = await eventually(async () => (await runs(b, { jobId })).find((r) => r.id === run.id && r.status !== 'RUNNING'), 40_000);
    const detectedMs = Date.now() - killedAt;
    expect(ended).toMatchObject({ status: 'FAILED', failureCode: 'HEARTBEAT_TIMEOUT', runnerInstanceId: 'silent-a' });
    expect(ended.failureDetails).toMatchObject({ heartbeatTimeoutSeconds: 6, runnerInstanceId: 'silent-a', settledBy: 'maintenance', lastBeatAt: expect.any(String) });
    console.log(`HEARTBEAT_TIMEOUT settled ${detectedMs} ms after kill -9 (heartbeatTimeoutSeconds 6, heartbeat 500 ms, the survivor started after the kill)`);
    const metrics = await b.get('/metrics');
    expect(metrics.body).toMatch(/cronql_heartbeat_timeouts_total\{[^}]*settled_by="maintenance"[^}]*\} 1/);
  }, 120_000);
});
