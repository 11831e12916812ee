/**
 * Maintenance load: the statements an idle cluster sends for its upkeep (heartbeats, the lost-run
 * rescue, pending claims, …), with 1 and with PROCS scheduler processes on one database. Counted
 * as committed transactions of that database (pg_stat_database.xact_commit: every statement
 * outside an explicit transaction is one) over a fixed window once every process is armed. No
 * job fires in the window (their one daily slot is hours away), no client calls the API: what
 * is left is maintenance.
 *
 *   BENCH_MAINT_PROCS=4 BENCH_MAINT_WINDOW_MS=30000 node dist/bench/maintenance.js
 *   BENCH_MAINT_MAIN=/other/build/dist/src/main.js …   (another build, e.g. a baseline)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createCronql } from '../src/app.js';
import { freshDatabase, log, report } from './lib/bench.js';
import { benchServer } from './server.js';

const PROCS = Number(process.env.BENCH_MAINT_PROCS ?? 4);
const WINDOW_MS = Number(process.env.BENCH_MAINT_WINDOW_MS ?? 30_000);
const JOBS = Number(process.env.BENCH_MAINT_JOBS ?? 200);
const MAIN = process.env.BENCH_MAINT_MAIN ?? fileURLToPath(new URL('../src/main.js', import.meta.url));
const ENV = { CRONQL_HEARTBEAT_MS: '1000', CRONQL_LOST_AFTER_MS: '5000' };

interface Proc {
  child: ChildProcess;
  armed: Promise<void>;
  exited: Promise<void>;
}

function start(url: string, id: string): Proc {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, ...ENV, DATABASE_URL: url, PORT: '0', CRONQL_ROLE: 'scheduler', CRONQL_INSTANCE_ID: id, CRONQL_ADMIN_TOKEN: 'bench-admin-token-0123456789', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const armed = new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.includes('"msg":"runtime armed"')) resolve();
      if (buffer.length > 1_000_000) buffer = buffer.slice(-10_000);
    });
    child.on('exit', (code) => reject(new Error(`${id} exited (${code}) before it was armed`)));
  });
  armed.catch(() => undefined);
  return { child, armed, exited: new Promise<void>((resolve) => child.on('exit', () => resolve())) };
}

async function commits(pool: pg.Pool): Promise<number> {
  const res = await pool.query('SELECT pg_stat_force_next_flush()').catch(() => null);
  void res;
  const r = await pool.query('SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(r.rows[0].n);
}

/** Statements per second of `n` idle processes, over the window (after a heartbeat-long settle). */
async function measure(url: string, n: number): Promise<number> {
  const procs = Array.from({ length: n }, (_, i) => start(url, `maint-${n}-${i + 1}`));
  await Promise.all(procs.map((p) => p.armed));
  await new Promise((r) => setTimeout(r, 3_000)); // rebalances and first passes settle
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  // Stats are flushed by each backend at most once a second: read, wait the window, read.
  const before = await commits(pool);
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const after = await commits(pool);
  await pool.end();
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  // Our own two reads (and the pg_stat_force_next_flush calls) are not maintenance.
  return (after - before - 2) / (WINDOW_MS / 1000);
}

const server = await benchServer(log);
try {
  const figures: number[] = [];
  for (const n of [1, PROCS]) {
    const db = await freshDatabase(server.url, `cronql_bench_maint_${n}`);
    const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
    await setup.start();
    await setup.stop();
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status)
       SELECT gen_random_uuid(), 'maint-' || i, 1, 'log', 'RECURRING', '0 0 3 * * *', 'Pacific/Kiritimati', 'ACTIVE' FROM generate_series(1, $1) AS i`,
      [JOBS],
    );
    await pool.end();
    const perSecond = await measure(db.url, n);
    figures.push(perSecond);
    console.log(`maintenance: ${n} scheduler(s), ${JOBS} idle jobs, heartbeat ${ENV.CRONQL_HEARTBEAT_MS} ms: ${perSecond.toFixed(1)} statements/s (${(perSecond / n).toFixed(1)} per process)`);
    await db.drop();
  }
  report({
    scenario: `maintenance, idle, heartbeat ${ENV.CRONQL_HEARTBEAT_MS} ms`,
    figure: `statements/s with ${PROCS} schedulers`,
    value: figures[1],
    baselineName: `${PROCS} × one scheduler`,
    baseline: PROCS * figures[0],
    unit: 'stmt/s',
  });
} finally {
  await server.stop();
}
