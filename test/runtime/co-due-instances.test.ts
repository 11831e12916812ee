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
});
