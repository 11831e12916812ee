import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { JobStatus, ScheduleType } from '../../src/domain/enums.js';
import { nextChange, runsOf, terminal, useCronql } from '../support/cronql.js';

describe('job lifecycle in the runtime', () => {
  const clock = new ManualClock('2026-06-01T08:00:00.000Z');
  const t = useCronql({ clock });

  it('a one-time job fires once at runAt, then the job is RETIRED', async () => {
    const job = await t.cronql.jobs.create({
      key: 'once',
      target: 'log',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date('2026-06-01T08:00:30.000Z'),
      payload: { message: 'only once' },
    });
    clock.set('2026-06-01T08:00:29.000Z');
    await t.cronql.runtime!.whenIdle(); // whatever the clock set off has been recorded
    expect(await runsOf(t.cronql, job.id)).toHaveLength(0);
    const done = nextChange(t.cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set('2026-06-01T08:00:30.000Z');
    const { run } = await done;
    expect(run).toMatchObject({ status: 'SUCCEEDED', triggerType: 'SCHEDULED' });
    expect(run.scheduledAt.toISOString()).toBe('2026-06-01T08:00:30.000Z');
    expect((await t.cronql.jobs.get(job.id))!.status).toBe(JobStatus.RETIRED);
    clock.advance(3_600_000);
    await t.cronql.runtime!.whenIdle(); // whatever the clock set off has been recorded
    expect(await runsOf(t.cronql, job.id)).toHaveLength(1);
    expect(t.cronql.runtime!.nextRunAt(job.id)).toBeNull();
  });

  it('a one-time job whose runAt is just past fires at once', async () => {
    const done = nextChange(t.cronql, (c) => c.run.jobKey === 'late-once' && terminal(c));
    await t.cronql.jobs.create({
      key: 'late-once',
      target: 'log',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date(clock.now().getTime() - 10_000),
    });
    expect((await done).run.status).toBe('SUCCEEDED');
  });

  it('pause needs a reason, stops firing; resume arms the next slot after now', async () => {
    const job = await t.cronql.jobs.create({
      key: 'pausable',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 * * * * *', // every minute, at second 0
    });
    for (const blank of ['', '   ', undefined]) {
      await expect(t.cronql.jobs.pause(job.id, blank)).rejects.toMatchObject({ code: 'REASON_REQUIRED' });
    }
    const unchanged = await t.cronql.jobs.get(job.id);
    expect(unchanged).toMatchObject({ status: 'ACTIVE', pauseReason: null });
    expect(unchanged!.updatedAt.getTime()).toBe(job.updatedAt.getTime());

    const alarms = clock.pending;
    const paused = await t.cronql.jobs.pause(job.id, '  upstream outage  ');
    // The actor is gone with its alarm (the database would refuse the slot anyway).
    expect(clock.pending).toBe(alarms - 1);
    expect(paused).toMatchObject({ status: 'PAUSED', pauseReason: 'upstream outage' });
    expect(t.cronql.runtime!.nextRunAt(job.id)).toBeNull();
    await expect(t.cronql.jobs.pause(job.id, 'again')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    clock.advance(5 * 60_000);
    await t.cronql.runtime!.whenIdle(); // whatever the clock set off has been recorded
    expect(await runsOf(t.cronql, job.id)).toHaveLength(0);

    const resumed = await t.cronql.jobs.resume(job.id);
    expect(resumed).toMatchObject({ status: 'ACTIVE', pauseReason: null });
    await expect(t.cronql.jobs.resume(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    const now = clock.now();
    const next = t.cronql.runtime!.nextRunAt(job.id)!;
    expect(next.getTime()).toBeGreaterThan(now.getTime());
    expect(next.getTime() - now.getTime()).toBeLessThanOrEqual(60_000);
    const done = nextChange(t.cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set(next);
    expect((await done).run.scheduledAt.getTime()).toBe(next.getTime());
  });

  it('a new version retires the old one, swaps the actor, and its runs carry the new snapshot', async () => {
    const v1 = await t.cronql.jobs.create({
      key: 'versioned',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '*/15 * * * * *',
      payload: { message: 'v1' },
    });
    const v2 = await t.cronql.jobs.createVersion(v1.id, { payload: { message: 'v2' }, timeoutSeconds: 30 }, 'admin');
    expect(v2).toMatchObject({ jobKey: 'versioned', version: 2, status: 'ACTIVE', cronExpression: '*/15 * * * * *', timeoutSeconds: 30 });
    expect(v2.supersedesId).toBe(v1.id);
    expect((await t.cronql.jobs.get(v1.id))!.status).toBe('RETIRED');
    expect(t.cronql.runtime!.nextRunAt(v1.id)).toBeNull();
    await expect(t.cronql.jobs.createVersion(v1.id, {})).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(t.cronql.jobs.resume(v1.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });

    const done = nextChange(t.cronql, (c) => c.run.jobKey === 'versioned' && terminal(c));
    clock.set(t.cronql.runtime!.nextRunAt(v2.id)!);
    const { run } = await done;
    expect(run).toMatchObject({ jobId: v2.id, jobVersion: 2, payloadSnapshot: { message: 'v2' }, output: { message: 'v2' } });
    expect(await runsOf(t.cronql, v1.id)).toHaveLength(0);
  });

  it('retire is final', async () => {
    const job = await t.cronql.jobs.create({ key: 'retiree', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *' });
    await t.cronql.jobs.retire(job.id);
    expect(t.cronql.runtime!.nextRunAt(job.id)).toBeNull();
    await expect(t.cronql.jobs.retire(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(t.cronql.jobs.pause(job.id, 'x')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(t.cronql.runs.runNow(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('a one-time job retires when its scheduled run is canceled', async () => {
    const job = await t.cronql.jobs.create({
      key: 'once-canceled',
      target: 'sleep',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date(clock.now().getTime() + 1_000),
      payload: { ms: 60_000 },
    });
    const running = nextChange(t.cronql, (c) => c.run.jobId === job.id && c.run.status === 'RUNNING');
    clock.advance(1_000);
    const { run } = await running;
    await t.cronql.runs.cancel(run.id);
    expect((await t.cronql.jobs.get(job.id))!.status).toBe('RETIRED');
    expect(t.cronql.jobs.nextRunAt((await t.cronql.jobs.get(job.id))!)).toBeNull();
  });

  it('a one-time job retires when its slot is skipped because a manual run is active', async () => {
    const job = await t.cronql.jobs.create({
      key: 'once-skipped',
      target: 'sleep',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date(clock.now().getTime() + 1_000),
      payload: { ms: 60_000 },
    });
    const manual = await t.cronql.runs.runNow(job.id);
    const skipped = nextChange(t.cronql, (c) => c.run.jobId === job.id && c.run.status === 'SKIPPED');
    clock.advance(1_000);
    expect((await skipped).run).toMatchObject({ triggerType: 'SCHEDULED', failureCode: 'OVERLAP' });
    expect((await t.cronql.jobs.get(job.id))!.status).toBe('RETIRED');
    await t.cronql.runs.cancel(manual.id);
  });
});
