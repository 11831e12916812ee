import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { JobStatus, ScheduleType } from '../../src/domain/enums.js';
import { nextChange, runsOf, terminal, useCronql } from '../support/cronql.js';

/** A recurring job whose expression has a year field ends with its last slot, as a one-time job ends with its run. */
describe('a job whose year field has no slot left retires', () => {
  const clock = new ManualClock('2026-12-30T08:00:00.000Z');
  // Retention off: its first pass comes a real-time fraction of a heartbeat after the start, and
  // one that lands after the jump to 2027 below deletes the first 2026 run (older than 180 days by
  // this clock): on a loaded machine, "1 run, not 2".
  const t = useCronql({ clock, retentionDays: 0 });

  it('stays ACTIVE through its slots, and is RETIRED once the run of its last slot ended', async () => {
    const job = await t.cronql.jobs.create({
      key: 'until-2026',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 0 9 30,31 12 * 2026',
    });
    expect(job.finalSlotAt?.toISOString()).toBe('2026-12-31T09:00:00.000Z');

    const first = nextChange(t.cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set('2026-12-30T09:00:00.000Z');
    expect((await first).run).toMatchObject({ status: 'SUCCEEDED', triggerType: 'SCHEDULED' });
    expect((await t.cronql.jobs.get(job.id))!.status).toBe(JobStatus.ACTIVE);
    expect(t.cronql.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-12-31T09:00:00.000Z');

    const last = nextChange(t.cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set('2026-12-31T09:00:00.000Z');
    expect((await last).run.scheduledAt.toISOString()).toBe('2026-12-31T09:00:00.000Z');
    const retired = (await t.cronql.jobs.get(job.id))!;
    expect(retired.status).toBe(JobStatus.RETIRED);
    expect(t.cronql.jobs.nextRunAt(retired)).toBeNull();

    clock.set('2027-12-31T09:00:00.000Z');
    await t.cronql.runtime!.whenIdle(); // whatever the clock set off has been recorded
    expect(await runsOf(t.cronql, job.id)).toHaveLength(2);
  });

  it('a job without a year field, or with `*`, has no last slot', async () => {
    for (const [key, cronExpression] of [['no-year', '0 9 * * *'], ['any-year', '0 0 9 * * * *']]) {
      const job = await t.cronql.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression });
      expect(job.finalSlotAt ?? null).toBeNull();
      await t.cronql.jobs.retire(job.id);
    }
  });

  it('creating a job whose years are all past is refused, like an expression that never fires', async () => {
    for (const cronExpression of ['0 0 9 1 1 * 2025', '0 0 9 * * * 2010-2025', '0 0 9 30 2 *']) {
      await expect(t.cronql.jobs.create({ key: 'too-late', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression }))
        .rejects.toMatchObject({ code: 'INVALID_CRON_EXPRESSION' });
    }
    // A year ahead, however far, is fine: it has a slot.
    const far = await t.cronql.jobs.create({ key: 'far', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 9 1 1 * 2090' });
    expect(t.cronql.jobs.nextRunAt(far)?.toISOString()).toBe('2090-01-01T09:00:00.000Z');
  });
});
