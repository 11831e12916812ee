import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { JobsDocument, JobsWithRecentRunsDocument, RunsWithJobsDocument } from '../../src/client/generated/graphql.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { ok, startApi, type Api } from './support.js';

/**
 * No N+1: the SQL statements of a page do not grow with its size. Every statement cronql sends
 * (node-postgres pool and MikroORM's driver alike) goes through pg.Client#query, which is counted
 * while the HTTP request is in flight. Role `api` without LISTEN: nothing else talks to the database.
 */
let api: Api;
const JOBS = 10;
const RUNS_PER_JOB = 6;

beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
  const base = Date.parse('2030-01-01T00:00:00Z');
  for (let j = 0; j < JOBS; j += 1) {
    const job = await api.cronql.jobs.create({
      key: `batch-${j}`,
      target: 'log',
      scheduleType: ScheduleType.ONE_TIME,
      runAt: new Date(Date.now() + 86_400_000),
    });
    // Finished runs, written directly: the page is what is measured, not how runs came to be.
    await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status)
       SELECT gen_random_uuid(), $1, $2, 1, 'log', 'MANUAL', $3::timestamptz + make_interval(secs => n * ${JOBS} + $4), 'SUCCEEDED'
       FROM generate_series(1, ${RUNS_PER_JOB}) AS n`,
      [job.id, job.jobKey, new Date(base).toISOString(), j],
    );
  }
});

afterAll(async () => {
  await api?.close();
});

async function countStatements<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === 'string' ? first : (first?.text ?? String(first)));
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    proto.query = original;
  }
}

test('a page of 50 runs with job { key lastRun { id } } costs a constant handful of statements', async () => {
  const measure = (first: number) =>
    countStatements(() => ok(api.url, RunsWithJobsDocument, { first }, api.adminToken));

  const { result, statements } = await measure(50);
  expect(result.runs.nodes).toHaveLength(50);
  expect(result.runs.totalCount).toBe(JOBS * RUNS_PER_JOB);
  expect(new Set(result.runs.nodes.map((r) => r.job.key)).size).toBe(JOBS);
  for (const run of result.runs.nodes) expect(run.job.lastRun?.id).toBeDefined();
  // The page and its count, the jobs of the page, their latest runs.
  console.info(`50-run page: ${statements.length} SQL statements\n  ${statements.map((s) => s.replace(/\s+/g, ' ').slice(0, 120)).join('\n  ')}`);
  expect(statements.length).toBeLessThanOrEqual(4);

  const small = await measure(5);
  expect(small.statements.length).toBe(statements.length);
});

test('a page of jobs with their relations is batched the same way', async () => {
  const { result, statements } = await countStatements(() => ok(api.url, JobsDocument, { first: 10 }, api.adminToken));
  expect(result.jobs.edges).toHaveLength(JOBS);
  // The page and its count, successors (supersededBy), latest runs; supersedes is null here.
  expect(statements.length).toBeLessThanOrEqual(4);
});

test('a page of jobs each with a page of its runs costs two statements for all the runs', async () => {
  const { result, statements } = await countStatements(() =>
    ok(api.url, JobsWithRecentRunsDocument, { first: 10, runsFirst: 2 }, api.adminToken),
  );
  expect(result.jobs.nodes).toHaveLength(JOBS);
  for (const job of result.jobs.nodes) {
    expect(job.runs.totalCount).toBe(RUNS_PER_JOB);
    expect(job.runs.nodes).toHaveLength(2);
    expect(job.runs.pageInfo.hasNextPage).toBe(true);
    // Newest first, and each page holds that job's own runs.
    expect(Date.parse(job.runs.nodes[0].scheduledAt)).toBeGreaterThan(Date.parse(job.runs.nodes[1].scheduledAt));
  }
  // The jobs page and its count, then one statement for every job's runs and one for their counts.
  expect(statements.length).toBeLessThanOrEqual(4);
});
