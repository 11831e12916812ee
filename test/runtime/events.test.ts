import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronql, type Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { runsOf, startCronql, testDatabase } from '../support/cronql.js';
import { collectEvents, nextEvent } from '../support/wait-for.js';

/**
 * The runtime's typed events (src/runtime/events.ts) are emitted where what they name happens,
 * and say what the database then holds: a test can wait on them instead of sleeping.
 */
describe('the runtime events', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  const tight = { heartbeatMs: 200, lostAfterMs: 1_000, jobReplicas: 1 };

  beforeAll(async () => {
    db = await testDatabase();
  });
  afterAll(async () => {
    await a?.stop();
    await db?.drop();
  });

  it('armed: once recovery is done and the jobs are armed, before start() resolves', async () => {
    a = createCronql({ databaseUrl: db.url, clock, instanceId: 'events-a', shutdownGraceMs: 2_000, ...tight });
    const armed = collectEvents(a.runtimeEvents, 'armed');
    await a.start();
    armed.stop();
    expect([...armed]).toEqual([{ jobs: 0, partitions: expect.any(Number) }]);
    expect(armed[0].partitions).toBeGreaterThan(0);
  });

  it('slotRecorded, then runEnded, for a slot that comes due', async () => {
    const job = await a.jobs.create({ key: 'events-due', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    const recorded = nextEvent(a.runtimeEvents, 'slotRecorded', (e) => e.jobId === job.id);
    const ended = nextEvent(a.runtimeEvents, 'runEnded', (e) => e.jobId === job.id);
    clock.set('2026-06-01T12:00:10.000Z');
    const slot = await recorded;
    expect(slot).toMatchObject({ jobKey: 'events-due', kind: 'claimed', slot: new Date('2026-06-01T12:00:10.000Z') });
    expect(await ended).toEqual({ runId: slot.runId, jobId: job.id, status: 'SUCCEEDED' });
    // What the event said is what the database holds.
    expect((await a.runs.get(slot.runId!))?.status).toBe('SUCCEEDED');
  });

  it('slotsMissed when slots cannot be recorded in time: as many as the rows recorded MISSED, for the reason they give', async () => {
    const job = await a.jobs.create({ key: 'events-missed', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    const missed = nextEvent(a.runtimeEvents, 'slotsMissed', (e) => e.jobId === job.id);
    // 12:00:20 … 12:01:00 come due one after another at once: the first ones reach the store
    // past their grace (the clock is at 12:01:00 by then) and are accounted for as missed.
    clock.set('2026-06-01T12:01:00.000Z');
    const event = await missed;
    expect(event.jobKey).toBe('events-missed');
    expect(event.missed).toBeGreaterThan(0);
    await a.runtime!.whenIdle();
    const rows = (await runsOf(a, job.id)).filter((r) => r.failureCode === 'MISSED');
    expect(rows).toHaveLength(event.missed);
    expect(rows.map((r) => (r.failureDetails as { reason: string }).reason)).toEqual(rows.map(() => event.reason));
    expect(rows.every((r) => r.scheduledAt > event.afterExclusive && r.scheduledAt <= event.untilInclusive)).toBe(true);
  });

  it('maintenancePass: each duty that runs, on this instance, with the database reachable', async () => {
    const beat = await nextEvent(a.runtimeEvents, 'maintenancePass', (p) => p.duty === 'heartbeat');
    expect(beat).toMatchObject({ scope: 'instance', instance: 'events-a', result: 'ok' });
    const next = await nextEvent(a.runtimeEvents, 'maintenancePass', (p) => p.duty === 'heartbeat');
    expect(next.result).toBe('ok');
  });

  it('rebalanced: when a second scheduler joins (a share lost), and when it stops (regained)', async () => {
    const lost = nextEvent(a.runtimeEvents, 'rebalanced', (e) => e.lost > 0);
    const b = await startCronql(db.url, { clock: new ManualClock(clock.now()), instanceId: 'events-b', ...tight });
    try {
      const event = await lost;
      expect(event.gained).toBe(0);
      expect(event.jobs).toBe(a.runtime!.actorCount);
    } finally {
      const regained = nextEvent(a.runtimeEvents, 'rebalanced', (e) => e.gained > 0);
      await b.stop();
      expect((await regained).lost).toBe(0);
    }
  });
});
