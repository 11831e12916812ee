import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { SystemClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { eventually, nextChange, runsOf, startCronql, terminal, testDatabase } from '../support/cronql.js';

describe('the real alarm clock (node-cron tick)', () => {
  it('wakes alarms on time and in order, and never wakes a cancelled one', async () => {
    const clock = new SystemClock();
    const fired: string[] = [];
    const base = Math.ceil(Date.now() / 1000) * 1000 + 1000;
    const woke = new Map<string, number>();
    clock.setAlarm(new Date(base + 1000), () => (fired.push('b'), woke.set('b', Date.now())));
    clock.setAlarm(new Date(base), () => (fired.push('a'), woke.set('a', Date.now())));
    const cancelled = clock.setAlarm(new Date(base), () => fired.push('cancelled'));
    cancelled.cancel();
    clock.setAlarm(new Date(Date.now() - 5), () => fired.push('past'));
    // The past alarm at the next tick; `a` and `b` only when their second comes (at least 1 s on).
    await eventually(() => fired.length > 0, 5_000);
    expect(fired).toEqual(['past']);
    await eventually(() => fired.length >= 3, 10_000);
    // Never early (a late wake-up on a loaded machine is not the clock's fault).
    expect(woke.get('a')).toBeGreaterThanOrEqual(base);
    expect(woke.get('b')).toBeGreaterThanOrEqual(base + 1000);
    expect(fired).toEqual(['past', 'a', 'b']);
    clock.close();
  });
});

describe('an alarm callback that throws', () => {
  it('is reported, and the alarms due with it and after it still fire', async () => {
    const errors: unknown[] = [];
    const clock = new SystemClock((err) => errors.push(err));
    const fired: string[] = [];
    const past = new Date(Date.now() - 10);
    clock.setAlarm(past, () => fired.push('before'));
    clock.setAlarm(past, () => {
      throw new Error('boom');
    });
    clock.setAlarm(past, () => fired.push('after'));
    await new Promise((r) => setImmediate(r));
    expect(fired).toEqual(['before', 'after']);
    expect(errors).toEqual([new Error('boom')]);
    // The clock keeps working.
    clock.setAlarm(new Date(Date.now() - 1), () => fired.push('later'));
    await new Promise((r) => setImmediate(r));
    expect(fired).toEqual(['before', 'after', 'later']);
    clock.close();
  });
});

describe('a seconds job on the system clock', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url);
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });

  it('fires every second at the slot, never before it', async () => {
    // How late after its slot a run starts is a speed figure: `npm run bench` (bench/co-due.ts,
    // slot → RUNNING) measures it; on a busy machine any bound here would fail for no fault.
    const job = await cronql.jobs.create({ key: 'every-second', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
    const first = await nextChange(cronql, (c) => c.run.jobId === job.id && c.run.status === 'RUNNING', 3_000);
    await nextChange(cronql, (c) => c.run.jobId === job.id && terminal(c) && c.run.scheduledAt > first.run.scheduledAt, 3_000);
    const runs = (await runsOf(cronql, job.id)).filter((r) => r.status === 'SUCCEEDED');
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const r of runs) {
      expect(r.scheduledAt.getMilliseconds()).toBe(0);
      expect(r.startedAt!.getTime()).toBeGreaterThanOrEqual(r.scheduledAt.getTime());
    }
    expect(runs[1].scheduledAt.getTime() - runs[0].scheduledAt.getTime()).toBe(1000);
  });
});

describe('SystemClock housekeeping', () => {
  it('compacts cancelled far-away alarms instead of keeping them until they are due', async () => {
    const clock = new SystemClock();
    const far = new Date(Date.now() + 365 * 86_400_000);
    const fired: number[] = [];
    const keep = clock.setAlarm(new Date(Date.now() + 300), () => fired.push(1));
    for (let i = 0; i < 5_000; i++) clock.setAlarm(far, () => fired.push(2)).cancel();
    expect((clock as unknown as { size: number }).size).toBeLessThan(1_100);
    await eventually(() => fired.length > 0, 10_000);
    expect(fired).toEqual([1]);
    keep.cancel();
    clock.close();
  });
});
