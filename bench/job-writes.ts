/**
 * Job writes as users make them, against `npm start` (the built server in its own process, on the
 * bench's PostgreSQL):
 * 1. `createJob` by 50 concurrent GraphQL clients (keep-alive), jobs/s — beside the same-run
 *    baseline: the same rows as plain single-row INSERTs by 50 pg clients. Goal ≥ 2,000 jobs/s,
 *    or ≥ ⅓ of the baseline when the baseline itself is under 6,000/s. Baseline and cronql
 *    alternate over BENCH_ROUNDS rounds (median of each). Printed beside the rates, steadier than
 *    they are on a shared machine: the server's CPU and its PostgreSQL backends' CPU per createJob.
 * 2. `cronql apply` of a file of 10,000 jobs (the CLI as a user runs it), then the same file
 *    again (nothing to change), beside the same-run baseline: the same 10,000 rows as INSERTs of
 *    1,000 rows each through pg. Goal ≤ 10 s.
 *
 *   BENCH_CREATE_JOBS=5000 BENCH_APPLY_JOBS=10000 node dist/bench/job-writes.js
 *   BENCH_WRITES=create BENCH_BEFORE_MAIN=../before/dist/src/main.js node dist/bench/job-writes.js
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freshDatabase, log, report } from './lib/bench.js';
import { BENCH_ADMIN_TOKEN, cpuMsOf, graphqlClient, startServer } from './lib/process.js';
import { benchServer } from './server.js';

const CREATE_JOBS = Number(process.env.BENCH_CREATE_JOBS ?? 5_000);
const APPLY_JOBS = Number(process.env.BENCH_APPLY_JOBS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 50;
const BEFORE_MAIN = process.env.BENCH_BEFORE_MAIN;
const CLI = fileURLToPath(new URL('../src/cli/cronql.js', import.meta.url));

const CREATE = `mutation ($input: CreateJobInput!) { createJob(input: $input) { id key version status } }`;
const cron = (i: number) => `${i % 60} ${i % 24} * * *`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `n` calls of `one(i)` by `clients` concurrent workers; returns the calls per second. */
async function concurrently(n: number, clients: number, one: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < n; i = next++) await one(i);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** The same rows createJob writes (its columns but the defaults), as plain INSERTs by `clients` pg clients. */
async function plainInserts(url: string, prefix: string, n: number, dbCpu: number[] = []): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: CLIENTS });
  await Promise.all(Array.from({ length: CLIENTS }, () => pool.query('SELECT 1')));
  const backends0 = await backendsCpu(url);
  const rate = await concurrently(n, CLIENTS, async (i) => {
    const now = new Date();
    await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload, created_by, updated_by, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 1, 'log', 'RECURRING', $2, 'UTC', 'ACTIVE', $3, 'admin', 'admin', $4, $4)`,
      [`${prefix}-${i}`, cron(i), { message: `job ${i}` }, now],
    );
  });
  dbCpu.push(cpuSpent(backends0, await backendsCpu(url)) / n);
  await pool.end();
  return rate;
}

/** The CPU time (ms) of each PostgreSQL backend connected to the database at `url` (the server's connections), by pid. */
async function backendsCpu(url: string): Promise<Map<number, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    const out = new Map<number, number>();
    for (const { pid } of rows) {
      const ms = await cpuMsOf(pid);
      if (ms !== undefined) out.set(pid, ms);
    }
    return out;
  } finally {
    await client.end();
  }
}

/** The CPU the backends spent between two readings (a connection opened meanwhile counts from zero). */
const cpuSpent = (before: Map<number, number>, after: Map<number, number>): number => [...after].reduce((sum, [pid, ms]) => sum + ms - (before.get(pid) ?? 0), 0);

async function createJobs(url: string, prefix: string, n: number): Promise<number> {
  const client = graphqlClient(url, CLIENTS);
  let errors = 0;
  const rate = await concurrently(n, CLIENTS, async (i) => {
    const res = await client.post(CREATE, {
      input: { key: `${prefix}-${i}`, target: 'log', scheduleType: 'RECURRING', cronExpression: cron(i), payload: { message: `job ${i}` } },
    });
    if (res.errors) errors++;
  });
  await client.close();
  if (errors) throw new Error(`createJob: ${errors} of ${n} calls failed`);
  return rate;
}

async function createBench(serverUrl: string): Promise<void> {
  const db = await freshDatabase(serverUrl, 'cronql_bench_job_writes');
  const server = await startServer(db.url);
  // BENCH_BEFORE_MAIN: another build's dist/src/main.js, on a database of its own, run in the same
  // rounds (the order alternating), for a before/after comparison on the same PostgreSQL.
  const beforeDb = BEFORE_MAIN ? await freshDatabase(serverUrl, 'cronql_bench_job_writes_before') : undefined;
  const before = beforeDb ? await startServer(beforeDb.url, {}, BEFORE_MAIN) : undefined;
  try {
    const runs = [{ name: 'cronql', server, db, rates: [] as number[], cpu: [] as number[], dbCpu: [] as number[] }];
    if (before && beforeDb) runs.push({ name: 'before', server: before, db: beforeDb, rates: [], cpu: [], dbCpu: [] });
    const baselines: number[] = [];
    const baselineDbCpu: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      baselines.push(await plainInserts(db.url, `plain-${r}`, CREATE_JOBS, baselineDbCpu));
      for (const run of r % 2 ? [...runs].reverse() : runs) {
        const cpu0 = await cpuMsOf(run.server.child.pid);
        const backends0 = await backendsCpu(run.db.url);
        run.rates.push(await createJobs(run.server.url, `gql-${r}`, CREATE_JOBS));
        const cpu1 = await cpuMsOf(run.server.child.pid);
        const backends1 = await backendsCpu(run.db.url);
        if (cpu0 !== undefined && cpu1 !== undefined) run.cpu.push((cpu1 - cpu0) / CREATE_JOBS);
        run.dbCpu.push(cpuSpent(backends0, backends1) / CREATE_JOBS);
      }
      // Every job created is armed by the server (one process, role all): the next round starts from more.
    }
    const value = median(runs[0].rates);
    const baseline = median(baselines);
    const goal = baseline < 6_000 ? Math.min(2_000, baseline / 3) : 2_000;
    report({
      scenario: `createJob, ${CLIENTS} concurrent clients, ${CREATE_JOBS.toLocaleString('en')} jobs × ${ROUNDS} rounds`,
      figure: 'median',
      value,
      baselineName: `plain INSERTs by ${CLIENTS} pg clients`,
      baseline,
      unit: 'jobs/s',
      goal: baseline < 6_000 ? `≥ ⅓ of the baseline (${Math.round(goal)} jobs/s) or ≥ 2,000 jobs/s` : '≥ 2,000 jobs/s',
      met: value >= goal,
    });
    console.log(`  rounds: baseline ${baselines.map((x) => Math.round(x)).join(' / ')} jobs/s`);
    console.log(`    PostgreSQL backends' CPU per INSERT (the server's connections, too): ${baselineDbCpu.map((x) => x.toFixed(2)).join(' / ')} ms (median ${median(baselineDbCpu).toFixed(2)})`);
    for (const run of runs) {
      console.log(`  ${run.name}: ${run.rates.map((x) => Math.round(x)).join(' / ')} jobs/s (median ${Math.round(median(run.rates))}, ${(median(run.rates) / baseline).toFixed(2)}× the baseline)`);
      // Steadier than the rates on a shared machine (the first round includes loading the job store).
      if (run.cpu.length) console.log(`    server CPU per createJob: ${run.cpu.map((x) => x.toFixed(2)).join(' / ')} ms (median ${median(run.cpu).toFixed(2)})`);
      console.log(`    its PostgreSQL backends' CPU per createJob: ${run.dbCpu.map((x) => x.toFixed(2)).join(' / ')} ms (median ${median(run.dbCpu).toFixed(2)})`);
    }
  } finally {
    await server.stop();
    await before?.stop();
    await db.drop();
    await beforeDb?.drop();
  }
}

function cli(url: string, args: string[]): Promise<{ ms: number; out: string }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, CRONQL_URL: url, CRONQL_TOKEN: BENCH_ADMIN_TOKEN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - t0, out }) : reject(new Error(`cronql ${args.join(' ')} exited ${code}: ${out.slice(-2_000)}`)))),
  );
}

async function applyBench(serverUrl: string): Promise<void> {
  const db = await freshDatabase(serverUrl, 'cronql_bench_apply');
  const dir = await mkdtemp(join(tmpdir(), 'cronql-bench-apply-'));
  const server = await startServer(db.url);
  try {
    const jobs = Array.from({ length: APPLY_JOBS }, (_, i) => ({
      key: `bulk.job-${i}`,
      target: 'log',
      cron: cron(i),
      timezone: i % 2 ? 'Europe/Paris' : 'UTC',
      payload: { message: `job ${i}` },
      ...(i % 3 === 0 ? { retry: { maxAttempts: 3 } } : {}),
    }));
    const file = join(dir, 'jobs.json');
    await writeFile(file, JSON.stringify({ namespace: 'bulk', jobs }));
    const first = await cli(server.url, ['--json', 'apply', file]);
    const again = await cli(server.url, ['--json', 'apply', file]);
    const plan = JSON.parse(again.out) as { plan: { action: string }[] };
    const unchanged = plan.plan.filter((p) => p.action === 'unchanged').length;
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    const n = (await pool.query(`SELECT count(*)::int AS n FROM cron_job_definitions WHERE job_key LIKE 'bulk.%'`)).rows[0].n as number;

    // Baseline: the same rows, 1,000 per INSERT, one client.
    const t0 = performance.now();
    for (let from = 0; from < APPLY_JOBS; from += 1_000) {
      const part = jobs.slice(from, from + 1_000);
      await pool.query(
        `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload, retry_max_attempts)
         SELECT gen_random_uuid(), 'plain.' || k, 1, 'log', 'RECURRING', c, z, 'ACTIVE', p, a
         FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::int[]) AS t(k, c, z, p, a)`,
        [part.map((j) => j.key), part.map((j) => j.cron), part.map((j) => j.timezone), part.map((j) => JSON.stringify(j.payload)), part.map((j) => j.retry?.maxAttempts ?? null)],
      );
    }
    const baseline = performance.now() - t0;
    await pool.end();
    report({
      scenario: `cronql apply, ${APPLY_JOBS.toLocaleString('en')} new jobs (${n.toLocaleString('en')} created)`,
      figure: 'CLI start → done',
      value: first.ms,
      baselineName: 'the rows as INSERTs of 1,000 through pg',
      baseline,
      goal: '≤ 10 s',
      met: first.ms <= 10_000 && n === APPLY_JOBS,
    });
    report({
      scenario: `cronql apply of the same file again (${unchanged.toLocaleString('en')} unchanged)`,
      figure: 'CLI start → done',
      value: again.ms,
      baselineName: 'the first apply',
      baseline: first.ms,
    });
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    await db.drop();
  }
}

const server = await benchServer(log);
try {
  if (process.env.BENCH_WRITES !== 'apply') await createBench(server.url);
  if (process.env.BENCH_WRITES !== 'create') await applyBench(server.url);
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
