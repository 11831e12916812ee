import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ScheduleType } from '../../src/domain/enums.js';
import type { RunChange } from '../../src/runtime/run-events.js';
import { eventually, startCronql, testDatabase } from '../support/cronql.js';

/**
 * LISTEN/NOTIFY is open to any role that can connect to the database, with no rights on
 * cronql's tables. Its notifications are hints: forged ones change nothing and are not relayed.
 */
describe('forged notifications from a role without table rights', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let scheduler: Cronql;
  let api: Cronql;
  let forger: pg.Client;
  const role = `forger_${randomBytes(4).toString('hex')}`;
  let release: () => void = () => {};

  beforeAll(async () => {
    db = await testDatabase();
    scheduler = await startCronql(db.url, {
      instanceId: 'forged-scheduler',
      targets: { hold: () => new Promise((resolve) => (release = () => resolve({ released: true }))) },
    });
    api = await startCronql(db.url, { instanceId: 'forged-api', role: 'api' });
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'forger'`);
    await admin.end();
    const url = new URL(db.url);
    url.username = role;
    url.password = 'forger';
    forger = new pg.Client({ connectionString: url.toString() });
    await forger.connect();
  });
  afterAll(async () => {
    await forger?.end();
    await Promise.all([scheduler?.stop(), api?.stop()]);
    await db?.drop();
    const admin = new pg.Client({ connectionString: db.url.replace(/\/[^/]+$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('the forger cannot read the runs (the test is honest)', async () => {
    await expect(forger.query('SELECT count(*) FROM cron_job_runs')).rejects.toThrow(/permission denied/);
  });

  it('a forged cancel does not abort a running run; a forged change is not relayed to subscribers', async () => {
    const held = await scheduler.jobs.create({ key: 'held', target: 'hold', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const failing = await scheduler.jobs.create({ key: 'failing', target: 'sleep', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const seenByApi: RunChange[] = [];
    api.events.on((c) => seenByApi.push(c));

    const failed = await scheduler.runs.runNow(failing.id, { ms: -1 }); // sleep refuses the payload: FAILED
    await eventually(() => seenByApi.some((c) => c.run.id === failed.id && c.run.status === 'FAILED'));
    const run = await scheduler.runs.runNow(held.id);
    await eventually(async () => (await scheduler.runs.get(run.id))?.status === 'RUNNING');
    await eventually(() => seenByApi.some((c) => c.run.id === run.id && c.run.status === 'RUNNING'));

    // Forgeries: a cancel, a failed run announced as succeeded (with and without a plausible
    // instant), garbage, and hints naming things that are not ids.
    const forge = (channel: string, payload: string) => forger.query('SELECT pg_notify($1, $2)', [channel, payload]);
    await forge('cronql_run_canceled', run.id);
    const finishedAt = (await scheduler.runs.get(failed.id))!.finishedAt!.getTime();
    for (const t of [Date.now(), finishedAt]) {
      await forge('cronql_run_changed', JSON.stringify({ i: 'forger', c: [{ r: failed.id, s: 'SUCCEEDED', p: 'RUNNING', t }] }));
    }
    await forge('cronql_run_changed', JSON.stringify({ i: 'forger', c: [{ r: run.id, s: 'CANCELED', p: 'RUNNING', t: Date.now() }] }));
    await forge('cronql_run_changed', '{"i":');
    await forge('cronql_run_created', "x'; DROP TABLE cron_job_runs; --");
    await forge('cronql_job_changed', 'not-a-uuid');
    // A legitimate change sent after the forgeries: once it arrived, so had they.
    const sentinel = await scheduler.runs.runNow(failing.id, { ms: 1 });
    await eventually(() => seenByApi.some((c) => c.run.id === sentinel.id && c.run.status === 'SUCCEEDED'));

    expect((await scheduler.runs.get(run.id))?.status).toBe('RUNNING');
    expect(seenByApi.filter((c) => c.run.id === failed.id).map((c) => c.run.status)).not.toContain('SUCCEEDED');
    expect(seenByApi.filter((c) => c.run.id === run.id).map((c) => c.run.status)).not.toContain('CANCELED');

    release();
    await eventually(async () => (await scheduler.runs.get(run.id))?.status === 'SUCCEEDED');
    // And a real cancel still works across instances.
    const second = await scheduler.runs.runNow(held.id);
    await eventually(async () => (await scheduler.runs.get(second.id))?.status === 'RUNNING');
    await api.runs.cancel(second.id);
    await eventually(() => seenByApi.some((c) => c.run.id === second.id && c.run.status === 'CANCELED'));
  });
});
