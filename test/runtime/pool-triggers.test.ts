import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { BackfillState, OverlapPolicy, RunStatus, ScheduleType, TriggerType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, startCronql, testDatabase } from '../support/cronql.js';

/**
 * "Every trigger goes through the pool" (docs/behaviour.md, "Concurrency pools"), for the triggers
 * test/runtime/pools.test.ts does not cover: a retry, a CANCEL_PREVIOUS slot that takes the place
 * of a waiting run, and backfills of several jobs of one pool — on two instances of one process,
 * so the most handlers of a pool inside at once is counted exactly from their own entries and exits.
 */
describe('concurrency pools: retries, CANCEL_PREVIOUS and backfills', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const start = Date.parse('2026-06-01T00:00:00.500Z');
  const clocks = [new ManualClock(new Date(start)), new ManualClock(new Date(start))];
  const setClocks = (ms: number) => clocks.forEach((c) => c.set(new Date(ms)));
  /** Handlers in flight by pool, the most seen at once, and the order runs entered (by run id). */
  const inside = new Map<string, number>();
  const most = new Map<string, number>();
  const entered: string[] = [];
  const held = new Map<string, () => void>();
  /** Called as a `flaky` run's first attempt is inside its handler (before it fails). */
  let onFlakyEntered: () => Promise<void> = async () => {};
  const enter = (pool: string, runId: string) => {
    entered.push(runId);
    inside.set(pool, (inside.get(pool) ?? 0) + 1);
    most.set(pool, Math.max(most.get(pool) ?? 0, inside.get(pool)!));
  };
  const leave = (pool: string) => inside.set(pool, inside.get(pool)! - 1);
  const targets = {
    // Stays inside until released by run id (or `ms` milliseconds), then succeeds.
    pooled: async (ctx: { run: { id: string }; payload: unknown }) => {
      const { pool, ms } = (ctx.payload ?? {}) as { pool: string; ms?: number };
      enter(pool, ctx.run.id);
      await new Promise<void>((resolve) => (ms ? setTimeout(resolve, ms) : held.set(ctx.run.id, resolve)));
      leave(pool);
      return {};
    },
    // Its first attempt fails (after `onFlakyEntered`); later attempts succeed at once.
    flaky: async (ctx: { run: { id: string; attempt: number }; payload: unknown }) => {
      const { pool } = ctx.payload as { pool: string };
      enter(pool, ctx.run.id);
      try {
        if (ctx.run.attempt === 1) {
          await onFlakyEntered();
          throw new Error('first attempt fails');
        }
        return {};
      } finally {
        leave(pool);
      }
    },
  };
  const release = (runId: string) => {
    held.get(runId)?.();
    held.delete(runId);
  };

  beforeAll(async () => {
    db = await testDatabase();
    [a, b] = await Promise.all(
      clocks.map((clock, i) => startCronql(db.url, { clock, instanceId: `pool-triggers-${i}`, targets })),
    );
  });
  afterAll(async () => {
    for (const r of held.values()) r();
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const job = (key: string, pool: string, o: { target?: string; overlap?: OverlapPolicy; cron?: string; retry?: unknown; ms?: number } = {}) =>
    a.jobs.create({
      key,
      target: o.target ?? 'pooled',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: o.cron ?? '0 0 1 1 *',
      payload: o.ms ? { pool, ms: o.ms } : { pool },
      concurrencyPool: pool,
      overlap: o.overlap,
      retry: o.retry,
    } as never);
  const runsOf = async (jobId: string) =>
    (
      await a.pool.query<{ id: string; status: string; attempt: number; failure_code: string | null; scheduled_at: Date; trigger_type: string }>(
        `SELECT id, status, attempt, failure_code, scheduled_at, trigger_type FROM cron_job_runs WHERE job_definition_id = $1 ORDER BY scheduled_at, attempt`,
        [jobId],
      )
    ).rows;

  it('a retry waits for a place like any run: the run already waiting goes first, the retry after, never two at once', async () => {
    await a.pools.set('p-retry', 1);
    const holder = await job('retry-holder', 'p-retry');
    const flaky = await job('retry-flaky', 'p-retry', { target: 'flaky', retry: { maxAttempts: 2, backoff: 'FIXED', delaySeconds: 0 } });
    let holderRun = '';
    // While the first attempt is inside (the pool's one place taken), the holder's run-now waits.
    onFlakyEntered = async () => {
      const run = await b.runs.runNow(holder.id);
      expect(run.status).toBe(RunStatus.PENDING);
      holderRun = run.id;
      // The retry is due at the end of its backoff (none), after the holder's run-now was made.
      setClocks(start + 100);
    };
    const first = await a.runs.runNow(flaky.id);
    // The first attempt failed; its retry is due at once, but the holder waited longer: it has the place.
    await eventually(() => held.has(holderRun));
    const retry = await eventually(async () => (await runsOf(flaky.id)).find((r) => r.attempt === 2));
    expect(retry.status).toBe(RunStatus.PENDING);
    const [waiting] = await a.runs.getMany([retry.id]);
    expect(waiting).toMatchObject({ concurrencyPool: 'p-retry', status: RunStatus.PENDING });
    expect((await a.pools.getMany(['p-retry']))[0]).toMatchObject({ running: 1, waiting: 1 });
    release(holderRun);
    await eventually(async () => (await runsOf(flaky.id)).find((r) => r.attempt === 2 && r.status === RunStatus.SUCCEEDED));
    expect((await runsOf(flaky.id)).map((r) => [r.attempt, r.status])).toEqual([
      [1, RunStatus.FAILED],
      [2, RunStatus.SUCCEEDED],
    ]);
    expect(entered.filter((id) => [first.id, holderRun, retry.id].includes(id))).toEqual([first.id, holderRun, retry.id]);
    expect(most.get('p-retry')).toBe(1);
  });

  it('a CANCEL_PREVIOUS slot cancels its job\'s waiting run and waits in its place; it starts when the place frees', async () => {
    await a.pools.set('p-cancel', 1);
    const holder = await job('cancel-holder', 'p-cancel');
    const replacing = await job('cancel-replacing', 'p-cancel', { overlap: OverlapPolicy.CANCEL_PREVIOUS, cron: '* * * * * *', ms: 5 });
    const holderRun = await a.runs.runNow(holder.id);
    await eventually(() => held.has(holderRun.id));
    // Two slots while the pool is full: the first waits, the second cancels it and waits instead.
    const first = start + 500; // the slot at 00:00:01, on time
    setClocks(first);
    const waiting = await eventually(async () => (await runsOf(replacing.id)).find((r) => r.status === RunStatus.PENDING));
    setClocks(first + 1_000);
    await eventually(async () => {
      const runs = await runsOf(replacing.id);
      return runs.length === 2 && runs[0].status === RunStatus.CANCELED && runs[1].status === RunStatus.PENDING && runs;
    });
    const runs = await runsOf(replacing.id);
    expect(runs[0]).toMatchObject({ id: waiting.id, status: RunStatus.CANCELED, failure_code: 'REPLACED' });
    expect(runs[1].scheduled_at.getTime()).toBe(first + 1_000);
    // The replaced run never entered its handler; the replacing one does once the holder leaves.
    expect(entered).not.toContain(waiting.id);
    release(holderRun.id);
    await eventually(async () => (await runsOf(replacing.id))[1].status === RunStatus.SUCCEEDED);
    expect(entered).toContain(runs[1].id);
    await a.jobs.pause(replacing.id, 'done', 'test');
    expect(most.get('p-cancel')).toBe(1);
  });

  it('backfills of three jobs of one pool run every planned slot once, never more than the limit at once', async () => {
    await a.pools.set('p-backfill', 2);
    const jobs = [];
    for (let i = 0; i < 3; i++) {
      const made = await job(`backfill-${i}`, 'p-backfill', { cron: '0 * * * *', ms: 20 });
      jobs.push(await a.jobs.pause(made.id, 'fixture: only backfills run', 'test'));
    }
    const hour = 3_600_000;
    const from = new Date(Math.floor(start / hour) * hour - 4 * hour);
    const to = new Date(from.getTime() + 3 * hour);
    const backfills = await Promise.all(jobs.map((j, i) => (i % 2 ? b : a).backfills.backfill({ jobId: j.id, from, to, reason: 'pool' }, 'test')));
    for (const bf of backfills) expect(bf.slots).toHaveLength(4);
    await eventually(async () => {
      const states = await Promise.all(backfills.map((bf) => a.backfills.get(bf.id)));
      return states.every((s) => s?.state === BackfillState.DONE);
    }, 30_000);
    for (const j of jobs) {
      const runs = await runsOf(j.id);
      expect(runs.map((r) => [r.trigger_type, r.status])).toEqual(runs.map(() => [TriggerType.BACKFILL, RunStatus.SUCCEEDED]));
      expect(runs.map((r) => r.scheduled_at.getTime())).toEqual([0, 1, 2, 3].map((k) => from.getTime() + k * hour));
    }
    expect(most.get('p-backfill')).toBeLessThanOrEqual(2);
  });
});
