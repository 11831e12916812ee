import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { eventually, runsOf, startCronql, testDatabase } from '../support/cronql.js';

/**
 * pauseJobs / resumeJobs with two runtimes on one database, both arming every job (the default two
 * replicas): a bulk pause written through one instance stops the other's actors too (the NOTIFY of
 * each job, in the same statement), and no slot of a paused job runs on either; a bulk resume
 * through the other instance arms them again everywhere.
 */
describe('bulk pause and resume, two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const T0 = Date.parse('2026-06-01T00:00:00.000Z');
  const clocks = [new ManualClock(new Date(T0).toISOString()), new ManualClock(new Date(T0).toISOString())];
  const both = (ms: number) => clocks.forEach((c) => c.set(new Date(T0 + ms)));
  const idle = () => Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);

  beforeAll(async () => {
    db = await testDatabase();
    [a, b] = await Promise.all([
      startCronql(db.url, { clock: clocks[0], instanceId: 'bulk-a' }),
      startCronql(db.url, { clock: clocks[1], instanceId: 'bulk-b' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('a bulk pause on one instance stops the matching jobs on both; a bulk resume on the other arms them again', async () => {
    const job = (key: string, team: string) =>
      a.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', labels: { team } });
    const [x, y, other] = await Promise.all([job('billing-x', 'billing'), job('billing-y', 'billing'), job('ops-z', 'ops')]);
    const all = [x, y, other];
    await eventually(() => all.every((j) => a.runtime!.nextRunAt(j.id) && b.runtime!.nextRunAt(j.id)));

    const paused = await a.jobs.pauseMatching('team=billing', 'maintenance window', null, 'admin');
    expect(paused.map((j) => j.jobKey).sort()).toEqual(['billing-x', 'billing-y']);
    // Instance b heard of each job by its NOTIFY: its actors are gone.
    await eventually(() => [x, y].every((j) => a.runtime!.nextRunAt(j.id) === null && b.runtime!.nextRunAt(j.id) === null));
    expect(b.runtime!.nextRunAt(other.id)).not.toBeNull();

    both(10_000);
    await eventually(async () => (await runsOf(a, other.id)).length === 1);
    await idle();
    for (const j of [x, y]) expect(await runsOf(a, j.id)).toEqual([]);

    expect((await b.jobs.resumeMatching('team in (billing)', 'admin')).map((j) => j.status)).toEqual(['ACTIVE', 'ACTIVE']);
    await eventually(() => [x, y].every((j) => a.runtime!.nextRunAt(j.id) && b.runtime!.nextRunAt(j.id)));
    both(20_000);
    await eventually(async () => (await Promise.all(all.map((j) => runsOf(a, j.id)))).every((runs) => runs.some((r) => r.scheduledAt.getTime() === T0 + 20_000)));
    await idle();
  });
});
