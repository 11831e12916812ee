/**
 * Co-due lateness as a user feels it: N jobs whose slot falls due in the same second, on the
 * system clock, in one process of role `all` (LISTEN/NOTIFY, the relay, two GraphQL subscribers),
 * each job's handler stamping `Date.now()` — the clock the slot is expressed in — as it is entered.
 *
 * Figures, per round: slot → handler entered (p50, p99, max), slot → RUNNING committed (the fire
 * statement's answer reaching the fire path, `slotRecorded`), and the gap handler entered −
 * `startedAt` as the run's row holds it, and the process's CPU from the slot to the last handler
 * entered, and to the last end published, per run (load-independent, unlike the wall-clock figures). Baseline, same run, same PostgreSQL: the **physical
 * floor** — one timer at the slot, then one batched `INSERT … ON CONFLICT DO NOTHING` and one
 * `UPDATE` of the N rows of a minimal table with the same unique key (job, slot) (median of three);
 * beside it, as a second line, the old floor (the same two statements on cronql's own runs table).
 * Rounds: five at 1,000 co-due (single figures there are the size of the machine's noise), three
 * above; each goal is judged on the median of the rounds' p99 against the median of their floors.
 *
 * The `http` variant: the jobs' target is `http`, calling a local server; figure: slot → arrival
 * at the server, against a plain script sending the same N requests with undici at the instant.
 *
 *   BENCH_CO_DUE=1000,10000,50000 BENCH_ROUNDS=3 BENCH_ZONES=UTC,America/New_York \
 *   BENCH_CO_DUE_HTTP=1000,10000 BENCH_DEBUG=1 node --expose-gc dist/bench/co-due.js
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createClient } from 'graphql-ws';
import { Agent, fetch } from 'undici';
import WebSocket from 'ws';
import { createCronql } from '../src/app.js';
import { startHttpServer } from '../src/http/server.js';
import { gc, log, pct, report, until } from './lib/bench.js';
import { jobsDatabase, nextSlot } from './lib/co-due-jobs.js';
import { benchServer } from './server.js';

const list = (v: string | undefined, fallback: string) => (v ?? fallback).split(',').filter(Boolean);
const SIZES = list(process.env.BENCH_CO_DUE, '1000,10000,50000').map(Number);
const ZONES = list(process.env.BENCH_ZONES, 'UTC,America/New_York');
const HTTP_SIZES = list(process.env.BENCH_CO_DUE_HTTP, '1000,10000').map(Number);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2);
const DEBUG = Boolean(process.env.BENCH_DEBUG);
const TOKEN = 'bench-admin-token-0123456789abcdef';
/** The handler-entered goal at each size, as a multiple of the physical floor. */
const GOAL = (n: number) => (n <= 1_000 ? 1.5 : n <= 10_000 ? 2 : 2.5);
/** Rounds per size: five where figures are noise-sized, three above (`BENCH_ROUNDS` overrides). */
const roundsOf = (n: number) => Number(process.env.BENCH_ROUNDS ?? (n <= 1_000 ? 5 : 3));
const median = (xs: number[]) => pct(xs, 0.5);

interface Round {
  entered: { p50: number; p99: number; max: number };
  committed: { p50: number; p99: number };
  /** handler entered − startedAt, p99 and max (ms). */
  gap: { p99: number; max: number };
  /**
   * The process's CPU (user + system, `process.cpuUsage`) from the slot to the last handler
   * entered, per run (µs): load-independent, unlike the wall-clock figures.
   */
  cpuPerRunUs: number;
  /**
   * The same from the slot to the last run's end published (µs per run): what follows the
   * handlers — the ends' statements, the changes published, relayed and sent to the subscribers —
   * on the cores PostgreSQL shares.
   */
  cpuToEndPerRunUs: number;
  recorded: number;
  readyMs: number;
  heapPerJob: number;
  floor: number;
  oldFloor: number;
}

/** One slot of N co-due jobs through cronql; `arrivals` (http variant) stamps at the server instead. */
async function scenario(serverUrl: string, n: number, zone: string, http?: { url: string; arrivals: number[] }): Promise<Round> {
  const db = await jobsDatabase(serverUrl, n, zone, http ? 'http' : 'bench-enter', (i) =>
    http ? `jsonb_build_object('url', '${http.url}/hit/' || ${i}, 'method', 'POST')` : `'{}'::jsonb`,
  );
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let slot = 0;
  const enteredAt = new Map<string, number>();
  // CPU at the slot (a timer just before it, then spinning to the instant) and at the last handler's entry.
  let cpuAtSlot: NodeJS.CpuUsage | undefined;
  let cpuAtLast: NodeJS.CpuUsage | undefined;
  let cpuAtEnd: NodeJS.CpuUsage | undefined;
  const cronql = createCronql({
    databaseUrl: db.url,
    log,
    role: 'all',
    retentionDays: 0,
    instanceId: `bench-${n}`,
    httpAllowPrivate: true,
    targets: {
      // The user's handler: its first act is to read the clock.
      'bench-enter': ({ run }) => {
        if (run.scheduledAt.getTime() !== slot) return;
        enteredAt.set(run.id, Date.now());
        if (enteredAt.size === n) {
          cpuAtLast = process.cpuUsage();
          if (DEBUG) console.log('  debug: last handler entered'); // a marker among --trace-gc's lines
        }
      },
    },
  });
  const t0 = performance.now();
  await cronql.start();
  const readyMs = performance.now() - t0;
  gc();
  const heapPerJob = (process.memoryUsage().heapUsed - heapBefore) / n;
  const server = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'all', adminToken: TOKEN });
  const clients = Array.from({ length: SUBSCRIBERS }, () =>
    createClient({ url: server.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${TOKEN}` }, retryAttempts: 0 }),
  );
  let delivered = 0;
  for (const c of clients) c.subscribe({ query: 'subscription { runChanged { run { id status } previousStatus } }' }, { next: () => void delivered++, error: () => {}, complete: () => {} });

  slot = nextSlot();
  const cpuTimer = setTimeout(() => {
    while (Date.now() < slot) {
      /* the instant itself: the clock's tick for the slot comes after this callback */
    }
    cpuAtSlot = process.cpuUsage();
    if (DEBUG) console.log('  debug: the slot'); // a marker among --trace-gc's lines
  }, slot - Date.now() - 5);
  const committed: number[] = [];
  cronql.runtimeEvents.on('slotRecorded', (e) => {
    if (e.slot.getTime() === slot && e.kind === 'claimed') committed.push(Date.now() - slot);
  });
  let ended = 0;
  const done = new Promise<void>((resolve) => {
    cronql.events.on((c) => {
      if (c.run.scheduledAt.getTime() !== slot) return;
      if (c.previousStatus === 'RUNNING' || c.run.status === 'SKIPPED') {
        if (++ended !== n) return;
        cpuAtEnd = process.cpuUsage();
        resolve();
      }
    });
  });
  await Promise.race([done, until(slot + 120_000)]);
  clearTimeout(cpuTimer);
  const rows = (
    await cronql.pool.query<{ id: string; started: number }>(
      `SELECT id, (extract(epoch FROM started_at) * 1000)::float8 AS started FROM cron_job_runs WHERE scheduled_at = $1`,
      [new Date(slot)],
    )
  ).rows;
  for (const c of clients) await c.dispose();
  await server.close();
  await cronql.stop();

  const entered = http ? http.arrivals.splice(0).map((t) => t - slot) : [...enteredAt.values()].map((t) => t - slot);
  const gaps = http ? [] : rows.filter((r) => enteredAt.has(r.id)).map((r) => enteredAt.get(r.id)! - r.started);
  if (DEBUG) {
    // For a CPU profile (--cpu-prof) bucketed from the slot: the slot on the profile's clock (µs, monotonic).
    const slotUs = Number(process.hrtime.bigint() / 1000n) - (Date.now() - slot) * 1000;
    console.log(`  debug: slot at ${slotUs} µs monotonic; last handler entered +${Math.max(...entered)} ms`);
  }
  if (DEBUG) console.log(`  debug: ${entered.length} entered, ${committed.length} committed, ${delivered} delivered to subscribers, ${rows.length} rows`);

  const floors: number[] = [];
  for (let i = 0; i < 3; i++) floors.push(await physicalFloor(db.url, new Date(slot + (i + 1) * 3_600_000)));
  if (ended < n) console.log(`  ${n - ended} of ${n} runs had not ended 120 s after the slot`);
  const oldFloor = await runsTableFloor(db.url, new Date(slot + 10 * 3_600_000));
  await db.drop();
  return {
    entered: { p50: pct(entered, 0.5), p99: pct(entered, 0.99), max: Math.max(...entered) },
    committed: { p50: pct(committed, 0.5), p99: pct(committed, 0.99) },
    gap: { p99: pct(gaps, 0.99), max: Math.max(...gaps) },
    cpuPerRunUs: cpuAtSlot && cpuAtLast ? cpuSince(cpuAtSlot, cpuAtLast) / n : NaN,
    cpuToEndPerRunUs: cpuAtSlot && cpuAtEnd ? cpuSince(cpuAtSlot, cpuAtEnd) / n : NaN,
    recorded: rows.length,
    readyMs,
    heapPerJob,
    floor: median(floors),
    oldFloor,
  };
}

/** User + system CPU (µs) between two readings of `process.cpuUsage`. */
const cpuSince = (from: NodeJS.CpuUsage, to: NodeJS.CpuUsage) => to.user + to.system - from.user - from.system;

/**
 * The physical floor: one timer at the slot, one batched `INSERT … ON CONFLICT DO NOTHING` of the
 * N slots and one `UPDATE` of the N rows into a minimal table with the same unique key (job, slot),
 * on the same database (same PostgreSQL, same durability).
 */
async function physicalFloor(url: string, slot: Date): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS bench_floor (job_id uuid NOT NULL, slot timestamptz NOT NULL, status text NOT NULL,
      started_at timestamptz, UNIQUE (job_id, slot))`);
    const ids = (await client.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id as string);
    const at = Math.ceil((Date.now() + 500) / 1000) * 1000;
    await until(at);
    const inserted = await client.query(
      `INSERT INTO bench_floor (job_id, slot, status) SELECT u, $2, 'PENDING' FROM unnest($1::uuid[]) AS u ON CONFLICT DO NOTHING`,
      [ids, slot],
    );
    await client.query(`UPDATE bench_floor f SET status = 'RUNNING', started_at = now() FROM unnest($1::uuid[]) AS u WHERE f.job_id = u AND f.slot = $2`, [ids, slot]);
    const ms = Date.now() - at;
    if (inserted.rowCount !== ids.length) throw new Error(`floor: inserted ${inserted.rowCount} of ${ids.length}`);
    return ms;
  } finally {
    await client.end();
  }
}

/** The old floor: the same two statements on cronql's own runs table (its indexes included). */
async function runsTableFloor(url: string, slot: Date): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const ids = (await pool.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id as string);
    // Runs the scenario left active (it gave up waiting) would hold their jobs' lanes.
    await pool.query(`UPDATE cron_job_runs SET status = 'FAILED', finished_at = now() WHERE status IN ('PENDING', 'RUNNING')`);
    const at = Math.ceil((Date.now() + 500) / 1000) * 1000;
    await until(at);
    const inserted = await pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type, scheduled_at, status, created_at, updated_at)
       SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, j.payload, 'SCHEDULED', $2, 'PENDING', now(), now()
       FROM unnest($1::uuid[]) AS u(id) JOIN cron_job_definitions j ON j.id = u.id
       ON CONFLICT DO NOTHING RETURNING id`,
      [ids, slot],
    );
    await pool.query(`UPDATE cron_job_runs SET status = 'RUNNING', started_at = now(), runner_instance_id = 'floor' WHERE id = ANY($1::uuid[])`, [
      inserted.rows.map((r) => r.id),
    ]);
    const ms = Date.now() - at;
    if (inserted.rowCount !== ids.length) throw new Error(`floor: inserted ${inserted.rowCount} of ${ids.length}`);
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = now() WHERE runner_instance_id = 'floor' AND status = 'RUNNING'`);
    return ms;
  } finally {
    await pool.end();
  }
}

/** A local server that stamps each request's arrival (before reading its body) and answers 204. */
async function arrivalsServer(): Promise<{ url: string; arrivals: number[]; close: () => Promise<void> }> {
  const arrivals: number[] = [];
  const server: Server = createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  server.keepAliveTimeout = 60_000;
  // A backlog for N connections opened at once (the default, 511, drops SYNs: seconds of retries).
  await new Promise<void>((r) => server.listen({ port: 0, host: '127.0.0.1', backlog: 65_535 }, r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, arrivals, close: () => new Promise((r) => server.close(() => r())) };
}

/** The plain script: N requests with undici's fetch, all sent at one instant; p99 of arrival − instant. */
async function undiciBaseline(url: string, arrivals: number[], n: number): Promise<number> {
  const agent = new Agent();
  try {
    const at = Math.ceil((Date.now() + 500) / 1000) * 1000;
    await until(at);
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        fetch(`${url}/hit/${i}`, { method: 'POST', body: '{}', dispatcher: agent }).then((r) => r.arrayBuffer()),
      ),
    );
    return pct(arrivals.splice(0).map((t) => t - at), 0.99);
  } finally {
    await agent.close();
  }
}

const fmt = (x: number) => `${Math.round(x).toLocaleString('en')} ms`;

const server = await benchServer(log);
try {
  for (const n of SIZES) {
    const rounds = roundsOf(n);
    const byZone = new Map<string, Round[]>(ZONES.map((z) => [z, []]));
    for (let round = 1; round <= rounds; round++) {
      for (const zone of ZONES) {
        const r = await scenario(server.url, n, zone);
        byZone.get(zone)!.push(r);
        console.log(
          `co-due ${n.toLocaleString('en')} (${zone}) round ${round} | handler entered p50 ${fmt(r.entered.p50)}, p99 ${fmt(r.entered.p99)}, max ${fmt(r.entered.max)} | ` +
            `RUNNING committed p50 ${fmt(r.committed.p50)}, p99 ${fmt(r.committed.p99)} | physical floor ${fmt(r.floor)} (p99 ${(r.entered.p99 / r.floor).toFixed(2)}×; old floor ${fmt(r.oldFloor)}) | ` +
            `entered − startedAt p99 ${fmt(r.gap.p99)}, max ${fmt(r.gap.max)} | CPU slot → last handler ${r.cpuPerRunUs.toFixed(1)} µs/run, → last end ${r.cpuToEndPerRunUs.toFixed(1)} µs/run | rows ${r.recorded} of ${n} | ready ${fmt(r.readyMs)}, heap ${(r.heapPerJob / 1024).toFixed(2)} KB/job`,
        );
      }
    }
    for (const zone of ZONES) {
      const rs = byZone.get(zone)!;
      const name = `co-due ${n.toLocaleString('en')} (${zone}, median of ${rounds})`;
      const floor = median(rs.map((r) => r.floor));
      const entered = median(rs.map((r) => r.entered.p99));
      const everySlot = rs.every((r) => r.recorded === n);
      report({ scenario: name, figure: 'slot → handler entered p99', value: entered, baselineName: 'physical floor', baseline: floor, goal: `≤ ${GOAL(n)}× physical floor, every slot recorded`, met: entered <= GOAL(n) * floor && everySlot });
      report({ scenario: name, figure: 'slot → RUNNING committed p99', value: median(rs.map((r) => r.committed.p99)), baselineName: 'physical floor', baseline: floor });
      report({ scenario: name, figure: 'slot → handler entered p99', value: entered, baselineName: 'old floor (runs table)', baseline: median(rs.map((r) => r.oldFloor)) });
      const gap = median(rs.map((r) => r.gap.p99));
      console.log(`${name} | process CPU slot → last handler entered ${median(rs.map((r) => r.cpuPerRunUs)).toFixed(1)} µs/run, → last end published ${median(rs.map((r) => r.cpuToEndPerRunUs)).toFixed(1)} µs/run | handler entered − startedAt p99 ${fmt(gap)}${n === 10_000 ? ` — goal ≤ 50 ms: ${gap <= 50 ? 'met' : 'NOT MET'}` : ''} | every slot recorded: ${everySlot ? 'yes' : 'NO'}`);
    }
    // A zone against UTC, each as handler-entered p99 / its own same-run floor (the load of the
    // machine moves both figures of a round together), the best round of each (the least disturbed).
    const rel = (z: string) => Math.min(...byZone.get(z)!.map((r) => r.entered.p99 / r.floor));
    if (byZone.has('UTC')) {
      for (const zone of ZONES.filter((z) => z !== 'UTC')) {
        report({ scenario: `co-due ${n.toLocaleString('en')} (${zone} vs UTC, best of ${rounds})`, figure: 'p99 / floor', value: rel(zone) * 100, baselineName: 'UTC p99 / floor', baseline: rel('UTC') * 100, unit: '%', goal: '≤ 1.2× UTC', met: rel(zone) <= 1.2 * rel('UTC') });
      }
    }
  }

  for (const n of HTTP_SIZES) {
    const target = await arrivalsServer();
    try {
      const rounds = roundsOf(n);
      const figures: number[] = [];
      const baselines: number[] = [];
      for (let round = 1; round <= rounds; round++) {
        const r = await scenario(server.url, n, 'UTC', target);
        const plain = await undiciBaseline(target.url, target.arrivals, n);
        figures.push(r.entered.p99);
        baselines.push(plain);
        console.log(`co-due http ${n.toLocaleString('en')} round ${round} | arrival p50 ${fmt(r.entered.p50)}, p99 ${fmt(r.entered.p99)} | plain undici p99 ${fmt(plain)} (${(r.entered.p99 / plain).toFixed(2)}×) | rows ${r.recorded} of ${n}`);
      }
      const value = median(figures);
      const baseline = median(baselines);
      report({ scenario: `co-due http ${n.toLocaleString('en')} (median of ${rounds})`, figure: 'slot → arrival p99', value, baselineName: 'plain undici script', baseline, goal: '≤ 2× plain undici', met: value <= 2 * baseline });
    } finally {
      await target.close();
    }
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
