/**
 * "What runs tonight?": the first page of `upcoming` — 50 slots of a 24 h window — over 10,000
 * ACTIVE jobs (a mix: a quarter every minute, a quarter hourly, a quarter daily, a quarter weekly,
 * at varied minutes, hours and days, in three zones), as ADMIN, against `npm start` (an API-only
 * instance: nothing fires while it is measured). One client, one request at a time: the latency a
 * user waits, p95 of BENCH_PAGES requests after a warm-up — beside the same-run baseline, the
 * page of 50 jobs `jobs(first: 50)` over the same 10,000 jobs, asked the same way. Goal: ≤ 50 ms
 * p95.
 *
 *   BENCH_ONLY=upcoming npm run bench        BENCH_PAGES=300 node dist/bench/upcoming.js
 */
import pg from 'pg';
import { freshDatabase, log, ms, pct, report } from './lib/bench.js';
import { graphqlClient, startServer } from './lib/process.js';
import { benchServer } from './server.js';
import { UpcomingService } from '../src/services/upcoming.service.js';
import { SystemClock } from '../src/runtime/clock.js';

const JOBS = 10_000;
const PAGES = Number(process.env.BENCH_PAGES ?? 300);

/** 10,000 ACTIVE jobs: every minute, hourly, daily and weekly, at varied times, in three zones. */
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, timezone, status)
     SELECT gen_random_uuid(), 'upcoming-' || i, 1, 'log', 'RECURRING',
       CASE i % 4 WHEN 0 THEN '* * * * *' WHEN 1 THEN (i % 60) || ' * * * *' WHEN 2 THEN '0 ' || (i % 24) || ' * * *' ELSE '0 9 * * ' || (i % 7) END,
       (ARRAY['UTC', 'America/New_York', 'Europe/Berlin'])[1 + i % 3], 'ACTIVE'
     FROM generate_series(1, $1::int) AS i`,
    [JOBS],
  );
  await pool.query('VACUUM ANALYZE');
}

/** Latencies (ms) of `n` requests, one at a time, after `warm` unmeasured ones. */
async function latencies(n: number, warm: number, one: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warm; i++) await one();
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await one();
    out.push(performance.now() - t0);
  }
  return out;
}

const server = await benchServer(log);
try {
  const db = await freshDatabase(server.url, 'cronql_bench_upcoming');
  // The server migrates the database; the jobs are written after, before the first request.
  const cronql = await startServer(db.url, { CRONQL_ROLE: 'api' });
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    await seed(pool);
    const client = graphqlClient(cronql.url, 1);
    const to = new Date(Date.now() + 24 * 3_600_000).toISOString();
    const upcoming = `query Upcoming($to: DateTime!) { upcoming(to: $to, first: 50) { nodes { slot dueAt job { id key } } pageInfo { hasNextPage endCursor } } }`;
    const jobs = `query Jobs { jobs(first: 50) { nodes { id key nextRunAt } pageInfo { hasNextPage endCursor } } }`;
    const check = await client.post<{ upcoming: { nodes: unknown[] } }>(upcoming, { to });
    if (check.errors || check.data!.upcoming.nodes.length !== 50) throw new Error(`the upcoming query failed: ${JSON.stringify(check.errors)}`);
    const ask = (query: string, variables?: Record<string, unknown>) => async () => {
      const res = await client.post(query, variables);
      if (res.errors) throw new Error(JSON.stringify(res.errors));
    };
    const page = await latencies(PAGES, 30, ask(upcoming, { to }));
    const base = await latencies(PAGES, 30, ask(jobs));
    await client.close();
    const value = pct(page, 0.95);
    const baseline = pct(base, 0.95);
    report({
      scenario: `upcoming(to: +24 h, first: 50) over ${JOBS.toLocaleString('en')} ACTIVE jobs, one request at a time, ${PAGES} requests`,
      figure: 'p95',
      value,
      baselineName: 'jobs(first: 50) over the same jobs',
      baseline,
      unit: 'ms',
      goal: '≤ 50 ms p95',
      met: value <= 50,
    });
    console.log(`  upcoming: median ${ms(pct(page, 0.5))}, p99 ${ms(pct(page, 0.99))}; jobs(first: 50): median ${ms(pct(base, 0.5))}`);
    // The timeline's own work, in this process (no HTTP, no GraphQL, no job rows read for the
    // page): the service over the same jobs, the same window.
    const service = new UpcomingService({ pool: pool as never, clock: new SystemClock() });
    const own = await latencies(PAGES, 30, async () => void (await service.page({ to: new Date(to), first: 50 })));
    console.log(`  the service alone (in process): p95 ${ms(pct(own, 0.95))}, median ${ms(pct(own, 0.5))}`);
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
