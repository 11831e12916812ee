import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronql, type Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { eventually, runsOf, startCronql, terminal, testDatabase } from '../support/cronql.js';
import type { RunChange } from '../../src/runtime/run-events.js';

describe('two runtimes on one database', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const clockA = new ManualClock('2026-06-01T00:00:00.000Z');
  const clockB = new ManualClock('2026-06-01T00:00:00.000Z');

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

  it('runs each slot exactly once, whichever instance fires first', async () => {
    const job = await a.jobs.create({
      key: 'shared',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '* * * * * *',
      payload: { message: 'tick' },
    });
    // B learns of the job through LISTEN/NOTIFY and arms its own actor.
    await eventually(() => b.runtime!.nextRunAt(job.id));

    const slots = 40;
    const settled = new Map<string, RunChange>();
    const onChange = (c: RunChange) => c.run.jobId === job.id && terminal(c) && settled.set(c.run.id, c);
    const offA = a.events.on(onChange);
    const offB = b.events.on(onChange);
    for (let i = 1; i <= slots; i++) {
      const at = new Date(Date.parse('2026-06-01T00:00:00.000Z') + i * 1000);
      // Both instances' alarms go off for the same slot, in alternating order.
      if (i % 2) {
        clockA.set(at);
        clockB.set(at);
      } else {
        clockB.set(at);
        clockA.set(at);
      }
      await eventually(() => [...settled.values()].some((c) => c.run.scheduledAt.getTime() === at.getTime()));
    }
    offA();
    offB();

    const runs = await runsOf(a, job.id);
    expect(runs).toHaveLength(slots);
    expect(new Set(runs.map((r) => r.scheduledAt.getTime())).size).toBe(slots);
    expect(runs.every((r) => r.status === 'SUCCEEDED')).toBe(true);
    // Both instances won some slots: the race is real, the database decides it.
    const winners = new Set(runs.map((r) => r.runnerInstanceId));
    expect(winners).toEqual(new Set(['instance-a', 'instance-b']));
  });

  it('a job paused on one instance stops firing on the other', async () => {
    const job = await a.jobs.create({
      key: 'paused-elsewhere',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '* * * * * *',
    });
    await eventually(() => b.runtime!.nextRunAt(job.id));
    await a.jobs.pause(job.id, 'maintenance');
    await eventually(() => b.runtime!.nextRunAt(job.id) === null);
    clockA.advance(5_000);
    clockB.advance(5_000);
    await Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]); // whatever the clocks set off has been recorded
    expect(await runsOf(a, job.id)).toHaveLength(0);
  });
});

describe('run events across instances', () => {
  it('an API-only instance sees every change of runs executed by a scheduler instance, in order', async () => {
    const db = await testDatabase();
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const scheduler = await startCronql(db.url, { clock, instanceId: 'scheduler', role: 'scheduler' });
    const api = await startCronql(db.url, { instanceId: 'api', role: 'api' });
    try {
      const seen: string[] = [];
      api.events.on((c) => seen.push(`${c.run.scheduledAt.toISOString().slice(17, 19)} ${c.previousStatus ?? '∅'}→${c.run.status}`));
      // Created through the API instance: the scheduler arms it from the notification.
      const job = await api.jobs.create({ key: 'relayed', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
      expect(api.runtime).toBeUndefined();
      await eventually(() => scheduler.runtime!.nextRunAt(job.id));
      clock.set('2026-06-01T00:00:01.000Z');
      await scheduler.runtime!.whenIdle();
      clock.set('2026-06-01T00:00:02.000Z');
      await eventually(() => seen.length >= 6);
      expect(seen).toEqual([
        '01 ∅→PENDING', '01 PENDING→RUNNING', '01 RUNNING→SUCCEEDED',
        '02 ∅→PENDING', '02 PENDING→RUNNING', '02 RUNNING→SUCCEEDED',
      ]);
      // Run-now on the API instance: a scheduler claims and executes it.
      const manual = await api.runs.runNow(job.id);
      const ran = await eventually(async () => {
        const r = await api.runs.get(manual.id);
        return r?.status === 'SUCCEEDED' ? r : null;
      });
      expect(ran.runnerInstanceId).toBe('scheduler');
    } finally {
      await Promise.all([scheduler.stop(), api.stop()]);
      await db.drop();
    }
  });
});

describe('the notification connection', () => {
  it('reconnects after it was killed and resynchronises the jobs changed meanwhile', async () => {
    const db = await testDatabase();
    const a = await startCronql(db.url, { instanceId: 'a', role: 'api' });
    const b = await startCronql(db.url, { instanceId: 'b', clock: new ManualClock('2026-06-01T00:00:00Z') });
    try {
      // Kill every LISTEN connection; B's notifier must notice and come back.
      const killed = await a.pool.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
      );
      expect(killed.rowCount).toBe(2);
      // Changed while B was not listening: only the resync after reconnecting can tell B.
      const job = await a.jobs.create({ key: 'missed-notify', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *' });
      await eventually(() => b.runtime!.nextRunAt(job.id), 15_000);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
    }
  });
});

describe('cancel across instances', () => {
  it('cancelRun on an API instance aborts the handler running on a scheduler instance', async () => {
    const db = await testDatabase();
    const scheduler = await startCronql(db.url, { instanceId: 'scheduler', role: 'scheduler' });
    const api = await startCronql(db.url, { instanceId: 'api', role: 'api' });
    try {
      const job = await api.jobs.create({
        key: 'long-sleep',
        target: 'sleep',
        scheduleType: ScheduleType.RECURRING,
        cronExpression: '0 0 1 1 *',
        payload: { ms: 60_000 },
      });
      const run = await api.runs.runNow(job.id);
      await eventually(async () => (await api.runs.get(run.id))?.status === 'RUNNING');
      // The claim is committed before the scheduler has read its answer and started the handler.
      await eventually(() => scheduler.runtime!.activeRuns === 1);
      const canceled = await api.runs.cancel(run.id);
      expect(canceled.status).toBe('CANCELED');
      // The handler saw its signal: the scheduler has nothing in flight any more.
      await eventually(() => scheduler.runtime!.activeRuns === 0, 5_000);
      expect(await api.runs.get(run.id)).toMatchObject({ status: 'CANCELED', runnerInstanceId: 'scheduler' });
    } finally {
      await Promise.all([scheduler.stop(), api.stop()]);
      await db.drop();
    }
  });
});

describe('stopping', () => {
  it('run-now on an instance that stopped firing is run by another instance', async () => {
    const db = await testDatabase();
    const a = await startCronql(db.url, { instanceId: 'a' });
    const b = await startCronql(db.url, { instanceId: 'b' });
    try {
      const job = await a.jobs.create({ key: 'late-run-now', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
      a.stopFiring(); // shutting down, still answering the requests in flight
      const run = await a.runs.runNow(job.id);
      expect(run.status).toBe('PENDING');
      const done = await eventually(async () => {
        const r = await a.runs.get(run.id);
        return r?.status === 'SUCCEEDED' ? r : null;
      });
      expect(done.runnerInstanceId).toBe('b');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      await db.drop();
    }
  });

  it('stop() during start() leaves nothing armed', async () => {
    const db = await testDatabase();
    const first = await startCronql(db.url, { listen: false });
    await first.jobs.create({ key: 'armed-or-not', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
    await first.stop();
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const cronql = createCronql({ databaseUrl: db.url, clock, listen: false });
    try {
      const starting = cronql.start();
      // Stop as soon as the runtime exists, while it is still recovering.
      await eventually(() => cronql.runtime, 5_000);
      const stopping = cronql.stop();
      await starting.catch(() => {});
      await stopping;
      expect(cronql.runtime!.armed).toBe(false);
      expect(clock.pending).toBe(0);
    } finally {
      await cronql.stop();
      await db.drop();
    }
  });
});
