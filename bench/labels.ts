/**
 * Label selectors against `npm start` (the built server in its own process), one GraphQL client,
 * each figure the p95 of BENCH_READS requests beside a same-run baseline, the two alternated:
 *
 * - a 50-job page with totalCount over 100,000 jobs, `labelSelector: "team=team-7"` (1,000 jobs
 *   of 100 teams) — baseline: the same page without a selector. Goal: p95 ≤ 20 ms.
 * - a 50-run page over 1,000,000 runs (10 per job, spread over 30 days) of the same selector —
 *   baseline: the same page filtered by one jobId. Goal: p95 ≤ 20 ms. Beside it, a narrow
 *   selector (`team=team-7,tier=gold`: 10 jobs), which reads each job's runs by the (job, time)
 *   index instead of the history newest first (db/run-queries.ts, SELECTOR_JOBS_BY_INDEX).
 *
 *   BENCH_READS=300 node dist/bench/labels.js
 */
import pg from 'pg';
import { freshDatabase, log, pct, report } from './lib/bench.js';
import { listJobs } from '../src/db/job-list.js';
import { pageRuns } from '../src/db/run-queries.js';
import { parseLabelSelector } from '../src/domain/label-selector.js';
import { graphqlClient, startServer } from './lib/process.js';
import { benchServer } from './server.js';

const READS = Number(process.env.BENCH_READS ?? 300);
const JOBS = 100_000;
const RUNS_PER_JOB = 10;

/** 100,000 PAUSED jobs (nothing to arm), labelled team-0 … team-99, tier gold for 1 in 100 of a team; 10 ended runs each. */
async function seed(pool: pg.Pool): Promise<void> {
  await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, pause_reason, labels, created_at, updated_at)
     SELECT gen_random_uuid(), 'job-' || i, 1, 'log', 'RECURRING', '0 3 * * *', 'PAUSED', 'bench',
       jsonb_build_object('team', 'team-' || (i % 100), 'env', CASE WHEN i % 3 = 0 THEN 'dev' ELSE 'prod' END)
         || CASE WHEN (i / 100) % 100 = 0 THEN '{"tier": "gold"}'::jsonb ELSE '{}'::jsonb END,
       now() - make_interval(secs => i), now()
     FROM generate_series(1, ${JOBS}) AS i`,
  );
  await pool.query(
    `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status,
       started_at, finished_at, created_at, updated_at)
     SELECT gen_random_uuid(), j.id, j.job_key, 1, 'log', 'SCHEDULED', t.at, 'SUCCEEDED', t.at, t.at + interval '1 second', t.at, t.at
     FROM (SELECT id, job_key, row_number() OVER () AS n FROM cron_job_definitions) j CROSS JOIN generate_series(1, ${RUNS_PER_JOB}) AS g
     -- Spread over 30 days, each job's slots distinct (the unique (job, slot) key).
     JOIN LATERAL (SELECT now() - make_interval(secs => (j.n * 7919 + g * 104729) % 2592000 + (j.n % 1000) / 1000.0) AS at) t ON true`,
  );
  await pool.query('VACUUM ANALYZE');
}

/** p95 of `n` sequential calls of each of `a` and `b`, alternated (ms). */
async function alternated(n: number, a: () => Promise<void>, b: () => Promise<void>): Promise<[number, number]> {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const [f, into] of (i % 2 ? [[a, ta], [b, tb]] : [[b, tb], [a, ta]]) as [() => Promise<void>, number[]][]) {
      const t0 = performance.now();
      await f();
      into.push(performance.now() - t0);
    }
  }
  return [pct(ta, 0.95), pct(tb, 0.95)];
}

const server = await benchServer(log);
try {
  const db = await freshDatabase(server.url, 'cronql_bench_labels');
  const cronql = await startServer(db.url);
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    const t0 = performance.now();
    await seed(pool);
    console.log(`  seeded ${JOBS.toLocaleString('en')} jobs and ${(JOBS * RUNS_PER_JOB).toLocaleString('en')} runs in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    const client = graphqlClient(cronql.url, 1);
    const call = (query: string, variables: Record<string, unknown>, check: (data: never) => boolean) => async () => {
      const res = await client.post(query, variables);
      if (res.errors || !check(res.data as never)) throw new Error(`${query}: ${JSON.stringify(res.errors ?? res.data).slice(0, 300)}`);
    };
    const JOB_PAGE = `query($f: JobFilter) { jobs(filter: $f, first: 50) { totalCount pageInfo { hasNextPage endCursor } nodes { id key status labels createdAt } } }`;
    const jobsOk = (total: number) => (d: { jobs: { totalCount: number; nodes: unknown[] } }) => d.jobs.totalCount === total && d.jobs.nodes.length === 50;
    const [selected, all] = await alternated(
      READS,
      call(JOB_PAGE, { f: { labelSelector: 'team=team-7' } }, jobsOk(JOBS / 100)),
      call(JOB_PAGE, { f: {} }, jobsOk(JOBS)),
    );
    report({
      scenario: `jobs(first: 50) with totalCount over ${JOBS.toLocaleString('en')} jobs, labelSelector "team=team-7" (1,000 jobs), ${READS} requests`,
      figure: 'p95',
      value: selected,
      baselineName: 'the same page without a selector',
      baseline: all,
      goal: 'p95 ≤ 20 ms',
      met: selected <= 20,
    });

    const RUN_PAGE = `query($f: RunFilter) { runs(filter: $f, first: 50) { pageInfo { hasNextPage endCursor } nodes { id status scheduledAt jobKey } } }`;
    const runsOk = (d: { runs: { nodes: unknown[] } }) => d.runs.nodes.length > 0;
    const oneJob = (await pool.query(`SELECT id FROM cron_job_definitions WHERE labels @> '{"team": "team-7"}' LIMIT 1`)).rows[0].id as string;
    const [runsSelected, runsOfJob] = await alternated(
      READS,
      call(RUN_PAGE, { f: { labelSelector: 'team=team-7' } }, runsOk),
      call(RUN_PAGE, { f: { jobId: oneJob } }, runsOk),
    );
    report({
      scenario: `runs(first: 50) over ${(JOBS * RUNS_PER_JOB).toLocaleString('en')} runs, labelSelector "team=team-7" (1,000 jobs), ${READS} requests`,
      figure: 'p95',
      value: runsSelected,
      baselineName: 'the same page filtered by one jobId',
      baseline: runsOfJob,
      goal: 'p95 ≤ 20 ms',
      met: runsSelected <= 20,
    });
    const [runsNarrow, runsOfJob2] = await alternated(
      READS,
      call(RUN_PAGE, { f: { labelSelector: 'team=team-7,tier=gold' } }, runsOk),
      call(RUN_PAGE, { f: { jobId: oneJob } }, runsOk),
    );
    report({
      scenario: `runs(first: 50) over ${(JOBS * RUNS_PER_JOB).toLocaleString('en')} runs, labelSelector "team=team-7,tier=gold" (10 jobs), ${READS} requests`,
      figure: 'p95',
      value: runsNarrow,
      baselineName: 'the same page filtered by one jobId',
      baseline: runsOfJob2,
      goal: 'p95 ≤ 20 ms',
      met: runsNarrow <= 20,
    });
    await client.close();

    // The statements alone (the data layer's own functions on a pg pool): what the database
    // costs of each figure above, apart from HTTP and GraphQL; and each statement's plan once.
    const wide = parseLabelSelector('team=team-7');
    const narrow = parseLabelSelector('team=team-7,tier=gold');
    const sqlOnly: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
      ['jobs page + count, "team=team-7"', () => listJobs(pool, { selector: wide }, undefined, 51), () => listJobs(pool, {}, undefined, 51)],
      ['runs page, "team=team-7"', () => pageRuns(pool, { selector: wide }, undefined, undefined, 51), () => pageRuns(pool, { jobId: oneJob }, undefined, undefined, 51)],
      ['runs page, "team=team-7,tier=gold"', () => pageRuns(pool, { selector: narrow }, undefined, undefined, 51), () => pageRuns(pool, { jobId: oneJob }, undefined, undefined, 51)],
    ];
    for (const [name, a, b] of sqlOnly) {
      const [sa, sb] = await alternated(READS, async () => void (await a()), async () => void (await b()));
      console.log(`  SQL alone, ${name}: p95 ${sa.toFixed(1)} ms (baseline ${sb.toFixed(1)} ms)`);
    }
    const recorded: { text: string; values: unknown[] }[] = [];
    const recorder = { query: (text: string, values: unknown[]) => (recorded.push({ text, values }), pool.query(text, values)) } as unknown as pg.Pool;
    await listJobs(recorder, { selector: wide }, undefined, 51);
    await pageRuns(recorder, { selector: wide }, undefined, undefined, 51);
    await pageRuns(recorder, { selector: narrow }, undefined, undefined, 51);
    for (const { text, values } of recorded) {
      const plan = (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF) ${text}`, values)).rows.map((r) => r['QUERY PLAN'] as string);
      const top = plan.filter((l) => /Scan|Join|Nested|Sort|Limit|Aggregate|Execution Time/.test(l)).slice(0, 8);
      console.log(`  plan of ${text.replace(/\s+/g, ' ').slice(0, 90)}…\n    ${top.map((l) => l.trim()).join('\n    ')}`);
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
