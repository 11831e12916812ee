import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { CronqlError } from '../../src/errors.js';
import { OverlapPolicy, ScheduleType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, startCronql, testDatabase } from '../support/cronql.js';

/**
 * Concurrency pools (docs/behaviour.md, "Concurrency pools") on two instances of one process: the
 * handlers share this file's memory, so the most runs of a pool in their handlers at once is
 * counted exactly, from the handlers' own entries and exits.
 */
describe('concurrency pools on two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const start = '2026-06-01T00:00:00.500Z';
  const clockA = new ManualClock(start);
  const clockB = new ManualClock(start);
  /** Handlers in flight, by pool, and the most seen at once. */
  const inside = new Map<string, number>();
  const most = new Map<string, number>();
  const held: (() => void)[] = [];
  const targets = {
    // Enters, stays until released (or 100 ms with `{ ms }`), leaves: counted per pool (the payload names it).
    pooled: async (ctx: { payload: unknown }) => {
      const { pool, ms } = (ctx.payload ?? {}) as { pool: string; ms?: number };
      inside.set(pool, (inside.get(pool) ?? 0) + 1);
      most.set(pool, Math.max(most.get(pool) ?? 0, inside.get(pool)!));
      await new Promise<void>((resolve) => (ms ? setTimeout(resolve, ms) : held.push(resolve)));
      inside.set(pool, inside.get(pool)! - 1);
      return {};
    },
  };
  const releaseAll = () => held.splice(0).forEach((r) => r());

  beforeAll(async () => {
    db = await testDatabase();
    [a, b] = await Promise.all([
      startCronql(db.url, { clock: clockA, instanceId: 'pools-a', targets }),
      startCronql(db.url, { clock: clockB, instanceId: 'pools-b', targets }),
    ]);
  });
  afterAll(async () => {
    releaseAll();
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  const job = (key: string, pool: string | null, o: { ms?: number; overlap?: OverlapPolicy; cron?: string } = {}) =>
    a.jobs.create({
      key,
      target: 'pooled',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: o.cron ?? '0 0 1 1 *',
      payload: o.ms ? { pool: pool ?? key, ms: o.ms } : { pool: pool ?? key },
      concurrencyPool: pool,
      overlap: o.overlap,
    } as never);
  const statuses = async (pool: string) =>
    (await a.pool.query(`SELECT status, count(*)::int AS n FROM cron_job_runs WHERE concurrency_pool = $1 GROUP BY status`, [pool])).rows.reduce(
      (m, r) => ({ ...m, [r.status]: r.n }),
      {} as Record<string, number>,
    );

  it('a pool is set, read, refused with bad input, and cannot be deleted while a job names it', async () => {
    for (const limit of [0, -1, 10_001, 1.5, Number.NaN, null, undefined, '3']) {
      await expect(a.pools.set('p-bad', limit)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    for (const name of ['', '-x', 'a b', 'x'.repeat(65), null, 7]) {
      await expect(a.pools.set(name, 1)).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    expect((await a.pools.list()).map((p) => p.name)).toEqual([]);
    await expect(job('orphan', 'nope')).rejects.toMatchObject({ code: 'UNKNOWN_POOL' });
    const set = await a.pools.set('p-admin', 3, 'admin');
    expect(set).toMatchObject({ name: 'p-admin', limit: 3, running: 0, waiting: 0, jobIds: [] });
    const j = await job('admin-1', 'p-admin');
    await expect(a.pools.delete('p-admin')).rejects.toSatisfy((e: CronqlError) => e.code === 'POOL_IN_USE' && /admin-1/.test(e.message));
    expect((await a.pools.list())[0]).toMatchObject({ name: 'p-admin', limit: 3, jobIds: [j.id] });
    await a.jobs.retire(j.id, 'done');
    expect(await a.pools.delete('p-admin')).toBe(true);
    expect(await a.pools.delete('p-admin')).toBe(false);
  });

  it('runs-now on both instances never hold more places than the limit; the rest wait PENDING, oldest first, with waitingFor', async () => {
    await a.pools.set('p-two', 2);
    const jobs = [];
    for (let i = 0; i < 6; i++) jobs.push(await job(`two-${i}`, 'p-two'));
    const made = [];
    for (const [i, j] of jobs.entries()) made.push(await (i % 2 ? b : a).runs.runNow(j.id));
    await eventually(() => held.length === 2);
    expect(await statuses('p-two')).toEqual({ RUNNING: 2, PENDING: 4 });
    const [pool] = await a.pools.getMany(['p-two']);
    expect(pool).toMatchObject({ running: 2, waiting: 4 });
    // Oldest first: the first two runs-now hold the places.
    const running = (await a.pool.query(`SELECT id FROM cron_job_runs WHERE concurrency_pool = 'p-two' AND status = 'RUNNING' ORDER BY id`)).rows.map((r) => r.id);
    expect(running.sort()).toEqual([made[0].id, made[1].id].sort());
    // Each release frees a place, and the next waiting run starts on some instance.
    for (let left = 4; left > 0; left--) {
      held.shift()!();
      await eventually(async () => (await statuses('p-two')).PENDING === left - 1 || (left === 1 && !(await statuses('p-two')).PENDING));
      await eventually(() => held.length === Math.min(2, left + 1) || held.length === 2);
    }
    releaseAll();
    await eventually(async () => (await statuses('p-two')).SUCCEEDED === 6);
    expect(most.get('p-two')).toBe(2);
  });

  it('co-due slots of a pool on two instances: at most the limit at once, every slot run once', async () => {
    await a.pools.set('p-burst', 3);
    const n = 40;
    for (let i = 0; i < n; i++) await job(`burst-${i}`, 'p-burst', { ms: 30, cron: '* * * * * *' });
    await eventually(async () => (await a.pool.query(`SELECT count(*)::int AS n FROM cron_job_runs WHERE concurrency_pool = 'p-burst'`)).rows[0].n === 0);
    const at = new Date(Date.parse(start) + 1_500);
    clockA.set(at);
    clockB.set(at);
    await eventually(async () => (await statuses('p-burst')).SUCCEEDED >= n, 30_000);
    const res = await a.pool.query(
      `SELECT count(*)::int AS runs, count(DISTINCT job_definition_id)::int AS jobs FROM cron_job_runs WHERE concurrency_pool = 'p-burst' AND scheduled_at = $1`,
      [new Date(Date.parse(start) + 500)],
    );
    expect(res.rows[0]).toEqual({ runs: n, jobs: n });
    expect(most.get('p-burst')).toBe(3);
  });

  it('a waiting run is its job\'s active run: a SKIP job\'s next run-now is OVERLAP, a BUFFER_ONE job\'s is buffered', async () => {
    await a.pools.set('p-one', 1);
    const holder = await job('one-holder', 'p-one');
    const skip = await job('one-skip', 'p-one');
    const buffer = await job('one-buffer', 'p-one', { overlap: OverlapPolicy.BUFFER_ONE });
    const before = held.length;
    await a.runs.runNow(holder.id);
    await eventually(() => held.length === before + 1);
    const waiting = await a.runs.runNow(skip.id);
    expect(waiting.status).toBe('PENDING');
    expect(await b.runs.runNow(skip.id)).toMatchObject({ status: 'SKIPPED', failureCode: 'OVERLAP' });
    await a.runs.runNow(buffer.id);
    await a.runs.runNow(buffer.id);
    const lanes = (await a.pool.query(`SELECT lane, status FROM cron_job_runs WHERE job_definition_id = $1 ORDER BY lane`, [buffer.id])).rows;
    expect(lanes).toEqual([{ lane: -1, status: 'PENDING' }, { lane: 0, status: 'PENDING' }]);
    releaseAll();
    // One after another through the pool of one: the holder, the skip job's run, the buffer job's two.
    for (;;) {
      const s = await statuses('p-one');
      if ((s.SUCCEEDED ?? 0) === 4) break;
      releaseAll();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(most.get('p-one')).toBe(1);
  });

  it('a run-now claimed meanwhile another way (the pending-runs duty of a stalled instance) answers RUNNING, not the PENDING it was inserted as', async () => {
    await a.pools.set('p-race', 1);
    const racer = await job('race-holder', 'p-race');
    // Between run-now's insert and its own claim, the other instance claims the run (as its
    // pending-runs duty does with a run left PENDING): run-now's claim then finds nothing to take.
    const own = a.runtime!.claimAndExecute.bind(a.runtime!);
    const spy = vi.spyOn(a.runtime!, 'claimAndExecute').mockImplementationOnce(async (ids) => {
      await b.runtime!.claimAndExecute(ids);
      return own(ids);
    });
    try {
      const made = await a.runs.runNow(racer.id);
      expect(spy).toHaveBeenCalledTimes(1);
      // (On a loaded machine `a`'s own pending-runs duty may have claimed it first: RUNNING all the same.)
      expect(made).toMatchObject({ status: 'RUNNING', runnerInstanceId: expect.stringMatching(/^pools-[ab]$/) });
      const [pool] = await a.pools.getMany(['p-race']);
      expect(pool).toMatchObject({ running: 1, waiting: 0 });
    } finally {
      spy.mockRestore();
      releaseAll();
    }
    await eventually(async () => (await statuses('p-race')).SUCCEEDED === 1);
  });
});
