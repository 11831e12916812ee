import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/** The invariants that must hold across instances are the database's, not the code's. */
describe('schema invariants', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  let client: pg.Client;
  let jobId: string;

  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { role: 'api', listen: false });
    client = new pg.Client({ connectionString: db.url });
    client.on('error', () => {});
    await client.connect();
    jobId = (await cronql.jobs.create({ key: 'inv', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * *' })).id;
  });
  afterAll(async () => {
    await client?.end();
    await cronql?.stop();
    await db?.drop();
  });

  const violation = async (sql: string, params: unknown[] = []) => {
    try {
      await client.query(sql, params);
    } catch (err) {
      return (err as { constraint?: string }).constraint;
    }
    return 'no violation';
  };
  const run = (status: string, trigger: string, slot: string, lane = 0, attempt = 1) =>
    violation(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, lane, attempt)
       VALUES (gen_random_uuid(), $1, 'inv', 1, 'log', $2, $3, $4, $5, $6)`,
      [jobId, trigger, slot, status, lane, attempt],
    );
  const job = (key: string, version: number, type: string, cron: string | null, runAt: string | null, status = 'ACTIVE', reason: string | null = null) =>
    violation(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, run_at, status, pause_reason)
       VALUES (gen_random_uuid(), $1, $2, 'log', $3, $4, $5, $6, $7)`,
      [key, version, type, cron, runAt, status, reason],
    );

  it('one scheduled run per (job, slot)', async () => {
    expect(await run('SUCCEEDED', 'SCHEDULED', '2026-01-01T00:00:00Z')).toBe('no violation');
    expect(await run('SKIPPED', 'SCHEDULED', '2026-01-01T00:00:00Z')).toBe('cron_job_runs_scheduled_slot_unique');
    // Manual runs are not slots; a retry is a later attempt of the same slot.
    expect(await run('SUCCEEDED', 'MANUAL', '2026-01-01T00:00:00Z')).toBe('no violation');
    expect(await run('FAILED', 'SCHEDULED', '2026-01-01T00:00:00Z', 0, 2)).toBe('no violation');
  });

  it('the slot key is also the index of a job’s history: every run of an instant but a second first attempt', async () => {
    const slot = '2026-01-01T00:10:00Z';
    expect(await run('SUCCEEDED', 'SCHEDULED', slot)).toBe('no violation');
    // The same slots inserted twice as the fire path does (ON CONFLICT DO NOTHING, no index named): a slot once.
    // (Two instances racing for the same slots: test/runtime/co-due-instances.test.ts.)
    const fire = () =>
      client.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, attempt)
         SELECT cron_run_id(), $1, 'inv', 1, 'log', 'SCHEDULED', s, 'SUCCEEDED', 1 FROM unnest($2::timestamptz[]) AS s ON CONFLICT DO NOTHING`,
        [jobId, [slot, '2026-01-01T00:11:00Z']],
      );
    const a = await fire();
    const b = await fire();
    expect(a.rowCount! + b.rowCount!).toBe(1);
    // Its retries, a run-now, a backfill and a dependent run may share the instant: each is unique by its id.
    expect(await run('FAILED', 'SCHEDULED', slot, 0, 2)).toBe('no violation');
    expect(await run('FAILED', 'SCHEDULED', slot, 0, 3)).toBe('no violation');
    for (const trigger of ['MANUAL', 'AD_HOC', 'BACKFILL', 'DEPENDENCY']) expect(await run('SUCCEEDED', trigger, slot)).toBe('no violation');
    expect(await run('SKIPPED', 'SCHEDULED', slot)).toBe('cron_job_runs_scheduled_slot_unique');
    const rows = await client.query(
      `SELECT trigger_type, attempt FROM cron_job_runs WHERE job_definition_id = $1 AND scheduled_at IN ($2, '2026-01-01T00:11:00Z')`,
      [jobId, slot],
    );
    expect(rows.rows.filter((r) => r.trigger_type === 'SCHEDULED' && r.attempt === 1)).toHaveLength(2);
    expect(rows.rowCount).toBe(8);
  });

  it('run ids are UUIDs, time-ordered on PostgreSQL 18 (v7), random before', async () => {
    const version = Number((await client.query(`SELECT current_setting('server_version_num') AS v`)).rows[0].v);
    const ids = (await client.query(`SELECT cron_run_id()::text AS id FROM generate_series(1, 50)`)).rows.map((r) => r.id as string);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    if (version >= 180000) {
      expect(ids.every((id) => id[14] === '7')).toBe(true);
      expect([...ids].sort()).toEqual(ids);
    } else {
      expect(ids.every((id) => id[14] === '4')).toBe(true);
    }
  });

  it('at most one PENDING/RUNNING run per (job, lane): the overlap policies’ places', async () => {
    expect(await run('RUNNING', 'SCHEDULED', '2026-01-01T00:01:00Z')).toBe('no violation');
    expect(await run('PENDING', 'SCHEDULED', '2026-01-01T00:02:00Z')).toBe('cron_job_runs_one_active_per_lane');
    expect(await run('PENDING', 'MANUAL', '2026-01-01T00:02:00Z')).toBe('cron_job_runs_one_active_per_lane');
    expect(await run('SKIPPED', 'SCHEDULED', '2026-01-01T00:02:00Z')).toBe('no violation');
    // Another lane (ALLOW's second place, BUFFER_ONE's waiting slot), once.
    expect(await run('PENDING', 'SCHEDULED', '2026-01-01T00:03:00Z', -1)).toBe('no violation');
    expect(await run('PENDING', 'SCHEDULED', '2026-01-01T00:04:00Z', -1)).toBe('cron_job_runs_one_active_per_lane');
  });

  it('definitions: unique (key, version), one live version per key, schedule fields by type', async () => {
    expect(await job('inv', 1, 'RECURRING', '* * * * *', null, 'RETIRED')).toBe('cron_job_definitions_key_version_unique');
    expect(await job('inv', 2, 'RECURRING', '* * * * *', null)).toBe('cron_job_definitions_one_live_version');
    expect(await job('inv', 2, 'RECURRING', '* * * * *', null, 'RETIRED')).toBe('no violation');
    expect(await job('x1', 1, 'RECURRING', null, null)).toBe('cron_job_definitions_recurring_needs_cron');
    expect(await job('x2', 1, 'ONE_TIME', null, null)).toBe('cron_job_definitions_one_time_needs_run_at');
    expect(await job('x3', 1, 'RECURRING', '* * * * *', null, 'PAUSED')).toBe('cron_job_definitions_paused_has_reason');
  });

  it('every change of a definition bumps its revision (the order snapshots apply in)', async () => {
    const before = (await cronql.jobs.get(jobId))!.revision;
    await cronql.jobs.pause(jobId, 'x');
    await client.query(`UPDATE cron_job_definitions SET updated_at = updated_at WHERE id = $1`, [jobId]);
    const after = await cronql.jobs.resume(jobId);
    expect(after.revision).toBe(before + 3);
  });
});
