#!/usr/bin/env node
/**
 * Memory of real cronql processes by number of ACTIVE jobs: the figures the Kubernetes
 * manifests' resource requests come from (docs/operations.md, "Containers and Kubernetes").
 *
 *   npm run build && node scripts/measure-rss.mjs            RSS_JOBS=0,1000,10000 RSS_IDLE_S=30 RSS_FIRING_S=130
 *
 * For each size, a database of its own on one embedded PostgreSQL, N jobs inserted, then
 * `node dist/src/main.js` started as a container starts it (CRONQL_ROLE=scheduler, DATABASE_URL)
 * and its resident set (VmRSS) sampled every second once /readyz answers 200:
 * - idle: daily schedules (nothing fires during the sample), RSS_IDLE_S seconds;
 * - firing: every job `* * * * *` (N runs a minute, `log` target), RSS_FIRING_S seconds, so that
 *   the sample spans at least two minute boundaries.
 * And an API process (CRONQL_ROLE=api) on the 10,000-job database, idle. Prints a table.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = fileURLToPath(new URL('../', import.meta.url));
const { startEmbeddedPostgres } = await import(join(root, 'dist/src/db/embedded-postgres.js'));
const { migrateDatabase } = await import(join(root, 'dist/src/db/orm.js'));
const { createLogger } = await import(join(root, 'dist/src/logger.js'));

const SIZES = (process.env.RSS_JOBS ?? '0,1000,10000').split(',').map(Number);
const IDLE_S = Number(process.env.RSS_IDLE_S ?? 30);
const FIRING_S = Number(process.env.RSS_FIRING_S ?? 130);

const dir = await mkdtemp(join(tmpdir(), 'cronql-rss-'));
const db = await startEmbeddedPostgres({ dataDir: dir, log: createLogger(), ephemeral: true, database: 'cronql_rss' });
const rows = [];
try {
  for (const n of SIZES) rows.push(await measure(n, 'idle', 'scheduler', IDLE_S));
  for (const n of SIZES.filter((s) => s > 0)) rows.push(await measure(n, 'firing', 'scheduler', FIRING_S));
  rows.push(await measure(Math.max(...SIZES), 'idle', 'api', IDLE_S));
} finally {
  await db.stop();
  await rm(dir, { recursive: true, force: true });
}
console.log('\n| role | active jobs | schedules | RSS after ready | RSS median | RSS peak | samples |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.role} | ${r.n.toLocaleString('en')} | ${r.mode} | ${r.first} MiB | ${r.median} MiB | ${r.peak} MiB | ${r.samples} s |`);

async function measure(n, mode, role, seconds) {
  const name = `cronql_rss_${mode}_${n}_${role}`;
  const admin = new pg.Client({ connectionString: db.url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(db.url);
  url.pathname = `/${name}`;
  await migrateDatabase(url.href);
  const c = new pg.Client({ connectionString: url.href });
  await c.connect();
  const crons = mode === 'firing' ? ['* * * * *'] : ['0 3 * * *', '30 2 * * *', '0 0 1 * *', '15 4 * * 1'];
  await c.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload)
     SELECT gen_random_uuid(), 'rss-' || i, 1, 'log', 'RECURRING', ($2::text[])[1 + i % cardinality($2::text[])],
       (ARRAY['UTC', 'America/New_York', 'Europe/Berlin', 'Asia/Kolkata'])[1 + i % 4], 'ACTIVE', jsonb_build_object('message', 'job ' || i)
     FROM generate_series(1, $1) AS i`,
    [n, crons],
  );
  await c.query('VACUUM ANALYZE');
  await c.end();

  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url.href, CRONQL_ROLE: role, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', CRONQL_ADMIN_TOKEN: 'rss-measure-admin-token', CRONQL_DATA_DIR: join(dir, name) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  const base = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`${role} exited ${code} before listening`)));
  });
  const deadline = Date.now() + 120_000;
  while ((await fetch(`${base}/readyz`).then((r) => r.status, () => 0)) !== 200) {
    if (Date.now() > deadline) throw new Error(`${role} with ${n} jobs not ready within 120 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
  const samples = [];
  for (let i = 0; i < seconds; i++) {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    samples.push(Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) / 1024);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  child.kill('SIGTERM');
  await exited;
  const sorted = [...samples].sort((a, b) => a - b);
  const row = { role, n, mode, first: samples[0].toFixed(0), median: sorted[Math.floor(sorted.length / 2)].toFixed(0), peak: sorted.at(-1).toFixed(0), samples: samples.length };
  console.log(JSON.stringify(row));
  return row;
}
