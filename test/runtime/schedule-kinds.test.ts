import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { JobStatus, ScheduleType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { jitterOffsetMs } from '../../src/schedule/jitter.js';
import type { TargetContext } from '../../src/runtime/targets/target.js';
import { eventually, nextChange, runsOf, startCronql, terminal, testDatabase, useCronql } from '../support/cronql.js';

const MIN = 60_000;
const at = (iso: string) => new Date(iso);

/** Waits for the next ended run of `jobId` after `move` moves the clock. */
async function endedAfter(cronql: Cronql, jobId: string, move: () => void) {
  const ended = nextChange(cronql, (c) => c.run.jobId === jobId && terminal(c), 20_000);
  move();
  return (await ended).run;
}

describe('an INTERVAL job across a DST change, with jitter and a restart', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  const started: Cronql[] = [];
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    for (const c of started) await c.stop();
    await db.drop();
  });

  it('every 45 minutes in absolute time: slots 45 min apart through the spring-forward hour, each started at its jittered instant, the restart missing nothing', async () => {
    // New York springs forward at 2026-03-08 07:00Z (02:00 EST → 03:00 EDT).
    const clock = new ManualClock('2026-03-08T04:50:00Z');
    const first = await startCronql(db.url, { clock, instanceId: 'interval-1' });
    started.push(first);
    const job = await first.jobs.create({
      key: 'every-45', target: 'log', scheduleType: ScheduleType.INTERVAL, every: '45m', anchorAt: at('2026-03-08T05:00:00Z'),
      timezone: 'America/New_York', jitterSeconds: 600,
    });
    const slots = Array.from({ length: 8 }, (_, k) => new Date(Date.parse('2026-03-08T05:00:00Z') + k * 45 * MIN));
    const due = (slot: Date) => new Date(slot.getTime() + jitterOffsetMs(job.id, slot, 600));
    expect(slots.some((s) => jitterOffsetMs(job.id, s, 600) > 0)).toBe(true);

    const fire = async (cronql: Cronql, c: ManualClock, slot: Date) => {
      const run = await endedAfter(cronql, job.id, () => c.set(due(slot)));
      expect(run, slot.toISOString()).toMatchObject({ status: 'SUCCEEDED', triggerType: 'SCHEDULED', scheduledAt: slot });
      expect(run.startedAt?.getTime(), slot.toISOString()).toBe(due(slot).getTime());
    };
    for (const slot of slots.slice(0, 4)) await fire(first, clock, slot);
    await first.stop();

    // Restarted 10 minutes after the 4th slot: the ledger says the slots up to it are recorded,
    // and the next one (after the DST change) is armed from the anchor, not from the restart.
    const clock2 = new ManualClock(new Date(slots[3].getTime() + 10 * MIN));
    const second = await startCronql(db.url, { clock: clock2, instanceId: 'interval-2' });
    started.push(second);
    expect(second.runtime!.nextRunAt(job.id)?.toISOString()).toBe(slots[4].toISOString());
    for (const slot of slots.slice(4)) await fire(second, clock2, slot);

    const runs = await runsOf(second, job.id);
    expect(runs.map((r) => r.scheduledAt.toISOString())).toEqual(slots.map((s) => s.toISOString()));
    const gaps = runs.slice(1).map((r, i) => r.scheduledAt.getTime() - runs[i].scheduledAt.getTime());
    expect(new Set(gaps)).toEqual(new Set([45 * MIN]));
  });
});

describe('an INTERVAL job: catch-up after a restart and retries, as for a cron job', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  const started: Cronql[] = [];
  /** Fails a run's first attempt, succeeds its retry. */
  const targets = { 'flaky-once': async (ctx: TargetContext) => {
    if (ctx.run.attempt === 1) throw Object.assign(new Error('first attempt fails'), { code: 'FLAKY' });
    return { ok: true };
  } };
  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    for (const c of started) await c.stop();
    await db.drop();
  });

  it('down across four slots with catch-up ALL (limit 2): the two newest run, the two before are MISSED, each run retried once — the same rows as a cron job naming the same instants', async () => {
    const T0 = Date.parse('2026-06-01T00:00:00Z');
    const slot = (k: number) => new Date(T0 + k * 10 * MIN);
    // ALLOW: a caught-up slot does not wait for the retry of the one before (under SKIP it is an OVERLAP row, for either kind).
    const policies = { catchUp: 'ALL' as never, catchUpLimit: 2, retry: { maxAttempts: 2, backoff: 'FIXED' as never, delaySeconds: 0 }, overlap: 'ALLOW' as never, maxConcurrentRuns: 2 };
    const clock = new ManualClock(new Date(T0 - MIN).toISOString());
    const first = await startCronql(db.url, { clock, instanceId: 'interval-catch-up-1', targets: targets as never });
    started.push(first);
    const interval = await first.jobs.create({ key: 'every-10-catch-up', target: 'flaky-once', scheduleType: ScheduleType.INTERVAL, every: '10m', anchorAt: slot(0), ...policies });
    const cron = await first.jobs.create({ key: 'cron-10-catch-up', target: 'flaky-once', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * *', ...policies });
    const retried = [interval, cron].map((job) => nextChange(first, (c) => c.run.jobId === job.id && c.run.attempt === 2 && terminal(c), 20_000));
    clock.set(slot(0));
    for (const r of retried) expect((await r).run).toMatchObject({ status: 'SUCCEEDED', scheduledAt: slot(0) });
    await first.stop();

    // Back 5 minutes after the fifth slot: slots 1 to 4 fell while no instance ran.
    const second = await startCronql(db.url, { clock: new ManualClock(new Date(slot(4).getTime() + 5 * MIN).toISOString()), instanceId: 'interval-catch-up-2', targets: targets as never });
    started.push(second);
    const outcome = async (jobId: string) => {
      const runs = (await runsOf(second, jobId)).sort((a, b) => a.scheduledAt.getTime() - b.scheduledAt.getTime() || (a.attempt ?? 1) - (b.attempt ?? 1));
      return runs.map((r) => [r.scheduledAt.toISOString(), r.attempt, r.status, r.failureCode ?? null]);
    };
    const settled = async (jobId: string) => (await outcome(jobId)).filter((r) => r[2] === 'SUCCEEDED').length === 3;
    await eventually(async () => (await settled(interval.id)) && (await settled(cron.id)), 20_000);
    expect(await outcome(interval.id)).toEqual([
      [slot(0).toISOString(), 1, 'FAILED', 'FLAKY'],
      [slot(0).toISOString(), 2, 'SUCCEEDED', null],
      [slot(1).toISOString(), 1, 'SKIPPED', 'MISSED'],
      [slot(2).toISOString(), 1, 'SKIPPED', 'MISSED'],
      [slot(3).toISOString(), 1, 'FAILED', 'FLAKY'],
      [slot(3).toISOString(), 2, 'SUCCEEDED', null],
      [slot(4).toISOString(), 1, 'FAILED', 'FLAKY'],
      [slot(4).toISOString(), 2, 'SUCCEEDED', null],
    ]);
    expect(await outcome(cron.id)).toEqual(await outcome(interval.id));
    expect(second.runtime!.nextRunAt(interval.id)?.toISOString()).toBe(slot(5).toISOString());
  });
});

describe('several expressions, bounds and maxRuns', () => {
  let release: (() => void) | null = null;
  let openAll: () => void = () => {};
  const allHeld = new Promise<void>((r) => (openAll = r));
  const targets = {
    // Holds every run until the test opens them all.
    hold: async () => {
      await allHeld;
      return null;
    },
    // Holds its run until released (when a test asks it to), so that a slot overlaps it.
    gate: async (ctx: TargetContext) => {
      if ((ctx.payload as { hold?: boolean } | null)?.hold && !release) await new Promise<void>((r) => (release = r));
      return null;
    },
  };
  const clock = new ManualClock('2026-03-02T07:59:00Z'); // a Monday
  const t = useCronql({ clock, instanceId: 'schedule-kinds', targets });

  it('two expressions naming the same instant: one run, then the next slot of either', async () => {
    const job = await t.cronql.jobs.create({
      key: 'two-exprs', target: 'log', scheduleType: ScheduleType.RECURRING, timezone: 'Europe/Berlin',
      cronExpressions: ['0 9 * * 1-5', '0 9 * * MON', '30 9 * * MON'],
    });
    const monday = await endedAfter(t.cronql, job.id, () => clock.set('2026-03-02T08:00:00Z'));
    expect(monday.scheduledAt.toISOString()).toBe('2026-03-02T08:00:00.000Z');
    expect(t.cronql.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-03-02T08:30:00.000Z');
    await endedAfter(t.cronql, job.id, () => clock.set('2026-03-02T08:30:00Z'));
    await endedAfter(t.cronql, job.id, () => clock.set('2026-03-03T08:00:00Z'));
    await t.cronql.runtime!.whenIdle();
    expect((await runsOf(t.cronql, job.id)).map((r) => `${r.scheduledAt.toISOString()} ${r.status}`)).toEqual([
      '2026-03-02T08:00:00.000Z SUCCEEDED', '2026-03-02T08:30:00.000Z SUCCEEDED', '2026-03-03T08:00:00.000Z SUCCEEDED',
    ]);
    await t.cronql.jobs.retire(job.id);
  });

  it('startAt and endAt: no slot outside them; the run of the last slot retires the job', async () => {
    const now = clock.now().getTime();
    const job = await t.cronql.jobs.create({
      key: 'bounded', target: 'log', scheduleType: ScheduleType.INTERVAL, every: '1h', anchorAt: new Date(now - 3 * 60 * MIN),
      startAt: new Date(now + 30 * MIN), endAt: new Date(now + 2 * 60 * MIN + 30 * MIN),
    });
    const first = new Date(now + 60 * MIN);
    const last = new Date(now + 2 * 60 * MIN);
    expect(job.finalSlotAt?.toISOString()).toBe(last.toISOString());
    expect(t.cronql.jobs.nextRunAt(job)?.toISOString()).toBe(first.toISOString());
    await endedAfter(t.cronql, job.id, () => clock.set(first));
    expect((await t.cronql.jobs.get(job.id))!.status).toBe(JobStatus.ACTIVE);
    await endedAfter(t.cronql, job.id, () => clock.set(last));
    await eventually(async () => (await t.cronql.jobs.get(job.id))!.status === JobStatus.RETIRED);
    clock.set(new Date(now + 4 * 60 * MIN));
    await t.cronql.runtime!.whenIdle();
    expect((await runsOf(t.cronql, job.id)).map((r) => r.scheduledAt.toISOString())).toEqual([first.toISOString(), last.toISOString()]);
  });

  it('maxRuns counts runs that started, not SKIPPED slots; the job retires with its last run and records no slot after', async () => {
    const start = clock.now().getTime();
    const slot = (k: number) => new Date(Math.ceil(start / 10_000) * 10_000 + k * 10_000);
    const job = await t.cronql.jobs.create({
      key: 'max-runs', target: 'gate', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', maxRuns: 2, payload: { hold: true },
    });
    const running = nextChange(t.cronql, (c) => c.run.jobId === job.id && c.run.status === 'RUNNING', 20_000);
    clock.set(slot(1));
    await running;
    // Slot 2 overlaps the held run: SKIPPED, and it does not count.
    const skipped = await endedAfter(t.cronql, job.id, () => clock.set(slot(2)));
    expect(skipped).toMatchObject({ status: 'SKIPPED', failureCode: 'OVERLAP' });
    await endedAfter(t.cronql, job.id, () => release!());
    expect((await t.cronql.jobs.get(job.id))!.status).toBe(JobStatus.ACTIVE);
    await endedAfter(t.cronql, job.id, () => clock.set(slot(3)));
    await eventually(async () => (await t.cronql.jobs.get(job.id))!.status === JobStatus.RETIRED);
    clock.set(slot(5));
    await t.cronql.runtime!.whenIdle();
    expect((await runsOf(t.cronql, job.id)).map((r) => r.status)).toEqual(['SUCCEEDED', 'SKIPPED', 'SUCCEEDED']);
  });

  it('maxRuns holds while its runs are still running (ALLOW): the database records no slot past it', async () => {
    const start = clock.now().getTime();
    const slot = (k: number) => new Date(Math.ceil(start / 10_000) * 10_000 + k * 10_000);
    const job = await t.cronql.jobs.create({
      key: 'max-runs-allow', target: 'hold', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', maxRuns: 2,
      overlap: 'ALLOW' as never, maxConcurrentRuns: 5,
    });
    for (const k of [1, 2]) {
      const running = nextChange(t.cronql, (c) => c.run.jobId === job.id && c.run.status === 'RUNNING', 20_000);
      clock.set(slot(k));
      await running;
    }
    // Two runs started and still running: the third slot is refused by the statement that records it.
    const third = new Promise<string>((resolve) => {
      const off = t.cronql.runtimeEvents.on('slotRecorded', (e) => {
        if (e.jobId !== job.id) return;
        off();
        resolve(e.kind);
      });
    });
    clock.set(slot(3));
    expect(await third).toBe('taken');
    expect((await runsOf(t.cronql, job.id)).map((r) => r.status)).toEqual(['RUNNING', 'RUNNING']);
    openAll();
    await eventually(async () => (await t.cronql.jobs.get(job.id))!.status === JobStatus.RETIRED);
    expect((await runsOf(t.cronql, job.id)).map((r) => `${r.scheduledAt.toISOString()} ${r.status}`)).toEqual([
      `${slot(1).toISOString()} SUCCEEDED`, `${slot(2).toISOString()} SUCCEEDED`,
    ]);
  });

  it('a job resumed after its endAt has no slot left: it retires', async () => {
    const now = clock.now().getTime();
    const job = await t.cronql.jobs.create({
      key: 'resumed-late', target: 'log', scheduleType: ScheduleType.INTERVAL, every: '1h', endAt: new Date(now + 90 * MIN),
    });
    await t.cronql.jobs.pause(job.id, 'holiday');
    clock.set(new Date(now + 3 * 60 * MIN));
    await t.cronql.jobs.resume(job.id);
    await eventually(async () => (await t.cronql.jobs.get(job.id))!.status === JobStatus.RETIRED);
  });
});

describe('a job\'s misfire grace', () => {
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  const t = useCronql({ clock, instanceId: 'grace-test', misfireGraceMs: 10_000 });

  it('decides what is MISSED after a stall: 5 s late runs unless the job allows 1 s, 25 s late runs only where it allows 60 s', async () => {
    const create = (key: string, misfireGraceSeconds?: number) =>
      t.cronql.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/30 * * * * *', misfireGraceSeconds });
    const jobs = [await create('grace-server'), await create('grace-long', 60), await create('grace-short', 1)];
    expect(jobs.map((j) => j.misfireGraceSeconds)).toEqual([null, 60, 1]);
    const outcomes = async (count: number) =>
      Promise.all(
        jobs.map((job) =>
          eventually(async () => {
            const runs = (await runsOf(t.cronql, job.id)).filter((r) => r.status === 'SUCCEEDED' || r.status === 'SKIPPED');
            return runs.length === count ? runs.map((r) => `${r.scheduledAt.toISOString().slice(11, 19)} ${r.failureCode ?? r.status}`) : null;
          }, 20_000),
        ),
      );
    clock.jump('2026-06-01T12:00:35.000Z'); // frozen since 12:00:00.5: the 12:00:30 slot is 5 s late
    expect(await outcomes(1)).toEqual([['12:00:30 SUCCEEDED'], ['12:00:30 SUCCEEDED'], ['12:00:30 MISSED']]);
    clock.jump('2026-06-01T12:01:25.000Z'); // the 12:01:00 slot is 25 s late
    expect(await outcomes(2)).toEqual([
      ['12:00:30 SUCCEEDED', '12:01:00 MISSED'],
      ['12:00:30 SUCCEEDED', '12:01:00 SUCCEEDED'],
      ['12:00:30 MISSED', '12:01:00 MISSED'],
    ]);
  });
});
