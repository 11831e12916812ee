import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { nextChange, runsOf, terminal, useCronql } from '../support/cronql.js';

describe('the fire path with a controllable clock', () => {
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  const t = useCronql({ clock, instanceId: 'fire-test' });

  it('records each due slot as PENDING → RUNNING → SUCCEEDED with snapshots and the instance id', async () => {
    const job = await t.cronql.jobs.create({
      key: 'heartbeat',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '*/10 * * * * *',
      payload: { message: 'hello' },
    });
    expect(t.cronql.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-06-01T12:00:10.000Z');
    const statuses: string[] = [];
    const off = t.cronql.events.on((c) => c.run.jobId === job.id && statuses.push(`${c.previousStatus ?? '∅'}→${c.run.status}`));
    const done = nextChange(t.cronql, (c) => c.run.jobId === job.id && terminal(c));
    clock.set('2026-06-01T12:00:10.000Z');
    const { run } = await done;
    off();
    expect(statuses).toEqual(['∅→PENDING', 'PENDING→RUNNING', 'RUNNING→SUCCEEDED']);
    expect(run).toMatchObject({
      status: 'SUCCEEDED',
      triggerType: 'SCHEDULED',
      jobKey: 'heartbeat',
      jobVersion: 1,
      target: 'log',
      payloadSnapshot: { message: 'hello' },
      output: { message: 'hello' },
      runnerInstanceId: 'fire-test',
      failureCode: null,
    });
    expect(run.scheduledAt.toISOString()).toBe('2026-06-01T12:00:10.000Z');
    expect(run.startedAt).not.toBeNull();
    expect(run.finishedAt).not.toBeNull();
    // Re-armed for the next slot.
    expect(t.cronql.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-06-01T12:00:20.000Z');
  });

  it('slots that come due while the previous run is still active are SKIPPED (OVERLAP)', async () => {
    const job = await t.cronql.jobs.create({
      key: 'overlapping',
      target: 'sleep',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '*/10 * * * * *',
      payload: { ms: 60_000 },
    });
    const of = (status: string, slot: string) => (c: { run: { jobId: string; status: string; scheduledAt: Date } }) =>
      c.run.jobId === job.id && c.run.status === status && c.run.scheduledAt.toISOString() === slot;
    const running = nextChange(t.cronql, of('RUNNING', '2026-06-01T12:00:20.000Z'));
    clock.set('2026-06-01T12:00:20.000Z');
    const { run: first } = await running;
    // The run of :20 is still RUNNING when :30 and then :40 come due.
    for (const slot of ['2026-06-01T12:00:30.000Z', '2026-06-01T12:00:40.000Z']) {
      const skipped = nextChange(t.cronql, of('SKIPPED', slot));
      clock.set(slot);
      expect((await skipped).run).toMatchObject({ failureCode: 'OVERLAP', triggerType: 'SCHEDULED', startedAt: null });
    }
    await t.cronql.runs.cancel(first.id);
    const runs = await runsOf(t.cronql, job.id);
    expect(runs.map((r) => [r.scheduledAt.toISOString().slice(11, 19), r.status, r.failureCode])).toEqual([
      ['12:00:20', 'CANCELED', 'CANCELED'],
      ['12:00:30', 'SKIPPED', 'OVERLAP'],
      ['12:00:40', 'SKIPPED', 'OVERLAP'],
    ]);
    // Then the next slot runs again.
    const next = nextChange(t.cronql, of('RUNNING', '2026-06-01T12:00:50.000Z'));
    clock.set('2026-06-01T12:00:50.000Z');
    await t.cronql.runs.cancel((await next).run.id);
    await t.cronql.jobs.retire(job.id);
  });

  it('after a stall the latest due slot still runs (within the grace) and the skipped ones are MISSED, not replayed', async () => {
    const job = await t.cronql.jobs.create({
      key: 'stalled',
      target: 'log',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '*/10 * * * * *',
    });
    const done = nextChange(t.cronql, (c) => c.run.jobId === job.id && c.run.status === 'SUCCEEDED');
    clock.jump('2026-06-01T12:01:35.000Z'); // frozen from 12:00:50 to 12:01:35: 1:00 … 1:30 came due
    expect((await done).run.scheduledAt.toISOString()).toBe('2026-06-01T12:01:30.000Z');
    await t.cronql.runtime!.whenIdle();
    const runs = await runsOf(t.cronql, job.id);
    expect(runs.map((r) => [r.scheduledAt.toISOString().slice(11, 19), r.status, r.failureCode])).toEqual([
      ['12:01:00', 'SKIPPED', 'MISSED'],
      ['12:01:10', 'SKIPPED', 'MISSED'],
      ['12:01:20', 'SKIPPED', 'MISSED'],
      ['12:01:30', 'SUCCEEDED', null],
    ]);
    expect(runs[0].failureDetails).toEqual({ reason: 'STALL' });
    expect(t.cronql.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-06-01T12:01:40.000Z');
  });
});
