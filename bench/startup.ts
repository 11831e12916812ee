/**
 * Startup and memory.
 * 0. `npm start` as a user runs it: the built server in a process of its own, on the bench's
 *    PostgreSQL (already running), from spawn to `/readyz` answering 200, with N ACTIVE jobs
 *    (10,000 and 100,000): median of BENCH_ROUNDS starts, with the process's own breakdown (the
 *    steps it logs with "cronql is listening"), beside the same-run baselines — `node -e 0` (a
 *    process that does nothing) plus reading the jobs' rows. Goals: ≤ 1.5 s at 10,000, ≤ 3 s at
 *    100,000. BENCH_START_BEFORE=<path to another build's dist/src/main.js> alternates its starts
 *    with this build's (before/after in the same period).
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
import { spawnSync } from 'node:child_process';
import { freshDatabase, gc, log, report } from './lib/bench.js';
import { startServer } from './lib/process.js';
import { benchServer } from './server.js';

const SIZES = (process.env.BENCH_STARTUP ?? '10000,100000').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** N ACTIVE jobs, on four daily or monthly schedules and four zones (none due during the bench but by chance). */
async function seedJobs(pool: pg.Pool, n: number): Promise<void> {
  await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload)
     SELECT gen_random_uuid(), 'start-' || i, 1, 'log', 'RECURRING', (ARRAY['0 3 * * *', '15 4 * * 1-5', '0 0 1 * *', '30 2 * * *'])[1 + i % 4],
       (ARRAY['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'])[1 + i % 4], 'ACTIVE', jsonb_build_object('message', 'job ' || i)
     FROM generate_series(1, $1) AS i`,
    [n],
  );
  await pool.query('VACUUM ANALYZE');
}

async function processStartup(serverUrl: string, n: number): Promise<void> {
  const db = await freshDatabase(serverUrl, `cronql_bench_process_${n}`);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.stop();
  const pool = new pg.Pool({ connectionString: db.url, max: 1 });
  await seedJobs(pool, n);
  const before = process.env.BENCH_START_BEFORE;
  const ready: number[] = [];
  const readyBefore: number[] = [];
  const cpu: number[] = [];
  const cpuBefore: number[] = [];
  const reads: number[] = [];
  const nodes: number[] = [];
  const phases: Record<string, number[]> = {};
  const phasesBefore: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round++) {
    let t = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    nodes.push(performance.now() - t);
    t = performance.now();
    await pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions j WHERE j.status = 'ACTIVE'`);
    reads.push(performance.now() - t);
    if (before) {
      const old = await startServer(db.url, {}, before);
      readyBefore.push(old.readyMs);
      if (old.readyCpuMs !== undefined) cpuBefore.push(old.readyCpuMs);
      for (const [phase, ms] of Object.entries(old.phases ?? {})) (phasesBefore[phase] ??= []).push(ms);
      await old.stop();
    }
    const server = await startServer(db.url);
    ready.push(server.readyMs);
    if (server.readyCpuMs !== undefined) cpu.push(server.readyCpuMs);
    for (const [phase, ms] of Object.entries(server.phases ?? {})) (phases[phase] ??= []).push(ms);
    await server.stop();
  }
  await pool.end();
  await db.drop();
  const goal = n >= 100_000 ? 3_000 : 1_500;
  const baseline = median(nodes) + median(reads);
  report({
    scenario: `npm start, ${n.toLocaleString('en')} ACTIVE jobs, external PostgreSQL (median of ${ROUNDS})`,
    figure: 'spawn → /readyz 200',
    value: median(ready),
    baselineName: `node -e 0 (${Math.round(median(nodes))} ms) + reading the jobs (${Math.round(median(reads))} ms)`,
    baseline,
    goal: `≤ ${goal.toLocaleString('en')} ms`,
    met: median(ready) <= goal,
  });
  console.log(`  starts: ${ready.map(Math.round).join(' / ')} ms${before ? `; before (${before}), alternated: ${readyBefore.map(Math.round).join(' / ')} ms, median ${Math.round(median(readyBefore))} ms` : ''}`);
  // The process's CPU until ready: steadier than the wall clock on a shared machine.
  if (cpu.length) console.log(`  CPU to ready: median ${Math.round(median(cpu))} ms${cpuBefore.length ? `; before, alternated: ${Math.round(median(cpuBefore))} ms` : ''}`);
  const breakdown = (of: Record<string, number[]>) => Object.entries(of).map(([p, xs]) => `${p} ${median(xs)}`).join(', ');
  console.log(`  breakdown (median ms, the process's own clock): ${breakdown(phases)}`);
  if (before) console.log(`  before's breakdown: ${breakdown(phasesBefore)}`);
}

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
  if (process.env.BENCH_START_PROCESS !== '0') for (const n of SIZES) await processStartup(server.url, n);
  if (process.env.BENCH_START_PROCESS !== 'only') {
    for (const n of SIZES) await startup(server.url, n);
    await hourOfFiring(server.url);
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
