import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { AfterMode, DependencyOutcome, RunStatus, ScheduleType, TriggerType } from '../../src/domain/enums.js';
import { eventually, runsOf, startCronql, testDatabase } from '../support/cronql.js';

/**
 * Fan-in across instances: the two upstreams of an ALL job end at the same moment on two
 * instances, in two statements held back by a lock on the job's arrivals row until both wait on
 * it — so they certainly overlap. Exactly one run of the job follows, linking both; and fan-out:
 * one upstream end makes one run of each of its dependents.
 */
describe('two upstreams ending at once on two instances', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  let release: () => void = () => undefined;
  let held = Promise.resolve();
  const targets = {
    held: async () => {
      await held;
      return {};
    },
    mark: async () => ({}),
  };
  beforeAll(async () => {
    db = await testDatabase();
    a = await startCronql(db.url, { targets, instanceId: 'fan-a' });
    b = await startCronql(db.url, { targets, instanceId: 'fan-b' });
  });
  afterAll(async () => {
    release();
    await a?.stop();
    await b?.stop();
    await db?.drop();
  });

  it('an ALL job gets exactly one run per completed set, each linking both upstream runs', async () => {
    const upstream = (key: string) => a.jobs.create({ key, target: 'held', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const [u1, u2] = [await upstream('in-u1'), await upstream('in-u2')];
    const job = await a.jobs.create({
      key: 'in-both', target: 'mark', scheduleType: ScheduleType.AFTER,
      after: [{ jobKey: 'in-u1', on: DependencyOutcome.SUCCEEDED }, { jobKey: 'in-u2', on: DependencyOutcome.SUCCEEDED }], afterMode: AfterMode.ALL,
    });
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      held = new Promise<void>((resolve) => (release = resolve));
      // u1 runs on a, u2 on b (a run-now is claimed by the instance that makes it).
      const r1 = await a.runs.runNow(u1.id);
      const r2 = await b.runs.runNow(u2.id);
      expect([r1.runnerInstanceId, r2.runnerInstanceId]).toEqual(['fan-a', 'fan-b']);
      const locker = new pg.Client({ connectionString: db.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`SELECT 1 FROM cron_after_arrivals WHERE job_key = 'in-both' FOR UPDATE`);
        release();
        // Both ends' statements wait on the row: they overlap.
        await eventually(async () => {
          const res = await locker.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`);
          return res.rows[0].n >= 2;
        }, 15_000);
        await locker.query('COMMIT');
      } finally {
        await locker.end();
      }
      const made = await eventually(async () => {
        const rows = (await runsOf(a, job.id)).filter((r) => r.status === RunStatus.SUCCEEDED);
        return rows.length >= round ? rows : null;
      }, 15_000);
      await a.runtime!.whenIdle();
      await b.runtime!.whenIdle();
      const all = await runsOf(a, job.id);
      expect(all).toHaveLength(round);
      expect(made.every((r) => r.triggerType === TriggerType.DEPENDENCY)).toBe(true);
      const upstreams = (await a.runs.upstreamsOf([all[round - 1].id]))[0].map((r) => r.id).sort();
      expect(upstreams).toEqual([r1.id, r2.id].sort());
    }
  });

  it('fan-out: one upstream end makes one run of each of its dependents, whichever instance claims it', async () => {
    const root = await a.jobs.create({ key: 'out-root', target: 'mark', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const dependents = await Promise.all(
      Array.from({ length: 10 }, (_, i) => a.jobs.create({ key: `out-${i}`, target: 'mark', scheduleType: ScheduleType.AFTER, after: [{ jobKey: 'out-root', on: DependencyOutcome.ANY }] })),
    );
    const run = await b.runs.runNow(root.id);
    await eventually(async () => (await Promise.all(dependents.map((d) => runsOf(a, d.id)))).every((rows) => rows.length === 1 && rows[0].status === RunStatus.SUCCEEDED), 15_000);
    await a.runtime!.whenIdle();
    await b.runtime!.whenIdle();
    const ended = (await a.runs.get(run.id))!.finishedAt!.getTime();
    const lags: number[] = [];
    for (const d of dependents) {
      const rows = await runsOf(a, d.id);
      expect(rows).toHaveLength(1);
      expect((await a.runs.upstreamsOf([rows[0].id]))[0].map((r) => r.id)).toEqual([run.id]);
      lags.push(rows[0].startedAt!.getTime() - ended);
    }
    // A figure, not an assertion: from the upstream's end to each dependent's handler entered.
    console.log(`fan-out to 10 dependents: started ${Math.min(...lags)}–${Math.max(...lags)} ms after the upstream's end`);
  });
});
