import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { RunStore } from '../../src/db/run-store.js';
import { Retention } from '../../src/maintenance/retention.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/**
 * Retention deletes exactly the expired runs, in batches, one instance at a time — never an
 * active run, the latest run of a job, or a job's latest scheduled run (its ledger).
 */
describe('retention', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  const now = new Date('2026-11-24T12:00:00Z');
  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { role: 'api', listen: false });
  });
  afterAll(async () => {
    await cronql.stop();
    await db.drop();
  });

  it('deletes exactly the expired rows, in batches, and keeps active, latest and ledger runs', async () => {
    const { pool } = cronql;
    const jobs = await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, pause_reason)
       SELECT gen_random_uuid(), 'ret-' || i, 1, 'log', 'RECURRING', '0 3 * * *', 'PAUSED', 'fixture' FROM generate_series(1, 4) AS i
       RETURNING id, job_key`,
    );
    const [a, b, c, d] = jobs.rows.map((r) => r.id as string);
    const insert = (job: string, daysAgo: number, status: string, trigger = 'SCHEDULED', label = '') =>
      pool.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, failure_message,
           started_at, finished_at, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'k', 1, 'log', $2, $3::timestamptz, $4::text, $5, $3::timestamptz, CASE WHEN $4::text IN ('PENDING', 'RUNNING') THEN NULL ELSE $3::timestamptz END, $3::timestamptz, $3::timestamptz)`,
        [job, trigger, new Date(now.getTime() - daysAgo * 86_400_000 - Math.random() * 1000), status, label],
      );
    // Job a: 25 expired finished runs, 5 recent ones.
    for (let i = 0; i < 25; i++) await insert(a, 200 + i, i % 3 ? 'SUCCEEDED' : 'FAILED', 'SCHEDULED', 'expired');
    for (let i = 0; i < 5; i++) await insert(a, i, 'SUCCEEDED', 'SCHEDULED', 'recent');
    // Job b: every run expired; its latest (a MANUAL one) and its latest SCHEDULED one stay.
    for (let i = 0; i < 4; i++) await insert(b, 300 + i, 'SUCCEEDED', 'SCHEDULED', i === 0 ? 'ledger' : 'expired');
    await insert(b, 250, 'SUCCEEDED', 'MANUAL', 'latest');
    // Job c: an expired RUNNING run stays (the sweep settles it first); an expired SKIPPED one goes.
    await insert(c, 400, 'RUNNING', 'SCHEDULED', 'active');
    await insert(c, 401, 'SKIPPED', 'SCHEDULED', 'expired');
    // Job d: its newest success is old, failures came after: the success stays (its lastSuccessAt).
    await insert(d, 320, 'SUCCEEDED', 'MANUAL', 'last success');
    for (let i = 0; i < 3; i++) await insert(d, 300 - i, 'FAILED', 'MANUAL', 'expired');
    await insert(d, 290, 'FAILED', 'SCHEDULED', 'ledger d');

    const rounds: number[] = [];
    const retention = new Retention({ store: storeOf(pool), log: createLogger(), days: 180, now: () => now, batchSize: 7, onPruned: (n) => rounds.push(n) });
    const other = new Retention({ store: storeOf(pool), log: createLogger(), days: 180, now: () => now, batchSize: 7 });
    // Two instances at once: one prunes (the other finds the lock taken). 29 rows in batches of
    // 7: a round stops at the first short batch, so deleting them all took five.
    const [deleted, byOther] = await Promise.all([retention.prune(), other.prune()]);
    expect(deleted + byOther).toBe(25 + 3 + 1 + 3);
    const left = await pool.query(`SELECT failure_message AS label, count(*)::int AS n FROM cron_job_runs GROUP BY 1 ORDER BY 1`);
    expect(left.rows).toEqual([
      { label: 'active', n: 1 },
      { label: 'last success', n: 1 },
      { label: 'latest', n: 1 },
      { label: 'ledger', n: 1 },
      { label: 'ledger d', n: 1 },
      { label: 'recent', n: 5 },
    ]);
    expect(rounds).toHaveLength(1);
    // Again: nothing left to delete.
    expect(await retention.prune()).toBe(0);
    // 0 days: retention off.
    expect(await new Retention({ store: storeOf(pool), log: createLogger(), days: 0, now: () => now }).prune()).toBe(0);
  });
});

const storeOf = (pool: import('../../src/db/pool.js').Pool) =>
  new RunStore({ pool, instanceId: 'retention-test', now: () => new Date(), publish: () => {} });
