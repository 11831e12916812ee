import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import type { TargetContext } from '../../src/runtime/targets/target.js';
import { eventually, startCronql, testDatabase } from '../support/cronql.js';

/** Handler calls per run id, across every instance of this file. */
const calls = new Map<string, number>();
const targets = {
  count: (ctx: TargetContext) => {
    calls.set(ctx.run.id, (calls.get(ctx.run.id) ?? 0) + 1);
    return null;
  },
};

describe('startup recovery', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  const started: Cronql[] = [];
  const now = new Date('2026-06-01T12:00:00.000Z');
  const ids = { stale: randomUUID(), fresh: randomUUID(), pending: randomUUID(), pending2: randomUUID() };
  let jobId: string;
  let otherJobId: string;

  beforeAll(async () => {
    db = await testDatabase();
    // A first process creates the jobs, then "dies" leaving runs behind.
    const first = await startCronql(db.url, { clock: new ManualClock(now), listen: false, targets });
    const create = (key: string) =>
      first.jobs.create({ key, target: 'count', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    jobId = (await create('recovery-a')).id;
    otherJobId = (await create('recovery-b')).id;
    const thirdJobId = (await create('recovery-c')).id;
    const fourthJobId = (await create('recovery-d')).id;
    await first.stop();
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    client.on('error', () => {});
    const insert = (id: string, job: string, status: string, startedAt: Date | null, slot: string) =>
      client.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id)
         SELECT $1, id, job_key, version, target, 'SCHEDULED', $4, $3, $5, 'dead-instance' FROM cron_job_definitions WHERE id = $2`,
        [id, job, status, slot, startedAt],
      );
    await insert(ids.stale, jobId, 'RUNNING', new Date(now.getTime() - 20 * 60_000), '2026-06-01T11:40:00Z');
    await insert(ids.fresh, otherJobId, 'RUNNING', new Date(now.getTime() - 60_000), '2026-06-01T11:59:00Z');
    await insert(ids.pending, fourthJobId, 'PENDING', null, '2026-06-01T11:59:30Z');
    await insert(ids.pending2, thirdJobId, 'PENDING', null, '2026-06-01T11:59:40Z');
    await client.end();
  });

  afterAll(async () => {
    await Promise.all(started.map((c) => c.stop()));
    await db?.drop();
  });

  it('fails stale RUNNING runs, leaves fresh ones, and runs each PENDING run once across two instances', async () => {
    // Two instances start together on the same database.
    const [a, b] = await Promise.all([
      startCronql(db.url, { clock: new ManualClock(now), instanceId: 'a', targets }),
      startCronql(db.url, { clock: new ManualClock(now), instanceId: 'b', targets }),
    ]);
    started.push(a, b);

    const stale = await a.runs.get(ids.stale);
    expect(stale).toMatchObject({ status: 'FAILED', failureCode: 'STALE_TIMEOUT' });
    expect(stale!.finishedAt?.toISOString()).toBe(now.toISOString());
    expect(await a.runs.get(ids.fresh)).toMatchObject({ status: 'RUNNING', runnerInstanceId: 'dead-instance' });

    for (const id of [ids.pending, ids.pending2]) {
      const run = await eventually(async () => {
        const r = await a.runs.get(id);
        return r?.status === 'SUCCEEDED' ? r : null;
      });
      expect(['a', 'b']).toContain(run.runnerInstanceId);
    }
    // Exactly once: each handler ran once, whichever instance claimed the run.
    await Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);
    expect(calls.get(ids.pending)).toBe(1);
    expect(calls.get(ids.pending2)).toBe(1);
    expect((await a.runs.list({}, 500)).totalCount).toBe(4);
    // Actors are armed after recovery.
    expect(a.runtime!.nextRunAt(jobId)).not.toBeNull();
    expect(b.runtime!.nextRunAt(otherJobId)).not.toBeNull();
  });

  it('a run left RUNNING by this same instance id is failed at restart, however recent', async () => {
    const [a] = started;
    const job = await a.jobs.create({ key: 'own-orphan', target: 'count', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const orphan = randomUUID();
    await a.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id)
       VALUES ($1, $2, 'own-orphan', 1, 'count', 'MANUAL', $3, 'RUNNING', $3, 'fixed-id')`,
      [orphan, job.id, new Date(now.getTime() - 1_000)],
    );
    const restarted = await startCronql(db.url, { clock: new ManualClock(now), instanceId: 'fixed-id', targets });
    started.push(restarted);
    expect(await restarted.runs.get(orphan)).toMatchObject({ status: 'FAILED', failureCode: 'STALE_TIMEOUT' });
  });
});
