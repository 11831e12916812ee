import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ScheduleType } from '../../src/domain/enums.js';
import type { RunRecord } from '../../src/domain/run.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, runsOf, startCronql, testDatabase, useCronql } from '../support/cronql.js';

/**
 * Calendars in the runtime, driven with the controllable clock through the whole path (alarm →
 * calendar check → run store → database): every excluded slot is a SKIPPED run with code
 * CALENDAR naming the calendar and the rule, every other slot runs.
 */

/** Moves the clock from alarm to alarm up to `until`, letting each turn's writes and runs finish. */
async function walk(cronql: Cronql, clock: ManualClock, untilIso: string): Promise<void> {
  const until = Date.parse(untilIso);
  for (let next = clock.nextAlarmAt; next && next.getTime() <= until; next = clock.nextAlarmAt) {
    clock.set(next);
    await cronql.runtime!.whenIdle();
  }
  clock.set(new Date(until));
  await cronql.runtime!.whenIdle();
}

const scheduled = (runs: RunRecord[]) => runs.filter((r) => r.triggerType === 'SCHEDULED');
const iso = (d: Date) => d.toISOString();

describe('a weekday job with a holiday calendar in New York, over March 2026 (DST starts on the 8th)', () => {
  const clock = new ManualClock('2026-03-01T00:00:00.000Z');
  const t = useCronql({ clock });

  it('every excluded slot is a CALENDAR row, every other weekday ran, at 09:00 local on both sides of the change', async () => {
    await t.cronql.calendars.set({ name: 'nyse', timezone: 'America/New_York', dates: ['2026-03-02', '2026-03-09', '2026-03-20'], yearly: ['03-17'] });
    const job = await t.cronql.jobs.create({
      key: 'weekdays-at-9',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 9 * * 1-5',
      timezone: 'America/New_York',
      calendars: ['nyse'],
    });
    await walk(t.cronql, clock, '2026-04-01T00:00:00.000Z');
    const runs = scheduled(await runsOf(t.cronql, job.id));
    // 22 weekdays in March 2026; 09:00 EST is 14:00Z until the 6th, 09:00 EDT 13:00Z from the 9th.
    expect(runs).toHaveLength(22);
    const excluded = runs.filter((r) => r.failureCode === 'CALENDAR');
    expect(excluded.map((r) => [iso(r.scheduledAt), r.status, r.failureDetails])).toEqual([
      ['2026-03-02T14:00:00.000Z', 'SKIPPED', { calendar: 'nyse', rule: 'date 2026-03-02' }],
      ['2026-03-09T13:00:00.000Z', 'SKIPPED', { calendar: 'nyse', rule: 'date 2026-03-09' }],
      ['2026-03-17T13:00:00.000Z', 'SKIPPED', { calendar: 'nyse', rule: 'yearly 03-17' }],
      ['2026-03-20T13:00:00.000Z', 'SKIPPED', { calendar: 'nyse', rule: 'date 2026-03-20' }],
    ]);
    expect(excluded[0].failureMessage).toBe('skipped: calendar "nyse" excludes this slot (date 2026-03-02)');
    const ran = runs.filter((r) => r.failureCode !== 'CALENDAR');
    expect(ran.every((r) => r.status === 'SUCCEEDED')).toBe(true);
    expect(ran).toHaveLength(18);
    expect(ran.map((r) => iso(r.scheduledAt))).toContain('2026-03-06T14:00:00.000Z');
    expect(ran.map((r) => iso(r.scheduledAt))).toContain('2026-03-10T13:00:00.000Z');
    // Each ran at 09:00 New York time.
    for (const r of runs) {
      const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', weekday: 'short' }).format(r.scheduledAt);
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:00$/);
    }
    await t.cronql.jobs.retire(job.id);
  });

  it('a daily window crossing midnight: the half-hourly slots from 22:00 to 06:00 local are CALENDAR rows', async () => {
    clock.set('2026-04-01T12:00:00.000Z'); // 08:00 EDT
    await t.cronql.calendars.set({ name: 'nights', timezone: 'America/New_York', dailyWindows: [{ start: '22:00', end: '06:00', reason: 'batch window' }] });
    const job = await t.cronql.jobs.create({ key: 'half-hourly', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/30 * * * *', calendars: ['nights'] });
    await walk(t.cronql, clock, '2026-04-02T12:00:00.000Z');
    const runs = scheduled(await runsOf(t.cronql, job.id));
    expect(runs).toHaveLength(48);
    const excluded = runs.filter((r) => r.failureCode === 'CALENDAR').map((r) => iso(r.scheduledAt));
    // 22:00 EDT = 02:00Z; 06:00 EDT = 10:00Z (exclusive).
    expect(excluded).toHaveLength(16);
    expect(excluded[0]).toBe('2026-04-02T02:00:00.000Z');
    expect(excluded[15]).toBe('2026-04-02T09:30:00.000Z');
    expect(runs.find((r) => r.failureCode === 'CALENDAR')!.failureDetails).toEqual({ calendar: 'nights', rule: 'daily 22:00-06:00 (batch window)' });
    expect(runs.filter((r) => r.failureCode !== 'CALENDAR').every((r) => r.status === 'SUCCEEDED')).toBe(true);
    await t.cronql.jobs.retire(job.id);
  });

  it('a long span writes 100 rows, then one summary row standing for the rest — also through a stall (the ledger); the slots after it run', async () => {
    clock.set('2026-04-10T00:00:00.000Z');
    await t.cronql.calendars.set({ name: 'freeze', windows: [{ from: new Date('2026-04-10T01:00:00Z'), to: new Date('2026-04-10T04:00:00Z'), reason: 'release' }] });
    const job = await t.cronql.jobs.create({ key: 'every-minute', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *', calendars: ['freeze'] });
    await walk(t.cronql, clock, '2026-04-10T01:30:30.000Z');
    // The event loop stalls for an hour and a half inside the span: the ledger accounts for the
    // slots it missed, and they are excluded — CALENDAR rows by the same plan, never MISSED, never run.
    clock.jump('2026-04-10T03:00:10.000Z');
    await t.cronql.runtime!.whenIdle();
    await walk(t.cronql, clock, '2026-04-10T04:10:00.000Z');
    const runs = scheduled(await runsOf(t.cronql, job.id));
    const excluded = runs.filter((r) => r.failureCode === 'CALENDAR');
    // 180 excluded slots (01:00–03:59): 100 rows, and the 101st stands for itself and the 79 after it.
    expect(excluded).toHaveLength(101);
    expect(iso(excluded[0].scheduledAt)).toBe('2026-04-10T01:00:00.000Z');
    const summary = excluded[100];
    expect(iso(summary.scheduledAt)).toBe('2026-04-10T02:40:00.000Z');
    expect(summary.failureDetails).toEqual({
      calendar: 'freeze',
      rule: 'window 2026-04-10T01:00:00.000Z/2026-04-10T04:00:00.000Z (release)',
      summary: { count: 80, countIsLowerBound: false, from: '2026-04-10T02:40:00.000Z', to: '2026-04-10T03:59:00.000Z' },
    });
    expect(summary.failureMessage).toContain('this row stands for 80 slots from 2026-04-10T02:40:00.000Z to 2026-04-10T03:59:00.000Z');
    const ran = runs.filter((r) => r.failureCode !== 'CALENDAR').map((r) => iso(r.scheduledAt));
    expect(ran).toHaveLength(59 + 11); // 00:01–00:59, then 04:00–04:10
    expect(ran.slice(-11)[0]).toBe('2026-04-10T04:00:00.000Z');
    expect(runs.filter((r) => r.failureCode === 'MISSED')).toEqual([]);
    await t.cronql.jobs.retire(job.id);
  });
});

describe('a calendar changed while armed on two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const start = '2026-06-01T00:00:30.000Z';
  const clockA = new ManualClock(start);
  const clockB = new ManualClock(start);

  beforeAll(async () => {
    db = await testDatabase();
    [a, b] = await Promise.all([
      startCronql(db.url, { clock: clockA, instanceId: 'cal-a', jobReplicas: 0 }),
      startCronql(db.url, { clock: clockB, instanceId: 'cal-b', jobReplicas: 0 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  /** Both instances reach the minute; each fires what it armed (the slot key keeps one row). */
  const minute = async (n: number) => {
    const at = new Date(Date.parse('2026-06-01T00:00:00.000Z') + n * 60_000);
    clockA.set(at);
    clockB.set(at);
    await Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);
  };
  /** Until both instances have re-read the calendar. */
  const bothRead = (name: string) => {
    const waits = [a, b].map((c) => c.runtimeEvents.next('calendarsChanged', (e) => e.names.includes(name)));
    return {
      done: () => Promise.all(waits.map((w) => w.promise)),
    };
  };

  it('takes effect at the next slot on every instance, and each slot is one row', async () => {
    await a.calendars.set({ name: 'ops', timezone: 'UTC' });
    const job = await a.jobs.create({ key: 'armed-twice', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *', calendars: ['ops'] });
    await eventually(() => a.runtime!.nextRunAt(job.id) && b.runtime!.nextRunAt(job.id));
    await minute(1);
    // A freeze over the next minutes, set on A: B hears of it through the database.
    let read = bothRead('ops');
    await a.calendars.set({ name: 'ops', windows: [{ from: new Date('2026-06-01T00:01:30Z'), to: new Date('2026-06-01T00:03:30Z'), reason: 'incident' }] });
    await read.done();
    await minute(2);
    await minute(3);
    // Lifted from B before it ends: the next slot runs, on both.
    read = bothRead('ops');
    await b.calendars.set({ name: 'ops', windows: [] });
    await read.done();
    await minute(4);
    await eventually(async () => (await runsOf(a, job.id)).every((r) => r.status !== 'RUNNING' && r.status !== 'PENDING'));
    const runs = scheduled(await runsOf(a, job.id));
    expect(runs.map((r) => [iso(r.scheduledAt), r.status, r.failureCode])).toEqual([
      ['2026-06-01T00:01:00.000Z', 'SUCCEEDED', null],
      ['2026-06-01T00:02:00.000Z', 'SKIPPED', 'CALENDAR'],
      ['2026-06-01T00:03:00.000Z', 'SKIPPED', 'CALENDAR'],
      ['2026-06-01T00:04:00.000Z', 'SUCCEEDED', null],
    ]);
    expect(runs[1].failureDetails).toMatchObject({ calendar: 'ops', rule: expect.stringContaining('(incident)') });
  });
});
