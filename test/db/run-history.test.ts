import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { RunStatus } from '../../src/domain/enums.js';
import type { RunRecord } from '../../src/domain/run.js';
import type { RunFilter } from '../../src/services/run.service.js';
import { runStats } from '../../src/services/stats.service.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/**
 * Reading run history through the runs table's lean index set: a job's runs by key are merged
 * from its versions, a target is found through the jobs' own target, status filters use the
 * index of runs that did not succeed, and the stats window and retention go by a run's slot.
 * Every page is compared with the same filter applied to the whole history in memory.
 */
describe('run history', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  const base = Date.parse('2026-06-01T00:00:00.000Z');
  let all: RunRecord[] = [];

  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { role: 'api', listen: false });
    // Job "merged" in three versions (two retired), job "other" with another target; runs of the
    // versions interleave in time, several share a slot instant (ties broken by id).
    await cronql.pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
       VALUES (gen_random_uuid(), 'merged', 1, 'log', 'RECURRING', '* * * * *', 'RETIRED', now(), now()),
              (gen_random_uuid(), 'merged', 2, 'log', 'RECURRING', '* * * * *', 'RETIRED', now(), now()),
              (gen_random_uuid(), 'merged', 3, 'http', 'RECURRING', '* * * * *', 'ACTIVE', now(), now()),
              (gen_random_uuid(), 'other', 1, 'sleep', 'RECURRING', '* * * * *', 'ACTIVE', now(), now())`,
    );
    await cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status,
         started_at, finished_at, failure_code, created_at, updated_at)
       SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, CASE WHEN g % 7 = 0 THEN 'MANUAL' ELSE 'SCHEDULED' END,
         $1::timestamptz + make_interval(mins => g / 2), (ARRAY['SUCCEEDED','SUCCEEDED','FAILED','SKIPPED','CANCELED'])[1 + g % 5],
         $1::timestamptz + make_interval(mins => g / 2), $1::timestamptz + make_interval(mins => g / 2), NULL,
         $1::timestamptz + make_interval(mins => g / 2) + interval '1 day', now()
       FROM generate_series(1, 240) AS g
       JOIN (SELECT id, job_key, version, target, row_number() OVER (ORDER BY job_key, version) - 1 AS k FROM cron_job_definitions) j
         ON j.k = (g * 7) % 4`,
      [new Date(base)],
    );
    const rows = await cronql.pool.query('SELECT id FROM cron_job_runs');
    all = (await cronql.runs.getMany(rows.rows.map((r) => r.id as string))).filter((r): r is RunRecord => r !== null);
    expect(all).toHaveLength(240);
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });

  const newestFirst = (a: RunRecord, b: RunRecord) => b.scheduledAt.getTime() - a.scheduledAt.getTime() || (a.id < b.id ? 1 : -1);
  async function everyPage(filter: RunFilter, size: number): Promise<string[]> {
    const seen: string[] = [];
    let after: string | null | undefined;
    for (let i = 0; i < 1000; i++) {
      const page = await cronql.runs.page(filter, size, after);
      seen.push(...page.nodes.map((r) => r.id));
      if (!page.hasNextPage) return seen;
      after = page.endCursor;
    }
    throw new Error('paging did not end');
  }

  const merged = () => all.filter((r) => r.jobKey === 'merged');
  const cases: [string, RunFilter, (r: RunRecord) => boolean][] = [
    ['a job by key, over its three versions', { jobKey: 'merged' }, (r) => r.jobKey === 'merged'],
    ['a job by key and status', { jobKey: 'merged', status: [RunStatus.FAILED, RunStatus.SKIPPED] }, (r) => r.jobKey === 'merged' && ['FAILED', 'SKIPPED'].includes(r.status)],
    ['a job by key in a window', { jobKey: 'merged', scheduledAfter: new Date(base + 30 * 60_000), scheduledBefore: new Date(base + 90 * 60_000) },
      (r) => r.jobKey === 'merged' && r.scheduledAt.getTime() > base + 30 * 60_000 && r.scheduledAt.getTime() < base + 90 * 60_000],
    ['a key no job has', { jobKey: 'nobody' }, () => false],
    ['a target (runs of versions that have it)', { target: 'log' }, (r) => r.target === 'log'],
    ['a target and a key', { target: 'http', jobKey: 'merged' }, (r) => r.target === 'http' && r.jobKey === 'merged'],
    ['a target no job has', { target: 'nothing' }, () => false],
    ['statuses that did not succeed', { status: [RunStatus.FAILED, RunStatus.CANCELED] }, (r) => ['FAILED', 'CANCELED'].includes(r.status)],
    ['successes', { status: [RunStatus.SUCCEEDED] }, (r) => r.status === 'SUCCEEDED'],
    ['a status with and without success', { status: [RunStatus.SUCCEEDED, RunStatus.SKIPPED] }, (r) => ['SUCCEEDED', 'SKIPPED'].includes(r.status)],
    ['no filter', {}, () => true],
  ];
  for (const [name, filter, matches] of cases) {
    it(`pages ${name}: every match once, newest slot first`, async () => {
      const expected = all.filter(matches).sort(newestFirst).map((r) => r.id);
      for (const size of [1, 7, 50]) expect(await everyPage(filter, size)).toEqual(expected);
      expect(await cronql.runs.count(filter)).toBe(expected.length);
    });
  }

  it('a version by id with its key: that version only', async () => {
    const version = merged().find((r) => r.jobVersion === 2)!.jobId;
    const expected = all.filter((r) => r.jobId === version).sort(newestFirst).map((r) => r.id);
    expect(await everyPage({ jobId: version, jobKey: 'merged' }, 9)).toEqual(expected);
    expect(await everyPage({ jobId: version, jobKey: 'other' }, 9)).toEqual([]);
  });

  it('the stats window counts the runs whose slot is in it, not when they were written', async () => {
    // Every run was written a day after its slot: a window over the slots sees them.
    const at = new Date(base + 121 * 60_000);
    const stats = await runStats(cronql.pool, at, 1);
    const inWindow = all.filter((r) => r.scheduledAt.getTime() >= at.getTime() - 3_600_000 && r.scheduledAt.getTime() <= at.getTime());
    expect(stats.total).toBe(inWindow.length);
    expect(inWindow.length).toBeGreaterThan(0);
  });
});
