import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { runsOf, useCronql } from '../support/cronql.js';

/**
 * The actor's choice of slots across DST changes, driven through the whole runtime (alarm →
 * run store → database) with a controllable clock, minute by minute through the night.
 */
describe('actors follow the DST policy', () => {
  const clock = new ManualClock('2026-03-08T04:00:00.000Z'); // 23:00 EST on 2026-03-07
  const t = useCronql({ clock });

  const walk = async (untilIso: string) => {
    const until = Date.parse(untilIso);
    while (clock.now().getTime() < until) {
      clock.advance(60_000);
      await t.cronql.runtime!.whenIdle();
    }
  };
  const slotsOf = async (jobId: string) =>
    (await runsOf(t.cronql, jobId)).filter((r) => r.triggerType === 'SCHEDULED').map((r) => r.scheduledAt.toISOString());

  it('spring forward in New York: 02:30 fires at 03:30 EDT, the half-hourly cadence loses nothing', async () => {
    const create = (key: string, cronExpression: string) =>
      t.cronql.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression, timezone: 'America/New_York' });
    const fixed = await create('ny-0230', '30 2 * * *');
    const half = await create('ny-half', '*/30 * * * *');
    await walk('2026-03-08T09:00:00.000Z'); // 05:00 EDT
    expect(await slotsOf(fixed.id)).toEqual(['2026-03-08T07:30:00.000Z']); // 03:30 EDT
    expect(await slotsOf(half.id)).toEqual([
      '2026-03-08T04:30:00.000Z', // 23:30 EST
      '2026-03-08T05:00:00.000Z', // 00:00 EST
      '2026-03-08T05:30:00.000Z',
      '2026-03-08T06:00:00.000Z', // 01:00 EST
      '2026-03-08T06:30:00.000Z', // 01:30 EST
      '2026-03-08T07:00:00.000Z', // 03:00 EDT (02:00 does not exist and shifts onto it)
      '2026-03-08T07:30:00.000Z', // 03:30 EDT
      '2026-03-08T08:00:00.000Z',
      '2026-03-08T08:30:00.000Z',
      '2026-03-08T09:00:00.000Z',
    ]);
    await t.cronql.jobs.retire(fixed.id);
    await t.cronql.jobs.retire(half.id);
  });

  it('fall back in New York: a fixed hour fires once, a stepped hour keeps its cadence', async () => {
    clock.set('2026-11-01T03:50:00.000Z'); // 23:50 EDT on 2026-10-31
    const create = (key: string, cronExpression: string) =>
      t.cronql.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression, timezone: 'America/New_York' });
    const fixed = await create('ny-0130', '30 1 * * *');
    const half = await create('ny-half-fall', '*/30 * * * *');
    const hourly = await create('ny-hourly-fall', '0 * * * *');
    await walk('2026-11-01T07:30:00.000Z'); // 02:30 EST
    expect(await slotsOf(fixed.id)).toEqual(['2026-11-01T05:30:00.000Z']); // first 01:30 (EDT) only
    expect(await slotsOf(half.id)).toEqual([
      '2026-11-01T04:00:00.000Z', // 00:00 EDT
      '2026-11-01T04:30:00.000Z',
      '2026-11-01T05:00:00.000Z', // 01:00 EDT
      '2026-11-01T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T06:00:00.000Z', // 01:00 EST
      '2026-11-01T06:30:00.000Z', // 01:30 EST
      '2026-11-01T07:00:00.000Z', // 02:00 EST
      '2026-11-01T07:30:00.000Z',
    ]);
    expect(await slotsOf(hourly.id)).toEqual([
      '2026-11-01T04:00:00.000Z',
      '2026-11-01T05:00:00.000Z', // 01:00 EDT
      '2026-11-01T06:00:00.000Z', // 01:00 EST
      '2026-11-01T07:00:00.000Z',
    ]);
  });
});
