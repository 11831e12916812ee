import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { JobStatus, ScheduleType } from '../../src/domain/enums.js';
import { nextChange, runsOf, startCronql, terminal, testDatabase } from '../support/cronql.js';

describe('job lifecycle in the runtime', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  const clock = new ManualClock('2026-06-01T08:00:00.000Z');

  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { clock });
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });

  it('a one-time job fires once at runAt, then the job is RETIRED', async () => {
    const job = await cronql.jobs.create({
      key: 'once',
      target: 'log',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date('2026-06-01T08:00:30.000Z'),
      payload: { message: 'only once' },
    });
    clock.set('2026-06-01T08:00:29.000Z');
    await new Promise((r) => setTimeout(r, 50));
    expect(await runsOf(cronql, job.id)).toHaveLength(0);
    const done = nextChange(cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set('2026-06-01T08:00:30.000Z');
    const { run } = await done;
    expect(run).toMatchObject({ status: 'SUCCEEDED', triggerType: 'SCHEDULED' });
    expect(run.scheduledAt.toISOString()).toBe('2026-06-01T08:00:30.000Z');
    expect((await cronql.jobs.get(job.id))!.status).toBe(JobStatus.RETIRED);
    clock.advance(3_600_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await runsOf(cronql, job.id)).toHaveLength(1);
    expect(cronql.runtime!.nextRunAt(job.id)).toBeNull();
  });

  it('a one-time job whose runAt is just past fires at once', async () => {
    const done = nextChange(cronql, (c) => c.run.jobKey === 'late-once' && terminal(c));
    await cronql.jobs.create({
      key: 'late-once',
      target: 'log',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date(clock.now().getTime() - 10_000),
    });
    expect((await done).run.status).toBe('SUCCEEDED');
  });

  it('pause needs a reason, stops firing; resume arms the next slot after now', async () => {
    const job = await cronql.jobs.create({
      key: 'pausable',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 * * * * *', // every minute, at second 0
    });
    for (const blank of ['', '   ', undefined]) {
      await expect(cronql.jobs.pause(job.id, blank)).rejects.toMatchObject({ code: 'REASON_REQUIRED' });
    }
    const unchanged = await cronql.jobs.get(job.id);
    expect(unchanged).toMatchObject({ status: 'ACTIVE', pauseReason: null });
    expect(unchanged!.updatedAt.getTime()).toBe(job.updatedAt.getTime());

    const paused = await cronql.jobs.pause(job.id, '  upstream outage  ');
    expect(paused).toMatchObject({ status: 'PAUSED', pauseReason: 'upstream outage' });
    expect(cronql.runtime!.nextRunAt(job.id)).toBeNull();
    await expect(cronql.jobs.pause(job.id, 'again')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    clock.advance(5 * 60_000);
    await new Promise((r) => setTimeout(r, 50));
    expect(await runsOf(cronql, job.id)).toHaveLength(0);

    const resumed = await cronql.jobs.resume(job.id);
    expect(resumed).toMatchObject({ status: 'ACTIVE', pauseReason: null });
    await expect(cronql.jobs.resume(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    const now = clock.now();
    const next = cronql.runtime!.nextRunAt(job.id)!;
    expect(next.getTime()).toBeGreaterThan(now.getTime());
    expect(next.getTime() - now.getTime()).toBeLessThanOrEqual(60_000);
    const done = nextChange(cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set(next);
    expect((await done).run.scheduledAt.getTime()).toBe(next.getTime());
  });

  it('a new version retires the old one, swaps the actor, and its runs carry the new snapshot', async () => {
    const v1 = await cronql.jobs.create({
      key: 'versioned',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '*/15 * * * * *',
      payload: { message: 'v1' },
    });
    const v2 = await cronql.jobs.createVersion(v1.id, { payload: { message: 'v2' }, timeoutSeconds: 30 }, 'admin');
    expect(v2).toMatchObject({ jobKey: 'versioned', version: 2, status: 'ACTIVE', cronExpression: '*/15 * * * * *', timeoutSeconds: 30 });
    expect(v2.supersedes?.id).toBe(v1.id);
    expect((await cronql.jobs.get(v1.id))!.status).toBe('RETIRED');
    expect(cronql.runtime!.nextRunAt(v1.id)).toBeNull();
    await expect(cronql.jobs.createVersion(v1.id, {})).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(cronql.jobs.resume(v1.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });

    const done = nextChange(cronql, (c) => c.run.jobKey === 'versioned' && terminal(c));
    clock.set(cronql.runtime!.nextRunAt(v2.id)!);
    const { run } = await done;
    expect(run).toMatchObject({ jobId: v2.id, jobVersion: 2, payloadSnapshot: { message: 'v2' }, output: { message: 'v2' } });
    expect(await runsOf(cronql, v1.id)).toHaveLength(0);
  });

  it('retire is final', async () => {
    const job = await cronql.jobs.create({ key: 'retiree', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *' });
    await cronql.jobs.retire(job.id);
    expect(cronql.runtime!.nextRunAt(job.id)).toBeNull();
    await expect(cronql.jobs.retire(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(cronql.jobs.pause(job.id, 'x')).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(cronql.runs.runNow(job.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });
});
