/**
 * Page reads as users make them, against `npm start` (the built server in its own process): the
 * newest 50 runs (`runs(first: 50)` with the clients' RunFields, its page info and cursors) by 20
 * concurrent GraphQL clients (keep-alive), pages/s — beside the same-run baseline: the statement
 * that page runs (the same SQL, rows read by node-postgres) by 20 pg clients. Goal ≥ ¼ of the
 * baseline. The two alternate over BENCH_ROUNDS rounds (median of each).
 *
 *   BENCH_PAGES=2000 BENCH_ROUNDS=3 node dist/bench/reads.js
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { RUN_COLUMNS } from '../src/db/runs/vocabulary.js';
import { freshDatabase, log, report } from './lib/bench.js';
import { cpuSplitOf, graphqlClient, startServer } from './lib/process.js';
import { benchServer } from './server.js';

const PAGES = Number(process.env.BENCH_PAGES ?? 2_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CLIENTS = 20;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** `n` calls of `one()` by `clients` concurrent workers; returns the calls per second. */
async function concurrently(n: number, clients: number, one: () => Promise<void>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next++ < n) await one();
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/** 100 jobs and 10,000 ended runs of theirs over the last week, a tenth FAILED. */
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, pause_reason)
     SELECT gen_random_uuid(), 'read-' || i, 1, 'log', 'RECURRING', '0 3 * * *', 'PAUSED', 'bench' FROM generate_series(1, 100) AS i`,
  );
  await pool.query(
    `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status,
       started_at, finished_at, failure_code, failure_message, payload_snapshot, created_at, updated_at)
     SELECT gen_random_uuid(), j.id, j.job_key, 1, 'log', 'SCHEDULED', t.at, CASE WHEN g % 10 = 0 THEN 'FAILED' ELSE 'SUCCEEDED' END,
       t.at + interval '5 milliseconds', t.at + interval '1 second', CASE WHEN g % 10 = 0 THEN 'HANDLER_ERROR' END,
       CASE WHEN g % 10 = 0 THEN 'the handler threw' END, jsonb_build_object('message', 'run ' || g), t.at, t.at
     FROM generate_series(1, 10000) AS g
     JOIN LATERAL (SELECT now() - make_interval(secs => g * 60) AS at) t ON true
     JOIN (SELECT id, job_key, row_number() OVER (ORDER BY job_key) - 1 AS k FROM cron_job_definitions) j ON j.k = g % 100`,
  );
  await pool.query('VACUUM ANALYZE');
}

const server = await benchServer(log);
try {
  const db = await freshDatabase(server.url, 'cronql_bench_reads');
  const cronql = await startServer(db.url);
  const pool = new pg.Pool({ connectionString: db.url, max: CLIENTS });
  try {
    await seed(pool);
    const fragments = await readFile(new URL('../../src/client/fragments.graphql', import.meta.url), 'utf8');
    const runFields = fragments.slice(fragments.indexOf('fragment RunFields'));
    const query = `query Page { runs(first: 50) { pageInfo { hasNextPage endCursor } edges { cursor node { ...RunFields } } } }\n${runFields.slice(0, runFields.indexOf('\n}\n') + 3)}`;
    const client = graphqlClient(cronql.url, CLIENTS);
    // The statement runs(first: 50) sends (db/run-queries.ts, pageRuns): 51 rows, to know whether a page follows.
    const sql = `SELECT ${RUN_COLUMNS} FROM cron_job_runs ORDER BY scheduled_at DESC, id DESC LIMIT $1`;
    const first = await client.post<{ runs: { edges: unknown[] } }>(query);
    if (first.errors || first.data!.runs.edges.length !== 50) throw new Error(`the page query failed: ${JSON.stringify(first.errors)}`);
    const gqlRates: number[] = [];
    const sqlRates: number[] = [];
    const cpuPerPage: number[] = [];
    const kernelPerPage: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      sqlRates.push(await concurrently(PAGES, CLIENTS, async () => void (await pool.query(sql, [51]))));
      const cpu0 = await cpuSplitOf(cronql.child.pid);
      gqlRates.push(
        await concurrently(PAGES, CLIENTS, async () => {
          const res = await client.post(query);
          if (res.errors) throw new Error(JSON.stringify(res.errors));
        }),
      );
      const cpu1 = await cpuSplitOf(cronql.child.pid);
      if (cpu0 !== undefined && cpu1 !== undefined) {
        cpuPerPage.push((cpu1.user + cpu1.kernel - cpu0.user - cpu0.kernel) / PAGES);
        kernelPerPage.push((cpu1.kernel - cpu0.kernel) / PAGES);
      }
    }
    await client.close();
    const value = median(gqlRates);
    const baseline = median(sqlRates);
    report({
      scenario: `runs(first: 50) by ${CLIENTS} concurrent GraphQL clients, ${PAGES.toLocaleString('en')} pages × ${ROUNDS} rounds`,
      figure: 'median',
      value,
      baselineName: `the same SQL by ${CLIENTS} pg clients`,
      baseline,
      unit: 'pages/s',
      goal: '≥ ¼ of the baseline',
      met: value >= baseline / 4,
    });
    console.log(`  rounds: GraphQL ${gqlRates.map(Math.round).join(' / ')} pages/s; SQL ${sqlRates.map(Math.round).join(' / ')} pages/s`);
    // Steadier than the rates on a shared machine: what one page costs the server's process.
    // The kernel's share is mostly the socket writes of the answers (loopback TCP is processed by the sender).
    if (cpuPerPage.length) {
      console.log(
        `  server CPU per page: ${cpuPerPage.map((x) => x.toFixed(2)).join(' / ')} ms (median ${median(cpuPerPage).toFixed(2)}; of which in the kernel ${kernelPerPage.map((x) => x.toFixed(2)).join(' / ')})`,
      );
    }
  } finally {
    await pool.end();
    await cronql.stop();
    await db.drop();
  }
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
