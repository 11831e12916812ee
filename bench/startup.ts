/**
 * Startup and memory.
 * 1. Ready with N ACTIVE jobs (10,000 and 100,000): `start()` from a database that is up and
 *    migrated to every actor armed, beside the same-run floor — reading the same jobs' rows
 *    (`SELECT` of the columns the runtime loads) once. Also heap per armed job (after a full GC).
 * 2. No growth over hours of firing: 1,000 jobs firing every minute for 120 minutes of a
 *    ManualClock (120,000 runs), heap after a full GC every 10 minutes of clock time.
 *
 *   node --expose-gc dist/bench/startup.js          BENCH_STARTUP=10000,100000
 */
import pg from 'pg';
import { createCronql } from '../src/app.js';
import { ManualClock } from '../src/runtime/clock.js';
import { JOB_COLUMNS } from '../src/domain/job.js';
import { freshDatabase, gc, log, report } from './lib/bench.js';
import { benchServer } from './server.js';

const SIZES = (process.env.BENCH_STARTUP ?? '10000,100000').split(',').map(Number);

async function startup(serverUrl: string, n: number): Promise<void> {
  const db = await freshDatabase(serverUrl, `cronql_bench_startup_${n}`);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload)
     SELECT gen_random_uuid(), 'start-' || i, 1, 'log', 'RECURRING', (ARRAY['0 3 * * *', '*/5 * * * *', '0 0 1 * *', '30 2 * * *'])[1 + i % 4],
       (ARRAY['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'])[1 + i % 4], 'ACTIVE', jsonb_build_object('message', 'job ' || i)
     FROM generate_series(1, $1) AS i`,
    [n],
  );
  await setup.pool.query('VACUUM ANALYZE');
  await setup.stop();

  const floors: number[] = [];
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions j WHERE j.status = 'ACTIVE'`);
    floors.push(performance.now() - t);
  }
  await pool.end();

  gc();
  const heap0 = process.memoryUsage().heapUsed;
  const cronql = createCronql({ databaseUrl: db.url, log, role: 'all', retentionDays: 0 });
  const t0 = performance.now();
  await cronql.start();
  const ready = performance.now() - t0;
  gc();
  const perJob = (process.memoryUsage().heapUsed - heap0) / n;
  const armed = cronql.runtime!.actorCount;
  await cronql.stop();
  await db.drop();
  report({
    scenario: `startup ${n.toLocaleString('en')} jobs`,
    figure: 'ready',
    value: ready,
    baselineName: 'reading the jobs',
    baseline: floors.sort((a, b) => a - b)[1],
    goal: n >= 100_000 ? '≤ 2 s' : undefined,
    met: ready <= 2_000,
  });
  console.log(`startup ${n.toLocaleString('en')} jobs | ${armed} armed; heap ${(perJob / 1024).toFixed(2)} KB per job (goal ≤ 5 KB: ${perJob <= 5 * 1024 ? 'met' : 'NOT MET'})`);
}

async function hourOfFiring(serverUrl: string): Promise<void> {
  const n = 1_000;
  const db = await freshDatabase(serverUrl, 'cronql_bench_hour');
  const clock = new ManualClock('2026-06-01T00:00:00.000Z');
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api', clock });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
     SELECT gen_random_uuid(), 'hour-' || i, 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $2, $2 FROM generate_series(1, $1) AS i`,
    [n, clock.now()],
  );
  await setup.stop();
  const cronql = createCronql({ databaseUrl: db.url, log, role: 'all', retentionDays: 0, clock });
  await cronql.start();
  const heaps: number[] = [];
  const sample = () => {
    gc();
    heaps.push(process.memoryUsage().heapUsed);
  };
  const minutes = Number(process.env.BENCH_MINUTES ?? 120);
  for (let minute = 1; minute <= minutes; minute++) {
    clock.advance(60_000);
    await cronql.runtime!.whenIdle();
    if (minute % 10 === 0 && minute >= 30) sample(); // after a warm-up of half an hour
  }
  const runs = (await cronql.pool.query('SELECT count(*)::int AS n FROM cron_job_runs')).rows[0].n;
  await cronql.stop();
  await db.drop();
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  const growth = heaps[heaps.length - 1] - heaps[0];
  console.log(
    `${minutes} minutes of firing | ${runs.toLocaleString('en')} runs of ${n} jobs; heap after a full GC every 10 min from minute 30: ${heaps.map(mib).join(', ')} MiB; ` +
      `last − first ${mib(growth)} MiB, range ${mib(Math.max(...heaps) - Math.min(...heaps))} MiB (goal: no growth)`,
  );
}

const server = await benchServer(log);
try {
  for (const n of SIZES) await startup(server.url, n);
  await hourOfFiring(server.url);
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
