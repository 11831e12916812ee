/**
 * Co-due lateness through the real path: N jobs whose slot falls due in the same second, on the
 * system clock, in one process of role `all` with LISTEN/NOTIFY and the relay on and GraphQL
 * subscribers attached. Figure: slot → RUNNING committed, p99 over the N runs (each measured when
 * the store publishes its RUNNING change, right after the commit). Baseline, same run, same
 * database and jobs: the floor — one timer, then one batched `INSERT … ON CONFLICT` of the N slots
 * and one `UPDATE` of the N rows to RUNNING (median of three).
 *
 *   BENCH_CO_DUE=1000,10000,50000 BENCH_ZONES=UTC,America/New_York BENCH_ROUNDS=2 node --expose-gc dist/bench/co-due.js
 */
import pg from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createCronql } from '../src/app.js';
import { startHttpServer } from '../src/http/server.js';
import { freshDatabase, gc, log, pct, report, until } from './lib/bench.js';
import { benchServer } from './server.js';

const SIZES = (process.env.BENCH_CO_DUE ?? '1000,10000,50000').split(',').map(Number);
const ZONES = (process.env.BENCH_ZONES ?? 'UTC,America/New_York').split(',');
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 2);
const EVERY_S = 20;
const TOKEN = 'bench-admin-token-0123456789abcdef';

interface Result {
  p50: number;
  p99: number;
  max: number;
  recorded: number;
  readyMs: number;
  heapPerJob: number;
  floor: number;
}

async function scenario(serverUrl: string, n: number, zone: string): Promise<Result> {
  const db = await freshDatabase(serverUrl, `cronql_bench_codue_${n}`);
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status, payload)
     SELECT gen_random_uuid(), 'bench-' || i, 1, 'log', 'RECURRING', $2, $3, 'ACTIVE', '{"message":"x"}'::jsonb
     FROM generate_series(1, $1) AS i`,
    [n, `*/${EVERY_S} * * * * *`, zone],
  );
  await setup.pool.query('ANALYZE');
  await setup.stop();

  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const cronql = createCronql({ databaseUrl: db.url, log, role: 'all', retentionDays: 0, instanceId: `bench-${n}` });
  const t0 = performance.now();
  await cronql.start();
  const readyMs = performance.now() - t0;
  gc();
  const heapPerJob = (process.memoryUsage().heapUsed - heapBefore) / n;
  const http = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'all', adminToken: TOKEN });
  const clients = Array.from({ length: SUBSCRIBERS }, () =>
    createClient({ url: http.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${TOKEN}` }, retryAttempts: 0 }),
  );
  let delivered = 0;
  for (const c of clients) c.subscribe({ query: 'subscription { runChanged { run { id status } previousStatus } }' }, { next: () => void delivered++, error: () => {}, complete: () => {} });

  // The first slot at least 2 s away: subscribers are connected by then.
  const slot = Math.ceil((Date.now() + 2_000) / (EVERY_S * 1000)) * EVERY_S * 1000;
  const late: number[] = [];
  let ended = 0;
  const done = new Promise<void>((resolve) => {
    cronql.events.on((c) => {
      if (c.run.scheduledAt.getTime() !== slot) return;
      if (c.previousStatus === 'PENDING' && c.run.status === 'RUNNING') late.push(Date.now() - slot);
      if (c.previousStatus === 'RUNNING' || c.run.status === 'SKIPPED') if (++ended === n) resolve();
    });
  });
  await Promise.race([done, until(slot + 60_000)]);
  const recorded = (await cronql.pool.query('SELECT count(*)::int AS n FROM cron_job_runs WHERE scheduled_at = $1', [new Date(slot)])).rows[0].n;
  for (const c of clients) await c.dispose();
  await http.close();
  await cronql.stop();

  const floors: number[] = [];
  for (let i = 0; i < 3; i++) floors.push(await floor(db.url, new Date(slot + (i + 1) * 3_600_000)));
  await db.drop();
  return { p50: pct(late, 0.5), p99: pct(late, 0.99), max: Math.max(...late), recorded, readyMs, heapPerJob, floor: pct(floors, 0.5) };
}

/** One timer, one batched INSERT … ON CONFLICT of every job's slot, one UPDATE of those rows. */
async function floor(url: string, slot: Date): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    const ids = (await pool.query('SELECT id FROM cron_job_definitions ORDER BY id')).rows.map((r) => r.id as string);
    await pool.query('SELECT 1');
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

/** Rounds per size: the zones' scenarios alternate, and the zone comparison takes each zone's best round. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const server = await benchServer(log);
try {
  for (const n of SIZES) {
    const relative = new Map<string, number[]>(ZONES.map((z) => [z, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const zone of ZONES) {
        const r = await scenario(server.url, n, zone);
        const name = `co-due ${n.toLocaleString('en')} (${zone})${ROUNDS > 1 ? ` round ${round}` : ''}`;
        report({ scenario: name, figure: 'slot → RUNNING p99', value: r.p99, baselineName: 'floor', baseline: r.floor, goal: n <= 10_000 ? '≤ 1.5× floor' : undefined, met: r.p99 <= 1.5 * r.floor });
        console.log(
          `${name} | p50 ${r.p50} ms, max ${r.max} ms; rows for the slot ${r.recorded} of ${n}${r.recorded === n ? ' (none dropped)' : ' — DROPPED'}; ` +
            `ready in ${r.readyMs.toFixed(0)} ms; heap ${(r.heapPerJob / 1024).toFixed(2)} KB per job`,
        );
        relative.get(zone)!.push(r.p99 / r.floor);
      }
    }
    // Zones compared by their p99 relative to their own same-run floor (the load of the machine
    // moves both figures of a run together), the best round of each zone (the least disturbed).
    const utc = Math.min(...(relative.get('UTC') ?? []));
    for (const zone of ZONES.filter((z) => z !== 'UTC')) {
      const mine = Math.min(...relative.get(zone)!);
      report({
        scenario: `co-due ${n.toLocaleString('en')} (${zone} vs UTC, best of ${ROUNDS})`,
        figure: 'p99 / floor',
        value: mine * 100,
        baselineName: 'UTC p99 / floor',
        baseline: utc * 100,
        unit: '%',
        goal: '≤ 1.2× UTC',
        met: mine <= 1.2 * utc,
      });
    }
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
