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
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { createCronql } from '../src/app.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { createLogger } from '../src/logger.js';
import { ManualClock } from '../src/runtime/clock.js';

const sizes = (process.env.BENCH_SIZES ?? '1000,5000,10000').split(',').map(Number);
const log = createLogger();
log.level = 'silent';

async function server(): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'cronql-bench-'));
  await chmod(dir, 0o755);
  const db = await startEmbeddedPostgres({ dataDir: dir, log, ephemeral: true, database: 'postgres' });
  return { url: db.url, stop: async () => { await db.stop(); await rm(dir, { recursive: true, force: true }); } };
}

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
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload)
     SELECT gen_random_uuid(), 'bench-' || i, 1, 'log', 'RECURRING', '0 * * * * *', 'ACTIVE', '{"message":"x"}'::jsonb
     FROM generate_series(1, $1) AS i`,
    [n],
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
  await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
  await admin.end();
  console.log(
    `${String(n).padStart(6)} co-due slots: armed in ${armMs.toFixed(0)} ms; all PENDING (committed) in ${tPending.toFixed(0)} ms, ` +
      `all RUNNING in ${tRunning.toFixed(0)} ms, all SUCCEEDED in ${tDone.toFixed(0)} ms; rows ${res.rows[0].n} for ${res.rows[0].jobs} jobs`,
  );
}

const db = await server();
try {
  for (const n of sizes) await run(db.url, n);
} finally {
  await db.stop();
}
