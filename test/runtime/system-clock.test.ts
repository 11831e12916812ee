import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { LATER_WAIT_MS, SystemClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { eventually, runsOf, startCronql, testDatabase } from '../support/cronql.js';

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
    // The past alarm on the next turn of the event loop (the clock's immediate, queued before this
    // one); `a` and `b` only when their second comes (at least 1 s on). Not polled: a loaded
    // machine could stall a poll past `a`'s second.
    await new Promise((r) => setImmediate(r));
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
    // Runs of two consecutive seconds, within a generous deadline: on a loaded machine a second
    // may also be SKIPPED (its run overlapped the one before, whose end was not recorded yet) or
    // MISSED (a stall past the grace): recorded, each in its own row, never fired early.
    const runs = await eventually(async () => {
      const succeeded = (await runsOf(cronql, job.id)).filter((r) => r.status === 'SUCCEEDED');
      return succeeded.some((r, i) => i > 0 && r.scheduledAt.getTime() - succeeded[i - 1].scheduledAt.getTime() === 1000) && succeeded;
    }, 30_000);
    for (const r of runs) {
      expect(r.scheduledAt.getMilliseconds()).toBe(0);
      expect(r.startedAt!.getTime()).toBeGreaterThanOrEqual(r.scheduledAt.getTime());
    }
    const slots = (await runsOf(cronql, job.id)).map((r) => r.scheduledAt.getTime());
    expect(slots.every((t) => t % 1000 === 0)).toBe(true);
    expect(new Set(slots).size).toBe(slots.length);
  });

  it('re-arms a job after its slot\'s statement is answered, not while the database records it', async () => {
    // The next slots of a busy second are computed once the fire statements are answered, so
    // the database's backends have the cores meanwhile (clock.ts, `laterAfter`).
    const job = await cronql.jobs.create({ key: 'rearmed-after', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
    const armedWhenAnswered: { slot: number; armed: number | undefined }[] = [];
    const off = cronql.runtimeEvents.on('slotRecorded', (e) => {
      // An answer later than LATER_WAIT_MS after the slot (a loaded machine) may follow the re-arm
      // by design; one sooner cannot: the wait began after the slot.
      if (e.jobId !== job.id || e.kind !== 'claimed' || Date.now() - e.slot.getTime() >= LATER_WAIT_MS) return;
      armedWhenAnswered.push({ slot: e.slot.getTime(), armed: cronql.runtime!.nextRunAt(job.id)?.getTime() });
    });
    try {
      await eventually(() => armedWhenAnswered.length >= 3, 30_000);
    } finally {
      off();
    }
    // At each answer the actor still holds the slot it handed on; it is armed for a later one after.
    for (const a of armedWhenAnswered) expect(a.armed).toBe(a.slot);
    const slots = armedWhenAnswered.map((a) => a.slot);
    expect(slots.every((t, i) => i === 0 || t > slots[i - 1])).toBe(true);
    await cronql.jobs.pause(job.id, 'seen enough');
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

/** Turns of the event loop (the clock's `later` work starts on one). */
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('later work (an actor re-arming after its slot)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs on the next turn of the event loop, in order, when nothing is to be waited for', async () => {
    const clock = new SystemClock();
    const done: string[] = [];
    clock.later(() => done.push('a'));
    clock.later(() => done.push('b'));
    expect(done).toEqual([]);
    await turns(1);
    expect(done).toEqual(['a', 'b']);
    clock.close();
  });

  it('waits until what the alarms started is answered (laterAfter), then runs all of it in order', async () => {
    const clock = new SystemClock();
    let answer!: () => void;
    const asked: number[] = [];
    clock.laterAfter(() => {
      asked.push(1);
      return new Promise<void>((resolve) => (answer = resolve));
    });
    const done: string[] = [];
    clock.later(() => done.push('a'));
    clock.later(() => done.push('b'));
    await turns(5);
    expect(done).toEqual([]);
    // Asked once for the turn's work, not once per callback.
    expect(asked).toEqual([1]);
    answer();
    await turns(1);
    expect(done).toEqual(['a', 'b']);
    // The next turn's work asks again.
    clock.later(() => done.push('c'));
    await turns(2);
    expect(asked).toEqual([1, 1]);
    answer();
    await turns(1);
    expect(done).toEqual(['a', 'b', 'c']);
    clock.close();
  });

  it(`never waits longer than LATER_WAIT_MS (${LATER_WAIT_MS} ms) for a database that does not answer, nor at all for one that failed or threw`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clock = new SystemClock();
    let calls = 0;
    clock.laterAfter(() => {
      calls++;
      if (calls === 1) return new Promise<void>(() => {});
      if (calls === 2) return Promise.reject(new Error('connection lost'));
      throw new Error('no store');
    });
    const done: string[] = [];
    clock.later(() => done.push('held'));
    await turns(2);
    await vi.advanceTimersByTimeAsync(LATER_WAIT_MS - 1);
    expect(done).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toEqual(['held']);
    // A wait that fails is over: the work runs at once.
    clock.later(() => done.push('failed'));
    await turns(2);
    expect(done).toEqual(['held', 'failed']);
    // Nor one that throws.
    clock.later(() => done.push('thrown'));
    await turns(2);
    expect(done).toEqual(['held', 'failed', 'thrown']);
    clock.close();
  });

  it('reports a callback that throws, and runs the others', async () => {
    const errors: unknown[] = [];
    const clock = new SystemClock((err) => errors.push(err));
    clock.laterAfter(() => Promise.resolve());
    const done: string[] = [];
    clock.later(() => {
      throw new Error('boom');
    });
    clock.later(() => done.push('after'));
    await turns(2);
    expect(done).toEqual(['after']);
    expect(errors).toEqual([new Error('boom')]);
    clock.close();
  });
});
