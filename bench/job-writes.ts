/**
 * Job writes as users make them, against `npm start` (the built server in its own process, on the
 * bench's PostgreSQL):
 * 1. `createJob` by 50 concurrent GraphQL clients (keep-alive), jobs/s — beside the same-run
 *    baseline: the same rows as plain single-row INSERTs by 50 pg clients. Goal ≥ 2,000 jobs/s,
 *    or ≥ ⅓ of the baseline when the baseline itself is under 6,000/s. Baseline and cronql
 *    alternate over BENCH_ROUNDS rounds (median of each). Printed beside the rates, steadier than
 *    they are on a shared machine: the server's CPU and its PostgreSQL backends' CPU per createJob.
 * 2. `cronql apply` of a file of 10,000 jobs (the CLI as a user runs it), then the same file
 *    again (nothing to change), then the file with every job changed (a label added: 10,000 new
 *    versions), each beside its same-run baseline through pg: the rows as INSERTs of 1,000, the
 *    live rows read, the versions as an UPDATE and an INSERT of 1,000 a transaction. Goals: new
 *    and changed ≤ 10 s, unchanged ≤ 2 s. A fresh database per build and round; with
 *    BENCH_BEFORE_MAIN, that build's server and CLI in the same rounds. Printed beside the wall
 *    times: the CPU of the CLI, of the server and of its PostgreSQL backends.
 *
 *   BENCH_CREATE_JOBS=5000 BENCH_APPLY_JOBS=10000 node dist/bench/job-writes.js
 *   BENCH_WRITES=create BENCH_BEFORE_MAIN=../before/dist/src/main.js node dist/bench/job-writes.js
 *   BENCH_WRITES=apply BENCH_BEFORE_MAIN=../before/dist/src/main.js node dist/bench/job-writes.js
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

/** A CLI run: wall time (spawn → exit) and the process's own CPU time, in ms. */
interface CliRun {
  ms: number;
  cpuMs: number;
  out: string;
}

const CPU_ON_EXIT = pathToFileURL(fileURLToPath(new URL('./lib/cpu-on-exit.js', import.meta.url))).href;

async function cli(url: string, args: string[], cliPath = CLI): Promise<CliRun> {
  const cpuFile = join(tmpdir(), `cronql-bench-cli-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', CPU_ON_EXIT, cliPath, ...args], {
    env: { ...process.env, CRONQL_URL: url, CRONQL_TOKEN: BENCH_ADMIN_TOKEN, BENCH_CPU_FILE: cpuFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const ms = await new Promise<number>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`cronql ${args.join(' ')} exited ${code}: ${out.slice(-2_000)}`)))),
  );
  const cpuMs = Number(await readFile(cpuFile, 'utf8'));
  await rm(cpuFile, { force: true });
  return { ms, cpuMs, out };
}

/** The file's jobs: a mix of time zones, payloads and retry policies; `changed` adds a label to each (a bulk edit). */
const applyJobs = (changed: boolean) =>
  Array.from({ length: APPLY_JOBS }, (_, i) => ({
    key: `bulk.job-${i}`,
    target: 'log',
    cron: cron(i),
    timezone: i % 2 ? 'Europe/Paris' : 'UTC',
    payload: { message: `job ${i}` },
    ...(i % 3 === 0 ? { retry: { maxAttempts: 3 } } : {}),
    ...(changed ? { labels: { team: 'bulk' } } : {}),
  }));

/** The same rows as `jobs`, 1,000 per INSERT through pg: what a new apply writes, at the database's speed. */
async function plainNewRows(pool: pg.Pool, jobs: ReturnType<typeof applyJobs>, prefix: string): Promise<number> {
  const t0 = performance.now();
  for (let from = 0; from < jobs.length; from += 1_000) {
    const part = jobs.slice(from, from + 1_000);
    await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload, retry_max_attempts)
       SELECT gen_random_uuid(), $6 || k, 1, 'log', 'RECURRING', c, z, 'ACTIVE', p, a
       FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::int[]) AS t(k, c, z, p, a)`,
      [part.map((j) => j.key), part.map((j) => j.cron), part.map((j) => j.timezone), part.map((j) => JSON.stringify(j.payload)), part.map((j) => j.retry?.maxAttempts ?? null), prefix],
    );
  }
  return performance.now() - t0;
}

/** The live rows of the keys starting with `prefix` read through pg: what an unchanged apply needs of the server, at the database's speed. */
async function plainRead(pool: pg.Pool, prefix: string): Promise<number> {
  const t0 = performance.now();
  await pool.query(`SELECT * FROM cron_job_definitions WHERE status <> 'RETIRED' AND job_key LIKE $1 || '%'`, [prefix]);
  return performance.now() - t0;
}

/**
 * A new version of each live row of the keys starting with `prefix`, 1,000 per transaction through
 * pg (the old rows retired by one UPDATE, the new ones written by one INSERT … SELECT): what a
 * changed apply writes, at the database's speed.
 */
async function plainVersions(pool: pg.Pool, prefix: string): Promise<number> {
  const keys = (await pool.query(`SELECT job_key FROM cron_job_definitions WHERE status <> 'RETIRED' AND job_key LIKE $1 || '%' ORDER BY job_key`, [prefix])).rows.map((r) => r.job_key as string);
  const t0 = performance.now();
  for (let from = 0; from < keys.length; from += 1_000) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `WITH old AS (UPDATE cron_job_definitions SET status = 'RETIRED' WHERE job_key = ANY($1::text[]) AND status <> 'RETIRED' RETURNING *)
         INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload, retry_max_attempts, labels, supersedes_job_id)
         SELECT gen_random_uuid(), job_key, version + 1, target, schedule_type, cron_expression, timezone, 'ACTIVE', payload, retry_max_attempts, '{"team":"bulk"}', id FROM old`,
        [keys.slice(from, from + 1_000)],
      );
      await client.query('COMMIT');
    } finally {
      client.release();
    }
  }
  return performance.now() - t0;
}

/** One build's apply figures over the rounds: wall and CPU of the CLI, CPU of the server and of its PostgreSQL backends. */
interface ApplyRuns {
  name: string;
  cli: string;
  main?: string;
  figures: Record<'create' | 'unchanged' | 'changed', { ms: number[]; cliCpu: number[]; serverCpu: number[]; dbCpu: number[] }>;
}

const applyFigures = () => ({ ms: [] as number[], cliCpu: [] as number[], serverCpu: [] as number[], dbCpu: [] as number[] });

async function applyBench(serverUrl: string): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'cronql-bench-apply-'));
  const file = join(dir, 'jobs.json');
  const changedFile = join(dir, 'jobs-changed.json');
  await writeFile(file, JSON.stringify({ namespace: 'bulk', jobs: applyJobs(false) }));
  await writeFile(changedFile, JSON.stringify({ namespace: 'bulk', jobs: applyJobs(true) }));
  // BENCH_BEFORE_MAIN: another build (its server and its CLI) in the same rounds, the order alternating.
  const runs: ApplyRuns[] = [{ name: 'cronql', cli: CLI, figures: { create: applyFigures(), unchanged: applyFigures(), changed: applyFigures() } }];
  if (BEFORE_MAIN) runs.push({ name: 'before', cli: join(dirname(BEFORE_MAIN), 'cli', 'cronql.js'), main: BEFORE_MAIN, figures: { create: applyFigures(), unchanged: applyFigures(), changed: applyFigures() } });
  const baselines = { create: [] as number[], unchanged: [] as number[], changed: [] as number[] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (const run of r % 2 ? [...runs].reverse() : runs) {
        const db = await freshDatabase(serverUrl, 'cronql_bench_apply');
        const server = await startServer(db.url, {}, run.main);
        try {
          const timed = async (what: keyof ApplyRuns['figures'], path: string, expect: string) => {
            const cpu0 = await cpuMsOf(server.child.pid);
            const backends0 = await backendsCpu(db.url);
            const res = await cli(server.url, ['--json', 'apply', path], run.cli);
            const cpu1 = await cpuMsOf(server.child.pid);
            const f = run.figures[what];
            f.ms.push(res.ms);
            f.cliCpu.push(res.cpuMs);
            if (cpu0 !== undefined && cpu1 !== undefined) f.serverCpu.push(cpu1 - cpu0);
            f.dbCpu.push(cpuSpent(backends0, await backendsCpu(db.url)));
            console.log(`  round ${r + 1}, ${run.name}, ${what}: ${Math.round(res.ms)} ms (CLI CPU ${Math.round(res.cpuMs)} ms)`);
            const plan = (JSON.parse(res.out) as { plan: { action: string }[] }).plan;
            const n = plan.filter((p) => p.action === expect).length;
            if (n !== APPLY_JOBS) throw new Error(`${run.name} apply (${what}): ${n} of ${APPLY_JOBS} ${expect}`);
          };
          await timed('create', file, 'create');
          await timed('unchanged', file, 'unchanged');
          await timed('changed', changedFile, 'version');
          const pool = new pg.Pool({ connectionString: db.url, max: 1 });
          const versions = (await pool.query(`SELECT count(*)::int AS n FROM cron_job_definitions WHERE job_key LIKE 'bulk.%' AND version = 2 AND status = 'ACTIVE' AND labels = '{"team":"bulk"}'`)).rows[0].n as number;
          if (versions !== APPLY_JOBS) throw new Error(`${run.name}: ${versions} of ${APPLY_JOBS} jobs at version 2 with the new label`);
          // The same-run baselines, on the same database (beside the build's own rows): once per round.
          if (run === runs[0]) {
            baselines.create.push(await plainNewRows(pool, applyJobs(false), 'plain.'));
            baselines.unchanged.push(await plainRead(pool, 'plain.'));
            baselines.changed.push(await plainVersions(pool, 'plain.'));
          }
          await pool.end();
        } finally {
          await server.stop();
          await db.drop();
        }
      }
    }
    const what = {
      create: { scenario: `cronql apply, ${APPLY_JOBS.toLocaleString('en')} new jobs`, baselineName: 'the rows as INSERTs of 1,000 through pg', goal: '≤ 10 s', limit: 10_000 },
      unchanged: { scenario: `cronql apply of the same file again (${APPLY_JOBS.toLocaleString('en')} unchanged)`, baselineName: 'the live rows read through pg', goal: '≤ 2 s', limit: 2_000 },
      changed: { scenario: `cronql apply of the file with every job changed (${APPLY_JOBS.toLocaleString('en')} new versions)`, baselineName: 'the versions as UPDATE + INSERT of 1,000 through pg', goal: '≤ 10 s', limit: 10_000 },
    } as const;
    for (const key of ['create', 'unchanged', 'changed'] as const) {
      const value = median(runs[0].figures[key].ms);
      report({ scenario: what[key].scenario, figure: `CLI start → done, median of ${ROUNDS}`, value, baselineName: what[key].baselineName, baseline: median(baselines[key]), goal: what[key].goal, met: value <= what[key].limit });
      console.log(`  baseline: ${baselines[key].map((x) => Math.round(x)).join(' / ')} ms`);
      for (const run of runs) {
        const f = run.figures[key];
        const list = (xs: number[]) => `${xs.map((x) => Math.round(x)).join(' / ')} ms (median ${Math.round(median(xs))})`;
        console.log(`  ${run.name}: ${list(f.ms)}, ${(median(f.ms) / median(baselines[key])).toFixed(1)}× the baseline`);
        console.log(`    CLI CPU ${list(f.cliCpu)}; server CPU ${list(f.serverCpu)}; its PostgreSQL backends' CPU ${list(f.dbCpu)}`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
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
