import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { createJob, duplicates, runs, useProcessTest } from './support.js';

/**
 * cronql stopped for a while, then started again: the slots that fell due meanwhile are found at
 * the start and accounted for with each job's catch-up policy (PROCESS_DOWN).
 */
describe('a process stopped, then restarted', () => {
  const t = useProcessTest();
  const env = { CRONQL_MISFIRE_GRACE_MS: '3000' };

  it('records the missed slots MISSED (NONE), runs the latest (LATEST) or the newest up to the limit, oldest first (ALL)', async () => {
    const first = await t.spawn({ databaseUrl: t.url, env });
    const none = await createJob(first, { key: 'down-none', cronExpression: '*/2 * * * * *' });
    const latest = await createJob(first, { key: 'down-latest', cronExpression: '*/2 * * * * *', catchUp: 'LATEST' });
    const all = await createJob(first, { key: 'down-all', cronExpression: '*/2 * * * * *', catchUp: 'ALL', catchUpLimit: 2 });
    await eventually(async () => (await runs(first, { jobId: all, status: ['SUCCEEDED'] })).length >= 1, 30_000);
    first.kill('SIGTERM');
    await first.exited;
    const stoppedAt = Date.now();
    // The process stays down this long (the elapsed time is what is tested): three or four slots of each job fall due.
    await new Promise((r) => setTimeout(r, 7_000));

    const second = await t.spawn({ databaseUrl: t.url, env });
    // Each job's rows after the stop: the missed slots (oldest first), then runs.
    const after = async (jobId: string) => {
      await eventually(async () => (await runs(second, { jobId, status: ['SUCCEEDED'] })).some((r) => Date.parse(r.scheduledAt) > stoppedAt), 30_000);
      const rows = (await runs(second, { jobId })).filter((r) => Date.parse(r.scheduledAt) > stoppedAt);
      const down = (r: (typeof rows)[number]) => r.status === 'SKIPPED' && r.failureCode === 'MISSED' && r.failureDetails?.reason === 'PROCESS_DOWN';
      const end = rows.findIndex((r) => !down(r));
      const prefix = end === -1 ? rows : rows.slice(0, end);
      // After them the job runs again (`after` waited for a success); a slot may overlap a
      // caught-up run or, on a loaded machine, be MISSED for a stall — never for the process being down.
      const rest = rows.slice(prefix.length);
      expect(rest.every((r) => r.failureDetails?.reason !== 'PROCESS_DOWN')).toBe(true);
      return prefix.length;
    };
    // The three jobs share one schedule and one gap of G slots (armed together, at one instant,
    // however slowly). NONE runs none of them (or the latest, if it is within the grace period),
    // LATEST one, ALL two.
    const [missedNone, missedLatest, missedAll] = [await after(none), await after(latest), await after(all)];
    expect(missedLatest).toBeGreaterThanOrEqual(2);
    expect(missedAll).toBe(missedLatest - 1);
    expect([missedLatest, missedLatest + 1]).toContain(missedNone);
    expect(duplicates(await runs(second))).toEqual([]);
    // A safety net for a loaded machine (two process starts), not a goal.
  }, 120_000);
});
