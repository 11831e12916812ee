/**
 * Benchmark: N jobs whose slot falls due in the same second.
 * Goal (PRODUCT.md, road ahead): thousands of co-due slots committed within tens of milliseconds.
 *
 *   npm run bench              # N = 1000, 5000, 10000
 *   BENCH_SIZES=20000 npm run bench
 *
 * Uses DATABASE_URL if set, else an embedded PostgreSQL in a temporary directory. Time is a
 * ManualClock, so the measured span starts exactly when the slot comes due.
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createCronql } from '../src/app.js';
import { createLogger } from '../src/logger.js';
import { benchServer } from './server.js';
import { ManualClock } from '../src/runtime/clock.js';

const sizes = (process.env.BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const log = createLogger();
log.level = 'silent';

async function run(serverUrl: string, n: number): Promise<void> {
  const name = `cronql_bench_${n}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  // First start creates the schema; then the jobs are bulk-inserted and a second start arms them.
  const setup = createCronql({ databaseUrl: url.toString(), clock, log, listen: false, role: 'api' });
  await setup.start();
  // Created (and so ACTIVE since) at the clock's time: the ledger has nothing missed to account for.
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload, created_at, updated_at)
     SELECT gen_random_uuid(), 'bench-' || i, 1, 'log', 'RECURRING', '0 * * * * *', 'ACTIVE', '{"message":"x"}'::jsonb, $2, $2
     FROM generate_series(1, $1) AS i`,
    [n, clock.now()],
  );
  await setup.stop();

  const cronql = createCronql({ databaseUrl: url.toString(), clock, log, listen: false });
  const t0 = performance.now();
  await cronql.start();
  const armMs = performance.now() - t0;

  let pending = 0;
  let running = 0;
  let done = 0;
  let tPending = 0;
  let tRunning = 0;
  let tDone = 0;
  let start = 0;
  const all = new Promise<void>((resolve) => {
    cronql.events.on((c) => {
      if (c.run.status === 'PENDING' && ++pending === n) tPending = performance.now() - start;
      if (c.run.status === 'RUNNING' && ++running === n) tRunning = performance.now() - start;
      if (c.run.status === 'SUCCEEDED' && ++done === n) {
        tDone = performance.now() - start;
        resolve();
      }
    });
  });
  start = performance.now();
  clock.set('2026-06-01T12:01:00.000Z');
  await all;
  const res = await cronql.pool.query(`SELECT count(*)::int AS n, count(DISTINCT job_definition_id)::int AS jobs FROM cron_job_runs`);
  await cronql.stop();
  const baselineMs = await baseline(url.toString(), n);
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
  console.log(
    `${String(n).padStart(6)} co-due slots: armed in ${armMs.toFixed(0)} ms; all PENDING (committed) in ${tPending.toFixed(0)} ms, ` +
      `all RUNNING in ${tRunning.toFixed(0)} ms, all SUCCEEDED in ${tDone.toFixed(0)} ms; rows ${res.rows[0].n} for ${res.rows[0].jobs} jobs\n` +
      `${' '.repeat(6)} baseline, same run: one INSERT … ON CONFLICT per slot over a pool of 10 records them RUNNING in ${baselineMs.toFixed(0)} ms ` +
      `(cronql ${(baselineMs / tRunning).toFixed(1)}× faster)`,
  );
}

/**
 * What a scheduler without batching does: one keyed INSERT per due slot, ten at a time, on the
 * same database and jobs (the next slot, so nothing conflicts). Measured after cronql's run.
 */
async function baseline(url: string, n: number): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  try {
    const jobs = (await pool.query(`SELECT id FROM cron_job_definitions ORDER BY id`)).rows.map((r) => r.id as string);
    const slot = new Date('2026-06-01T12:02:00.000Z');
    const t0 = performance.now();
    await Promise.all(
      jobs.map((id) =>
        pool.query(
          `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type, scheduled_at,
             status, started_at, runner_instance_id, created_at, updated_at)
           SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, j.payload, 'SCHEDULED', $2, 'RUNNING', now(), 'baseline', now(), now()
           FROM cron_job_definitions j WHERE j.id = $1
           ON CONFLICT DO NOTHING`,
          [id, slot],
        ),
      ),
    );
    const ms = performance.now() - t0;
    if (jobs.length !== n) throw new Error(`baseline: expected ${n} jobs, found ${jobs.length}`);
    return ms;
  } finally {
    await pool.end();
  }
}

const db = await benchServer(log);
try {
  for (const n of sizes) await run(db.url, n);
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await db.stop();
}
