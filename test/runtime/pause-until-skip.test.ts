import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { FailureCode, ScheduleType } from '../../src/domain/enums.js';
import type { RuntimeEventMap } from '../../src/runtime/events.js';
import { eventually, runsOf, startCronql, testDatabase } from '../support/cronql.js';

/**
 * pauseJob(until) and skipNextRuns with two runtimes on one database, both arming every job
 * (the default two replicas): the pause ends once, the skips are counted once.
 */
describe('pause until and skip next, two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const T0 = Date.parse('2026-06-01T00:00:00.000Z');
  const clockA = new ManualClock(new Date(T0).toISOString());
  const clockB = new ManualClock(new Date(T0).toISOString());
  /** Both clocks to T0 + `ms`, in alternating order (each instance fires first half the time). */
  const both = (ms: number, flip = false) => {
    const at = new Date(T0 + ms);
    for (const clock of flip ? [clockB, clockA] : [clockA, clockB]) clock.set(at);
  };
  const idle = () => Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);
  const ranAt = (jobId: string, ms: number) => async () =>
    (await runsOf(a, jobId)).some((r) => r.scheduledAt.getTime() === T0 + ms && ['SUCCEEDED', 'SKIPPED'].includes(r.status));

  beforeAll(async () => {
    db = await testDatabase();
    [a, b] = await Promise.all([
      startCronql(db.url, { clock: clockA, instanceId: 'instance-a' }),
      startCronql(db.url, { clock: clockB, instanceId: 'instance-b' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('a pause until an instant ends there once, on one instance; the slot at it runs, the paused span has no rows', async () => {
    const job = await a.jobs.create({ key: 'pause-until', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    await eventually(() => b.runtime!.nextRunAt(job.id));
    const ended: RuntimeEventMap['pauseEnded'][] = [];
    for (const c of [a, b]) c.runtimeEvents.on('pauseEnded', (e) => e.jobId === job.id && ended.push(e));

    const until = new Date(T0 + 30_000);
    const paused = await b.jobs.pause(job.id, 'deploy freeze', 'admin', until);
    expect(paused).toMatchObject({ status: 'PAUSED', pausedUntil: until, pauseReason: 'deploy freeze' });
    await eventually(() => a.runtime!.nextRunAt(job.id) === null && b.runtime!.nextRunAt(job.id) === null);

    both(10_000);
    both(20_000, true);
    await idle();
    expect(await runsOf(a, job.id)).toEqual([]);

    // Both instances have an alarm at `until`: both try, one resumes.
    both(30_000);
    await eventually(ranAt(job.id, 30_000));
    await idle();
    expect(ended).toHaveLength(1);
    expect(ended[0].until).toEqual(until);
    const resumed = (await a.jobs.get(job.id))!;
    expect(resumed).toMatchObject({ status: 'ACTIVE', pausedUntil: null, pauseReason: null, updatedBy: 'cronql', revision: paused.revision + 1 });

    both(40_000, true);
    await eventually(ranAt(job.id, 40_000));
    await idle();
    const runs = await runsOf(a, job.id);
    // 00:10 and 00:20 fell in the pause: no row (the job's pause says why), as for any pause.
    expect(runs.map((r) => [new Date(r.scheduledAt).getTime() - T0, r.status])).toEqual([
      [30_000, 'SUCCEEDED'],
      [40_000, 'SUCCEEDED'],
    ]);
  });

  it('a pause changed before its end is not ended by the old alarm', async () => {
    const job = await a.jobs.create({ key: 'pause-changed', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 * * *' });
    const now = clockA.now().getTime();
    await a.jobs.pause(job.id, 'short', 'admin', new Date(now + 5_000));
    await eventually(() => b.runtime!.nextRunAt(job.id) === null);
    await a.jobs.resume(job.id, 'admin');
    await a.jobs.pause(job.id, 'for good', 'admin');
    await eventually(async () => (await b.jobs.get(job.id))?.pauseReason === 'for good');
    clockA.set(new Date(now + 10_000));
    clockB.set(new Date(now + 10_000));
    await idle();
    expect(await a.jobs.get(job.id)).toMatchObject({ status: 'PAUSED', pauseReason: 'for good', pausedUntil: null });
  });

  it('skipNextRuns records exactly N slots SKIPPED_BY_ADMIN with the reason, then the job runs; two instances still skip N', async () => {
    const start = clockA.now().getTime() - T0;
    const job = await a.jobs.create({ key: 'skip-next', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
    await eventually(() => b.runtime!.nextRunAt(job.id));
    const asked = await b.jobs.skipNext(job.id, 3, 'bank holiday', 'admin');
    expect(asked).toMatchObject({ skipRemaining: 3, skipReason: 'bank holiday' });
    for (let i = 1; i <= 6; i++) {
      both(start + i * 1000, i % 2 === 0);
      await eventually(ranAt(job.id, start + i * 1000));
    }
    await idle();
    const runs = await runsOf(a, job.id);
    expect(runs.map((r) => [r.status, r.failureCode ?? null, r.failureMessage ?? null])).toEqual([
      ['SKIPPED', FailureCode.SKIPPED_BY_ADMIN, 'bank holiday'],
      ['SKIPPED', FailureCode.SKIPPED_BY_ADMIN, 'bank holiday'],
      ['SKIPPED', FailureCode.SKIPPED_BY_ADMIN, 'bank holiday'],
      ['SUCCEEDED', null, null],
      ['SUCCEEDED', null, null],
      ['SUCCEEDED', null, null],
    ]);
    // The count went down with each skip, and the job's definition did not change meanwhile.
    expect(await a.jobs.get(job.id)).toMatchObject({ skipRemaining: 0, revision: asked.revision });
  });

  it('refuses a pause end not in the future and a skip count out of range, changing nothing', async () => {
    const job = await a.jobs.create({ key: 'bad-input', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 * * *' });
    const now = clockA.now();
    for (const until of [now, new Date(now.getTime() - 1), new Date(Number.NaN)]) {
      await expect(a.jobs.pause(job.id, 'r', 'admin', until)).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'until' } });
    }
    for (const count of [-1, 1001, 1.5, Number.NaN, '3', null]) {
      await expect(a.jobs.skipNext(job.id, count, 'r', 'admin')).rejects.toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'count' } });
    }
    await expect(a.jobs.skipNext(job.id, 2, ' ', 'admin')).rejects.toMatchObject({ code: 'REASON_REQUIRED' });
    expect(await a.jobs.get(job.id)).toMatchObject({ status: 'ACTIVE', skipRemaining: 0, revision: job.revision });
  });
});
