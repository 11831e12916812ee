import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import type { CronqlProcess } from '../support/processes.js';
import { createJob, useProcessTest } from './support.js';

/**
 * `kill -9` of the instance the moment an upstream run's end commits: the dependent's run was
 * created in the same statement (its announcement, a NOTIFY, is delivered at that commit — the
 * test kills the process as it arrives), so it exists, and the instance started after runs it:
 * one run of the dependent, linked to the upstream run, SUCCEEDED (on its first attempt if the
 * killed process had not claimed it yet, on its retry if it died running it).
 */
describe('an AFTER job whose upstream ends just before its instance is killed with SIGKILL', () => {
  const t = useProcessTest();
  const env = { CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '2000' };

  interface Row { id: string; status: string; attempt: number; triggerType: string; failureCode: string | null; upstreamRuns: { id: string }[] }
  const runsOf = async (p: CronqlProcess, jobKey: string): Promise<Row[]> => {
    const res = await p.graphql<{ runs: { nodes: Row[] } }>(
      'query($key: String!) { runs(filter: { jobKey: $key }, first: 50) { nodes { id status attempt triggerType failureCode upstreamRuns { id } } } }',
      { key: jobKey },
    );
    if (!res.data) throw new Error(`runs failed: ${JSON.stringify(res.errors)}`);
    return res.data.runs.nodes;
  };

  it("B's run exists and runs once, linked to A's run", async () => {
    const first = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'dep-first' } });
    const a = await createJob(first, { key: 'dep-a', target: 'sleep', cronExpression: '0 0 1 1 *', payload: { ms: 500 } });
    await createJob(first, {
      key: 'dep-b', target: 'sleep', scheduleType: 'AFTER', after: [{ jobKey: 'dep-a' }], payload: { ms: 1_000 },
      retry: { maxAttempts: 2, backoff: 'FIXED', delaySeconds: 0 },
    });
    // The test hears the dependent's announcement when A's end commits, and kills at once.
    const listener = new pg.Client({ connectionString: t.url });
    await listener.connect();
    let announced = false;
    const killed = new Promise<void>((resolve) => {
      listener.on('notification', () => {
        if (announced) return;
        announced = true;
        first.kill('SIGKILL');
        resolve();
      });
    });
    await listener.query('LISTEN cronql_run_created');
    try {
      const started = await first.graphql<{ runJobNow: { id: string } }>('mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: a });
      const aRun = started.data!.runJobNow.id;
      await killed;
      await first.exited;

      const second = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'dep-second' } });
      expect((await runsOf(second, 'dep-a')).map((r) => [r.id, r.status])).toEqual([[aRun, 'SUCCEEDED']]);
      const b = await eventually(async () => {
        const rows = await runsOf(second, 'dep-b');
        return rows.some((r) => r.status === 'SUCCEEDED') ? rows : null;
      }, 30_000);
      const firsts = b.filter((r) => r.attempt === 1);
      expect(firsts).toHaveLength(1);
      expect(firsts[0]).toMatchObject({ triggerType: 'DEPENDENCY', upstreamRuns: [{ id: aRun }] });
      // Its outcome: SUCCEEDED at once, or RUNNER_LOST (killed while running it) then its retry SUCCEEDED.
      const outcome = b.sort((x, y) => x.attempt - y.attempt).map((r) => `${r.status}${r.failureCode ? `/${r.failureCode}` : ''}`);
      expect([['SUCCEEDED'], ['FAILED/RUNNER_LOST', 'SUCCEEDED']]).toContainEqual(outcome);
      console.log(`dependent after kill -9: ${outcome.join(' → ')}`);
    } finally {
      await listener.end();
    }
  }, 90_000);
});
