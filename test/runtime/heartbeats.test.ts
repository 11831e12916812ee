import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunChangedDocument, type RunChangedSubscription } from '../../src/client/generated/graphql.js';
import { BackoffKind, RunStatus, ScheduleType } from '../../src/domain/enums.js';
import { isProgress } from '../../src/domain/run.js';
import type { TargetContext } from '../../src/runtime/targets/target.js';
import { eventually, nextChange, recordChanges, startCronql } from '../support/cronql.js';
import { Feed, gql, startApi, wsClient, type Api } from '../graphql/support.js';

/**
 * Progress and heartbeats through the public API, on real PostgreSQL (docs/behaviour.md,
 * "Progress and heartbeats"): a silent handler fails HEARTBEAT_TIMEOUT on its own instance, and
 * through the heartbeat-timeouts duty when its runner is gone; it counts for retries and
 * auto-pause; progress reaches `runChanged` subscribers; writes are throttled (counted by a
 * trigger on the runs table, not timed); the setting is validated in every form.
 */

/** Resolves once the run's signal aborts (a handler that hangs but honours its signal). */
const aborted = (ctx: TargetContext) =>
  new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));

describe('progress and heartbeats', () => {
  let api: Api;
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  const closeGate = () => (gate = new Promise<void>((resolve) => (open = resolve)));
  const entered = new Set<string>();
  /** Runs whose signal aborted (the handler was told to stop). */
  const abortedRuns = new Set<string>();
  /** The metric's value for one target and settler. */
  const timeouts = async (target: string, by: string) => {
    const line = (await api.cronql.metrics.text()).split('\n').find((l) => l.startsWith('cronql_heartbeat_timeouts_total{') && l.includes(`target="${target}"`) && l.includes(`settled_by="${by}"`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };

  beforeAll(async () => {
    api = await startApi({
      instanceId: 'beats',
      heartbeatMs: 500,
      targets: {
        // Reports twice, then goes silent while it "works".
        stalls: async (ctx: TargetContext) => {
          ctx.progress(10, 'downloading');
          ctx.heartbeat();
          ctx.signal.addEventListener('abort', () => abortedRuns.add(ctx.run.id), { once: true });
          await aborted(ctx);
        },
        // 100 reports in a tight loop, then waits for the test, then 100 more and returns.
        burst: async (ctx: TargetContext<{ spread?: number }>) => {
          for (let i = 1; i <= 100; i++) ctx.progress(i / 2, `step ${i}`);
          await gate;
          for (let i = 1; i <= 100; i++) ctx.progress(50 + i / 2, `step ${100 + i}`);
          return { ok: true };
        },
        // Beats every 20 ms for a while.
        steady: async (ctx: TargetContext<{ ms: number }>) => {
          const until = Date.now() + ctx.payload.ms;
          while (Date.now() < until) {
            ctx.heartbeat();
            await new Promise((r) => setTimeout(r, 20));
          }
          return {};
        },
        // Waits for the test, then reports once.
        together: async (ctx: TargetContext) => {
          entered.add(ctx.run.id);
          await gate;
          ctx.progress(33, 'together');
          await gate;
          return {};
        },
      },
    });
    // Every write of a beat the database sees, by run and transaction: what the throttle is about.
    await api.cronql.pool.query(`
      CREATE TABLE test_beat_writes (run_id uuid, tx bigint, progress float8);
      CREATE FUNCTION test_count_beat() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO test_beat_writes VALUES (NEW.id, txid_current(), NEW.progress); RETURN NEW; END $$;
      CREATE TRIGGER test_count_beat AFTER UPDATE ON cron_job_runs FOR EACH ROW
        WHEN (OLD.heartbeat_at IS DISTINCT FROM NEW.heartbeat_at) EXECUTE FUNCTION test_count_beat();`);
  });
  afterAll(() => api?.close());

  const job = (key: string, target: string, more: Record<string, unknown> = {}) =>
    api.cronql.jobs.create({ key, target, scheduleType: ScheduleType.ONE_TIME, runAt: new Date(Date.now() + 3_600_000), ...more });
  const beatWrites = async (runId: string) =>
    (await api.cronql.pool.query('SELECT tx, progress FROM test_beat_writes WHERE run_id = $1', [runId])).rows as { tx: string; progress: number }[];

  it('a handler that stops beating fails HEARTBEAT_TIMEOUT on its instance, its signal aborted, long before its timeout', async () => {
    const j = await job('stalls', 'stalls', { heartbeatTimeoutSeconds: 1, timeoutSeconds: 600 });
    const run = await api.cronql.runs.runNow(j.id);
    const end = await nextChange(api.cronql, (c) => c.run.id === run.id && c.run.status !== RunStatus.RUNNING, 60_000);
    expect(end.run).toMatchObject({ status: 'FAILED', failureCode: 'HEARTBEAT_TIMEOUT', progress: 10, progressMessage: 'downloading' });
    expect(end.run.failureDetails).toMatchObject({ heartbeatTimeoutSeconds: 1, settledBy: 'runner' });
    await eventually(() => abortedRuns.has(run.id), 10_000);
    // Silent for its timeout at least, counted from its last beat; the job's 10-minute timeout never came into it.
    const lastBeat = new Date((end.run.failureDetails as { lastBeatAt: string }).lastBeatAt);
    expect(end.run.heartbeatAt).toEqual(lastBeat);
    expect(end.run.finishedAt!.getTime() - lastBeat.getTime()).toBeGreaterThanOrEqual(1_000);
    expect(end.run.finishedAt!.getTime() - end.run.startedAt!.getTime()).toBeLessThan(600_000);
    expect(await timeouts('stalls', 'runner')).toBe(1);
  });

  it('retries and auto-pause count a heartbeat timeout as a failure', async () => {
    const j = await job('stalls-retried', 'stalls', { heartbeatTimeoutSeconds: 1, retry: { maxAttempts: 2, backoff: BackoffKind.FIXED, delaySeconds: 0 }, pauseAfterFailures: 1 });
    await api.cronql.runs.runNow(j.id);
    const paused = await eventually(async () => {
      const now = (await api.cronql.jobs.get(j.id))!;
      return now.status === 'PAUSED' ? now : null;
    }, 60_000);
    const runs = (await api.cronql.runs.list({ jobId: j.id }, 10)).nodes.sort((a, b) => a.attempt - b.attempt);
    expect(runs.map((r) => [r.attempt, r.status, r.failureCode])).toEqual([
      [1, 'FAILED', 'HEARTBEAT_TIMEOUT'],
      [2, 'FAILED', 'HEARTBEAT_TIMEOUT'],
    ]);
    expect(paused).toMatchObject({ consecutiveFailures: 1, updatedBy: 'cronql' });
    expect(paused.pauseReason).toContain('HEARTBEAT_TIMEOUT');
  });

  it('a run whose runner is gone is failed by the heartbeat-timeouts duty, as an end like any other', async () => {
    const j = await job('orphaned', 'stalls', { heartbeatTimeoutSeconds: 5, pauseAfterFailures: 1 });
    // A run RUNNING on an instance that is no more (killed before it could end it): silent for a minute.
    const { rows } = await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, attempt,
         runner_instance_id, started_at, heartbeat_at, progress, lane, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'orphaned', 1, 'stalls', 'MANUAL', now() - interval '2 minutes', 'RUNNING', 1,
         'gone', now() - interval '2 minutes', now() - interval '1 minute', 70, 0, now() - interval '2 minutes', now() - interval '2 minutes')
       RETURNING id`,
      [j.id],
    );
    const ended = nextChange(api.cronql, (c) => c.run.id === rows[0].id && c.run.status !== RunStatus.RUNNING, 30_000);
    await api.cronql.runtime!.sweep();
    const end = await ended;
    expect(end.run).toMatchObject({ status: 'FAILED', failureCode: 'HEARTBEAT_TIMEOUT', progress: 70, runnerInstanceId: 'gone' });
    expect(end.run.failureDetails).toMatchObject({ heartbeatTimeoutSeconds: 5, runnerInstanceId: 'gone', settledBy: 'maintenance' });
    expect((await api.cronql.jobs.get(j.id))!.status).toBe('PAUSED');
    expect(await timeouts('stalls', 'maintenance')).toBe(1);
  });

  it('a run that beats is left alone by the duty; a job without the setting is never judged', async () => {
    const beating = await job('steady', 'steady', { heartbeatTimeoutSeconds: 2, payload: { ms: 2_500 } });
    const quiet = await job('quiet', 'burst');
    closeGate();
    const runs = [await api.cronql.runs.runNow(beating.id), await api.cronql.runs.runNow(quiet.id)];
    // Sweeps while they run: neither is settled.
    const steady = nextChange(api.cronql, (c) => c.run.id === runs[0].id && c.run.status !== RunStatus.RUNNING, 30_000);
    for (let i = 0; i < 3; i++) await api.cronql.runtime!.sweep();
    expect((await steady).run.status).toBe('SUCCEEDED');
    const quietEnd = nextChange(api.cronql, (c) => c.run.id === runs[1].id && c.run.status !== RunStatus.RUNNING, 30_000);
    open();
    expect((await quietEnd).run.status).toBe('SUCCEEDED');
  });

  it('throttled: 100 reports in a tight loop are one write; the last value of a second is the one kept', async () => {
    const j = await job('burst', 'burst');
    closeGate();
    const changes = recordChanges(api.cronql);
    const run = await api.cronql.runs.runNow(j.id);
    // The first burst's write: its last value, published RUNNING → RUNNING.
    const first = await eventually(() => changes.find((c) => c.run.id === run.id && isProgress(c)), 30_000);
    expect(first.run).toMatchObject({ status: 'RUNNING', progress: 50, progressMessage: 'step 100' });
    expect(await beatWrites(run.id)).toEqual([{ tx: expect.any(String), progress: 50 }]);
    open();
    const end = await nextChange(api.cronql, (c) => c.run.id === run.id && c.run.status === RunStatus.SUCCEEDED, 30_000);
    changes.stop();
    // The second burst came within the second: coalesced into the run's end, which kept its last value.
    expect(end.run).toMatchObject({ progress: 100, progressMessage: 'step 200' });
    expect((await api.cronql.runs.get(run.id))!).toMatchObject({ progress: 100, progressMessage: 'step 200', heartbeatAt: expect.any(Date) });
    const writes = await beatWrites(run.id);
    expect(writes.length).toBeLessThanOrEqual(2);
    expect(writes.at(-1)!.progress).toBe(100);
    expect(changes.filter((c) => c.run.id === run.id && isProgress(c)).length).toBeLessThanOrEqual(2);
  });

  it('a handler beating every 20 ms is written about once a second; co-reporting runs share a statement', async () => {
    const j = await job('steady-2', 'steady', { payload: { ms: 2_500 } });
    const t0 = Date.now();
    const run = await api.cronql.runs.runNow(j.id);
    await nextChange(api.cronql, (c) => c.run.id === run.id && c.run.status === RunStatus.SUCCEEDED, 30_000);
    const seconds = Math.ceil((Date.now() - t0) / 1000);
    const writes = await beatWrites(run.id);
    // ~125 beats: at most one write per started second, plus the one its end may carry.
    expect(writes.length).toBeGreaterThanOrEqual(2);
    expect(writes.length).toBeLessThanOrEqual(seconds + 1);

    const jobs = await Promise.all(Array.from({ length: 8 }, (_, i) => job(`together-${i}`, 'together', { overlap: 'ALLOW', maxConcurrentRuns: 1 })));
    closeGate();
    const started = await Promise.all(jobs.map((x) => api.cronql.runs.runNow(x.id)));
    const ids = started.map((r) => r.id);
    await eventually(() => ids.every((id) => entered.has(id)), 30_000);
    const reported = recordChanges(api.cronql);
    const release = open;
    closeGate();
    release();
    await eventually(() => ids.every((id) => reported.some((c) => c.run.id === id && isProgress(c))), 30_000);
    reported.stop();
    const txs = new Set<string>();
    for (const id of ids) for (const w of await beatWrites(id)) txs.add(w.tx);
    expect(txs.size).toBe(1);
    open();
  });

  it('another instance hears of the progress through the relay, read back from the row', async () => {
    const other = await startCronql(api.cronql.databaseUrl, { instanceId: 'beats-api', role: 'api' });
    try {
      const j = await job('relayed', 'burst');
      closeGate();
      const heard = recordChanges(other);
      const run = await api.cronql.runs.runNow(j.id);
      const change = await eventually(() => heard.find((c) => c.run.id === run.id && isProgress(c)), 30_000);
      expect(change).toMatchObject({ remote: true, previousStatus: 'RUNNING', run: { status: 'RUNNING', progress: 50, progressMessage: 'step 100' } });
      expect(change.changedAt).toEqual(change.run.heartbeatAt);
      open();
      await eventually(() => heard.find((c) => c.run.id === run.id && c.run.status === RunStatus.SUCCEEDED), 30_000);
      heard.stop();
    } finally {
      await other.stop();
    }
  });

  it('progress reaches runChanged subscribers (RUNNING → RUNNING)', async () => {
    const j = await job('followed', 'burst');
    closeGate();
    const client = wsClient(api.wsUrl, api.viewerToken);
    const listeners = api.cronql.events.listenerCount;
    const feed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobId: j.id } });
    try {
      // The subscription is live (its channel listens to run changes) before the run starts: its
      // progress, reported at once, would otherwise come before it on a busy machine.
      await eventually(() => api.cronql.events.listenerCount > listeners, 30_000);
      const run = await api.cronql.runs.runNow(j.id);
      const reported = await feed.waitFor((e) => e.runChanged.run.id === run.id && e.runChanged.previousStatus === 'RUNNING' && e.runChanged.run.status === 'RUNNING', 30_000);
      expect(reported.runChanged.run).toMatchObject({ progress: 50, progressMessage: 'step 100', heartbeatAt: expect.any(String) });
      expect(reported.runChanged.changedAt).toBe(reported.runChanged.run.heartbeatAt);
      open();
      const done = await feed.waitFor((e) => e.runChanged.run.id === run.id && e.runChanged.run.status === 'SUCCEEDED', 30_000);
      expect(done.runChanged.run).toMatchObject({ progress: 100, progressMessage: 'step 200' });
      // The progress is told after the run's RUNNING (when the subscription saw it) and before its end.
      const order = feed.events.filter((e) => e.runChanged.run.id === run.id).map((e) => `${e.runChanged.previousStatus}→${e.runChanged.run.status}`);
      expect(order.filter((o, i) => o !== 'null→PENDING' && o !== order[i - 1])).toEqual([...(order.includes('PENDING→RUNNING') ? ['PENDING→RUNNING'] : []), 'RUNNING→RUNNING', 'RUNNING→SUCCEEDED']);
      expect(feed.errors).toEqual([]);
    } finally {
      feed.close();
      await client.dispose();
    }
  });
});

describe('heartbeatTimeoutSeconds is validated in every form', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ targets: { noop: async () => ({}) } });
  });
  afterAll(() => api?.close());

  const base = { target: 'noop', scheduleType: 'RECURRING', cronExpression: '*/10 * * * *' };
  const create = (input: Record<string, unknown>, form: 'variables' | 'literal') =>
    form === 'variables'
      ? gql<{ createJob: { id: string; heartbeatTimeoutSeconds: number | null } }, unknown>(
          api.url, `mutation($input: CreateJobInput!) { createJob(input: $input) { id heartbeatTimeoutSeconds } }`, { input }, api.adminToken)
      : gql<{ createJob: { id: string; heartbeatTimeoutSeconds: number | null } }, unknown>(
          api.url,
          `mutation { createJob(input: { ${Object.entries(input).map(([k, v]) => `${k}: ${k === 'scheduleType' ? v : JSON.stringify(v)}`).join(', ')} }) { id heartbeatTimeoutSeconds } }`,
          undefined, api.adminToken);
  const count = async () => (await gql<{ jobs: { totalCount: number } }, unknown>(api.url, `{ jobs { totalCount } }`, undefined, api.adminToken)).data!.jobs.totalCount;

  const bad: [string, unknown, string[]][] = [
    ['zero', 0, ['BAD_USER_INPUT']],
    ['negative', -1, ['BAD_USER_INPUT']],
    ['over the cap (7 days)', 604_801, ['BAD_USER_INPUT']],
    ['the largest Int', 2_147_483_647, ['BAD_USER_INPUT']],
    ['a fraction', 1.5, ['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED']],
    ['a string', '30', ['BAD_USER_INPUT', 'GRAPHQL_VALIDATION_FAILED']],
  ];
  for (const [name, value, codes] of bad) {
    for (const form of ['variables', 'literal'] as const) {
      it(`${name} (${form}) is refused, and nothing changes`, async () => {
        const before = await count();
        const res = await create({ key: `bad-${name.replace(/\W+/g, '-')}-${form}`, ...base, heartbeatTimeoutSeconds: value }, form);
        expect(codes, JSON.stringify(res.errors)).toContain(res.errors?.[0]?.extensions?.code);
        expect(await count()).toBe(before);
      });
    }
  }

  it('null and omitted mean none; 1 and 604800 are kept; a new version copies it unless it says null', async () => {
    for (const form of ['variables', 'literal'] as const) {
      expect((await create({ key: `null-${form}`, ...base, heartbeatTimeoutSeconds: null }, form)).data?.createJob.heartbeatTimeoutSeconds).toBeNull();
      expect((await create({ key: `omitted-${form}`, ...base }, form)).data?.createJob.heartbeatTimeoutSeconds).toBeNull();
      expect((await create({ key: `min-${form}`, ...base, heartbeatTimeoutSeconds: 1 }, form)).data?.createJob.heartbeatTimeoutSeconds).toBe(1);
    }
    const made = await create({ key: 'max', ...base, heartbeatTimeoutSeconds: 604_800 }, 'variables');
    expect(made.data?.createJob.heartbeatTimeoutSeconds).toBe(604_800);
    const version = (input: string, id: string) =>
      gql<{ createJobVersion: { id: string; heartbeatTimeoutSeconds: number | null } }, unknown>(
        api.url, `mutation($id: ID!) { createJobVersion(id: $id, input: ${input}) { id heartbeatTimeoutSeconds } }`, { id }, api.adminToken);
    const v2 = await version('{ timeoutSeconds: 60 }', made.data!.createJob.id);
    expect(v2.data?.createJobVersion.heartbeatTimeoutSeconds).toBe(604_800);
    const v3 = await version('{ heartbeatTimeoutSeconds: null }', v2.data!.createJobVersion.id);
    expect(v3.data?.createJobVersion.heartbeatTimeoutSeconds).toBeNull();
  });
});
