/**
 * Scale-out: N jobs (default 200,000) shared by PROCS scheduler processes (default 4,
 * CRONQL_JOB_REPLICAS=2) on one PostgreSQL, beside one process holding them all (same run).
 * Figures: per-process RSS and heap once armed, and how long each took to start (spawn → armed
 * with its share); then one co-due slot of every job: slot → RUNNING p99 over the N runs, beside
 * the floor (one batched INSERT of N RUNNING rows and one UPDATE of them, same database), and the
 * rows recorded for the slot (none missing, none twice).
 *
 *   BENCH_SCALE_JOBS=200000 BENCH_SCALE_PROCS=4 node --expose-gc dist/bench/scale.js
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import WebSocket from 'ws';
import { createCronql } from '../src/app.js';
import { freshDatabase, log, pct, report, until } from './lib/bench.js';
import { benchServer } from './server.js';

const N = Number(process.env.BENCH_SCALE_JOBS ?? 200_000);
const PROCS = Number(process.env.BENCH_SCALE_PROCS ?? 4);
const MAIN = fileURLToPath(new URL('../src/main.js', import.meta.url));

interface Proc {
  child: ChildProcess;
  port: number;
  armedMs: Promise<number>;
  exited: Promise<void>;
}

let nextPort = 47_100;
function start(url: string, id: string, replicas: number): Proc {
  const port = nextPort++;
  const t0 = Date.now();
  // The inspector lets the bench collect garbage in the process before reading its heap.
  const child = spawn(process.execPath, [`--inspect=127.0.0.1:${port + 1_000}`, MAIN], {
    env: {
      ...process.env,
      DATABASE_URL: url,
      PORT: String(port),
      CRONQL_ROLE: 'scheduler',
      CRONQL_INSTANCE_ID: id,
      CRONQL_JOB_REPLICAS: String(replicas),
      CRONQL_RETENTION_DAYS: '0',
      CRONQL_ADMIN_TOKEN: 'bench-admin-token-0123456789',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const armedMs = new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      if (buffer.includes('"msg":"runtime armed"')) resolve(Date.now() - t0);
      if (buffer.length > 1_000_000) buffer = buffer.slice(-10_000);
    });
    child.on('exit', (code) => reject(new Error(`${id} exited (${code}) before it was armed`)));
  });
  armedMs.catch(() => undefined);
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, port, armedMs, exited };
}

/** A full garbage collection in the process, through its inspector (HeapProfiler.collectGarbage). */
async function collectGarbage(p: Proc): Promise<void> {
  const [target] = (await (await fetch(`http://127.0.0.1:${p.port + 1_000}/json/list`)).json()) as { webSocketDebuggerUrl: string }[];
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.on('open', () => ws.send(JSON.stringify({ id: 1, method: 'HeapProfiler.collectGarbage' })));
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { id?: number }).id === 1) resolve();
    });
    ws.on('error', reject);
  });
  ws.close();
}

/** RSS and heap in use of a process after a full GC, from its /metrics (prom-client's process metrics). */
async function memory(p: Proc): Promise<{ rssMiB: number; heapMiB: number; jobs: number }> {
  await collectGarbage(p);
  const text = await (await fetch(`http://127.0.0.1:${p.port}/metrics`)).text();
  const value = (name: string) => Number(text.match(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm'))?.[1] ?? NaN);
  return {
    rssMiB: value('cronql_process_resident_memory_bytes') / 2 ** 20,
    heapMiB: value('cronql_nodejs_heap_size_used_bytes') / 2 ** 20,
    jobs: value('cronql_active_actors'),
  };
}

async function stop(procs: Proc[]): Promise<void> {
  for (const p of procs) p.child.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
}

const server = await benchServer(log);
try {
  const db = await freshDatabase(server.url, `cronql_bench_scale_${N}`);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.stop();
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  // Jobs in bulk (one statement), every one due once a day at the same instant, far enough ahead
  // for the baseline process and the fleet to start.
  const slot = Math.ceil((Date.now() + Number(process.env.BENCH_SCALE_LEAD_MS ?? 90_000)) / 1000) * 1000;
  const d = new Date(slot);
  const cron = `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
  await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status)
     SELECT gen_random_uuid(), 'scale-' || i, 1, 'log', 'RECURRING', $2, 'ACTIVE' FROM generate_series(1, $1) AS i`,
    [N, cron],
  );
  await pool.query('VACUUM ANALYZE cron_job_definitions');

  // Baseline: one process holding every job.
  const one = start(db.url, 'scale-one', 0);
  const oneArmed = await one.armedMs;
  await new Promise((r) => setTimeout(r, 2_000));
  const oneMem = await memory(one);
  await stop([one]);

  // The fleet.
  const fleet = Array.from({ length: PROCS }, (_, i) => start(db.url, `scale-${i + 1}`, 2));
  const armed = await Promise.all(fleet.map((p) => p.armedMs));
  await new Promise((r) => setTimeout(r, 3_000)); // the rebalance after everyone is armed
  const mems = await Promise.all(fleet.map(memory));
  console.log(`scale: one process: armed in ${oneArmed} ms, ${oneMem.jobs} jobs, RSS ${oneMem.rssMiB.toFixed(0)} MiB, heap ${oneMem.heapMiB.toFixed(0)} MiB`);
  fleet.forEach((_, i) =>
    console.log(`scale: process ${i + 1} of ${PROCS}: armed in ${armed[i]} ms, ${mems[i].jobs} jobs, RSS ${mems[i].rssMiB.toFixed(0)} MiB, heap ${mems[i].heapMiB.toFixed(0)} MiB`),
  );
  report({
    scenario: `scale ${N.toLocaleString('en')} jobs over ${PROCS} schedulers (replicas 2)`,
    figure: 'mean heap per process (after a full GC)',
    value: mems.reduce((a, m) => a + m.heapMiB, 0) / PROCS,
    baselineName: 'one process holding all',
    baseline: oneMem.heapMiB,
    unit: 'MiB',
    goal: '≈ half of one process',
    met: mems.reduce((a, m) => a + m.heapMiB, 0) / PROCS <= 0.65 * oneMem.heapMiB,
  });
  report({
    scenario: `scale ${N.toLocaleString('en')} jobs over ${PROCS} schedulers (replicas 2)`,
    figure: 'mean RSS per process',
    value: mems.reduce((a, m) => a + m.rssMiB, 0) / PROCS,
    baselineName: 'one process holding all',
    baseline: oneMem.rssMiB,
    unit: 'MiB',
  });

  // The co-due slot of every job.
  if (Date.now() > slot - 2_000) console.log('scale: the fleet was armed too late for the slot; raise BENCH_SCALE_LEAD_MS');
  await until(slot + 30_000);
  const res = await pool.query(
    `SELECT count(*)::int AS rows, count(DISTINCT job_definition_id)::int AS jobs,
       percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM started_at - scheduled_at) * 1000) AS p99
     FROM cron_job_runs WHERE scheduled_at = $1 AND trigger_type = 'SCHEDULED'`,
    [new Date(slot)],
  );
  await stop(fleet);
  const { rows, jobs, p99 } = res.rows[0];

  // Floor: N RUNNING rows in one INSERT, then one UPDATE of them, on the same database.
  const floorAt = new Date(slot + 86_400_000);
  const t = Date.now();
  const ins = await pool.query(
    `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id)
     SELECT gen_random_uuid(), id, job_key, version, target, 'SCHEDULED', $1, 'RUNNING', now(), 'floor' FROM cron_job_definitions ON CONFLICT DO NOTHING RETURNING id`,
    [floorAt],
  );
  await pool.query(`UPDATE cron_job_runs SET updated_at = now() WHERE id = ANY($1::uuid[])`, [ins.rows.map((r) => r.id)]);
  const floor = Date.now() - t;
  console.log(`scale: slot ${d.toISOString()}: ${rows} rows for ${jobs} jobs (expected ${N}); startup of one share p50 ${pct(armed, 0.5)} ms vs all jobs in one process ${oneArmed} ms`);
  report({
    scenario: `scale ${N.toLocaleString('en')} co-due jobs over ${PROCS} schedulers`,
    figure: 'slot → RUNNING p99',
    value: Number(p99),
    baselineName: 'floor (INSERT + UPDATE of N)',
    baseline: floor,
    unit: 'ms',
    goal: 'every slot once',
    met: rows === N && jobs === N,
  });
  await pool.end();
  await db.drop();
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
