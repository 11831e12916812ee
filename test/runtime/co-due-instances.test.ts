import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/** A logger that keeps every line at warn and above, parsed. */
function capturingLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'warn' }, sink);
}

const JOBS = 300;
const SLOTS = 5;
const MAX_RUNS = 3;

/**
 * Two instances firing the same co-due slots of hundreds of jobs: their multi-row inserts take
 * the index locks in one order (job id, slot), so neither loses a deadlock to the other, and
 * every slot is recorded and run exactly once.
 */
describe('two instances, the same co-due slots', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let a: Cronql;
  let b: Cronql;
  const logs: Record<string, unknown>[] = [];
  const start = '2026-06-01T00:00:00.500Z';
  const clockA = new ManualClock(start);
  const clockB = new ManualClock(start);

  beforeAll(async () => {
    db = await testDatabase();
    const setup = await startCronql(db.url, { role: 'api', listen: false });
    await setup.pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
       SELECT gen_random_uuid(), 'co-due-' || i, 1, 'log', 'RECURRING', '* * * * * *', 'ACTIVE', $2, $2 FROM generate_series(1, $1) AS i`,
      [JOBS, new Date(start)],
    );
    // A job both instances arm, every second from 00:00:10 on (after the first test's slots),
    // that may start three runs in all: each of them races the other for every slot.
    await setup.pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at, start_at, max_runs, overlap, max_concurrent_runs)
       VALUES (gen_random_uuid(), 'max-runs-twice', 1, 'log', 'RECURRING', '* * * * * *', 'ACTIVE', $1, $1, '2026-06-01T00:00:10Z', $2, 'ALLOW', 10)`,
      [new Date(start), MAX_RUNS],
    );
    await setup.stop();
    [a, b] = await Promise.all([
      startCronql(db.url, { clock: clockA, instanceId: 'co-due-a', log: capturingLogger(logs) }),
      startCronql(db.url, { clock: clockB, instanceId: 'co-due-b', log: capturingLogger(logs) }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await db?.drop();
  });

  it('records and runs every slot once, with no deadlock and no error', async () => {
    for (let i = 1; i <= SLOTS; i++) {
      const at = new Date(Date.parse('2026-06-01T00:00:00.000Z') + i * 1000);
      const [first, second] = i % 2 ? [clockA, clockB] : [clockB, clockA];
      first.set(at);
      second.set(at);
      await Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);
    }
    const res = await a.pool.query(
      `SELECT count(*)::int AS runs, count(DISTINCT (job_definition_id, scheduled_at))::int AS distinct_slots,
         count(*) FILTER (WHERE status = 'SUCCEEDED')::int AS succeeded
       FROM cron_job_runs`,
    );
    // Both instances inserted every slot (the conflicts are what could deadlock); which one won
    // them depends on timing (on a loaded machine one may win them all).
    expect(res.rows[0]).toEqual({ runs: JOBS * SLOTS, distinct_slots: JOBS * SLOTS, succeeded: JOBS * SLOTS });
    const problems = logs.filter((l) => Number(l.level) >= 50 || JSON.stringify(l).includes('40P01') || /deadlock/i.test(JSON.stringify(l)));
    expect(problems).toEqual([]);
  });

  it('maxRuns holds with two instances racing for every slot: exactly that many runs, then the job retires', async () => {
    for (let i = 10; i <= 16; i++) {
      const at = new Date(Date.parse('2026-06-01T00:00:00.000Z') + i * 1000);
      const [first, second] = i % 2 ? [clockA, clockB] : [clockB, clockA];
      first.set(at);
      second.set(at);
      await Promise.all([a.runtime!.whenIdle(), b.runtime!.whenIdle()]);
    }
    const runs = await a.pool.query(
      `SELECT r.scheduled_at, r.status, r.runner_instance_id FROM cron_job_runs r WHERE r.job_key = 'max-runs-twice' ORDER BY r.scheduled_at`,
    );
    expect(runs.rows.filter((r) => r.status !== 'SKIPPED').map((r) => (r.scheduled_at as Date).toISOString())).toEqual([
      '2026-06-01T00:00:10.000Z',
      '2026-06-01T00:00:11.000Z',
      '2026-06-01T00:00:12.000Z',
    ]);
    const job = await a.pool.query(`SELECT status FROM cron_job_definitions WHERE job_key = 'max-runs-twice'`);
    expect(job.rows.map((r) => r.status)).toEqual(['RETIRED']);
  });
});
