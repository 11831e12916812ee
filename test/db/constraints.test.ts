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
