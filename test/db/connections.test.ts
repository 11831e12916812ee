import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createCronql } from '../../src/app.js';
import { migrateDatabase } from '../../src/db/orm.js';
import { DEFAULT_POOL_SIZE } from '../../src/db/pool.js';
import { isTerminal } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, testDatabase } from '../support/cronql.js';

const JOBS = Number(process.env.CONNECTIONS_TEST_JOBS ?? 10_000);

/**
 * One pool per process: an instance of role `all` holds at most its pool's connections, plus the
 * LISTEN connection and the readiness probe's — idle, and at the peak of a slot where 10,000
 * jobs come due together while the API reads jobs (MikroORM) and runs (plain SQL) beside it.
 */
describe('connections of one instance', () => {
  const cleanup: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  it(`role all: at most the pool's size + 2, idle and at the peak of a ${JOBS.toLocaleString('en')}-job co-due slot`, async () => {
    const db = await testDatabase();
    cleanup.push(() => db.drop());
    await migrateDatabase(db.url);
    const database = new URL(db.url).pathname.slice(1);
    const observer = new pg.Client({ connectionString: db.url });
    await observer.connect();
    let observerClosed = false;
    cleanup.push(() => {
      observerClosed = true;
      return observer.end();
    });
    // Jobs written straight into the table (the API would take minutes for 10,000), made at the
    // controllable clock's start: every one due at its 12:01:00.
    const start = new Date('2026-06-01T12:00:00.500Z');
    await observer.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
       SELECT gen_random_uuid(), 'co-due-' || i, 1, 'noop', 'RECURRING', '0 * * * * *', 'ACTIVE', $2, $2 FROM generate_series(1, $1) AS i`,
      [JOBS, start],
    );
    await observer.query('ANALYZE');
    /** This instance's connections now (the test's own excepted), and what each was last doing. */
    const activity = async () =>
      (
        await observer.query<{ pid: number; state: string; query: string }>(
          // Client connections only: the server's own workers (autovacuum) are not cronql's.
          "SELECT pid, state, left(query, 50) AS query FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND backend_type = 'client backend'",
          [database],
        )
      ).rows;
    const connections = async () => (await activity()).length;

    const clock = new ManualClock(start);
    const cronql = createCronql({ databaseUrl: db.url, role: 'all', clock, instanceId: 'connections', retentionDays: 0, targets: { noop: async () => null } });
    await cronql.start();
    cleanup.push(() => cronql.stop());
    await cronql.readiness(); // the probe's connection is open from now on
    await cronql.jobs.list({}, 5);
    const idle = await connections();

    let ended = 0;
    const outcomes = new Map<string, number>();
    const off = cronql.events.on((c) => {
      if (!isTerminal(c.run.status)) return;
      ended++;
      const what = `${c.run.status}/${c.run.failureCode ?? ''}`;
      outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    });
    cleanup.push(async () => off());
    let peak = idle;
    let atPeak: unknown[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling && !observerClosed) {
        const now = await activity();
        if (now.length > peak) [peak, atPeak] = [now.length, now];
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // Beside the slot, the API reads through both layers, many at once (more than the pool holds).
    // A read may wait longer for a connection than the connect bound on a busy machine, and fail:
    // that is the bound at work (counted, not a failure of this test, which counts connections).
    let reading = true;
    let reads = 0;
    let readsRefused = 0;
    const read = (p: Promise<unknown>) =>
      p.then(
        () => reads++,
        () => readsRefused++,
      );
    const reader = (async () => {
      while (reading) {
        await Promise.all([
          ...Array.from({ length: 8 }, () => read(cronql.jobs.list({}, 20))),
          ...Array.from({ length: 8 }, () => read(cronql.runs.list({}, 20))),
          cronql.readiness(),
        ]);
      }
    })();
    clock.set('2026-06-01T12:01:00.000Z');
    await eventually(() => ended >= JOBS, 180_000).catch((err) => {
      throw new Error(`${ended} of ${JOBS} runs ended (${JSON.stringify([...outcomes])}), peak ${peak}: ${err.message}`);
    });
    reading = false;
    await reader;
    sampling = false;
    await sampler;

    const bound = DEFAULT_POOL_SIZE + 2;
    console.log(`connections of one instance (role all, pool ${DEFAULT_POOL_SIZE}): idle ${idle}, peak ${peak} during a ${JOBS}-job slot (${JSON.stringify([...outcomes])}; API reads beside it: ${reads} answered, ${readsRefused} refused); bound ${bound}`);
    expect(idle).toBeLessThanOrEqual(bound);
    expect(peak, JSON.stringify(atPeak)).toBeLessThanOrEqual(bound);
    // The slot did take the pool to its size: the bound is met under load, not for want of it.
    expect(peak).toBeGreaterThanOrEqual(DEFAULT_POOL_SIZE);
  }, 240_000);
});
