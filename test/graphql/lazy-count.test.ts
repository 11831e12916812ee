import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, startApi, type Api } from './support.js';

/**
 * `runs` counts its matches only when a query asks for `totalCount`: on a long history the count
 * costs more than the page, and a dashboard paging through runs rarely needs it.
 */
describe('runs: totalCount is counted only when selected', () => {
  let api: Api;
  const statements: string[] = [];
  beforeAll(async () => {
    api = await startApi({ role: 'api', listen: false });
    const pool = api.cronql.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string') statements.push(args[0]);
      return query(...args);
    };
    const job = await api.cronql.jobs.create({ key: 'count-me', target: 'log', scheduleType: 'RECURRING' as never, cronExpression: '0 3 * * *' });
    for (let i = 0; i < 3; i++) await api.cronql.runs.runNow(job.id);
  });
  afterAll(async () => {
    await api?.close();
  });

  const counts = () => statements.filter((s) => /count\(\*\)/i.test(s) && /cron_job_runs/.test(s)).length;

  for (const [what, query, expected] of [
    ['without totalCount', '{ runs(first: 2) { nodes { id } pageInfo { hasNextPage } } }', 0],
    ['with totalCount', '{ runs(first: 2) { totalCount nodes { id } } }', 1],
    ['totalCount twice under aliases', '{ runs(first: 2) { a: totalCount b: totalCount } }', 1],
  ] as const) {
    it(what, async () => {
      statements.length = 0;
      const res = await gql<{ runs: Record<string, unknown> }, Record<string, never>>(api.url, query, {}, api.viewerToken);
      expect(res.errors).toBeUndefined();
      expect(counts()).toBe(expected);
      if (expected) for (const v of Object.values(res.data!.runs)) if (typeof v === 'number') expect(v).toBe(3);
    });
  }
});
