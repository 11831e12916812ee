import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import type { CronqlProcess } from '../support/processes.js';
import { createJob, useProcessTest } from './support.js';

/**
 * A backfill survives `kill -9` of the process running it: its plan is in the database, and the
 * process started after it goes on with the slots left, each run once.
 */
describe('a backfill whose process is killed with SIGKILL mid-way', () => {
  const t = useProcessTest();
  const env = { CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '2000' };

  interface Row { id: string; status: string; scheduledAt: string; triggerType: string; failureCode: string | null; runnerInstanceId: string | null }
  const backfillRuns = async (p: CronqlProcess, jobId: string): Promise<Row[]> => {
    const res = await p.graphql<{ runs: { nodes: Row[] } }>(
      `query($filter: RunFilter) { runs(filter: $filter, first: 100) { nodes { id status scheduledAt triggerType failureCode runnerInstanceId } } }`,
      { filter: { jobId, triggerType: ['BACKFILL'] } },
    );
    if (!res.data) throw new Error(`runs failed: ${JSON.stringify(res.errors)}`);
    return res.data.runs.nodes;
  };

  it('restarted, the rest of the plan runs once: the killed slot is FAILED RUNNER_LOST, every other slot one SUCCEEDED run', async () => {
    const first = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'bf-first' } });
    const id = await createJob(first, { key: 'bf-crash', target: 'sleep', cronExpression: '0 * * * *', payload: { ms: 1_200 } });
    await first.graphql('mutation($id: ID!) { pauseJob(id: $id, reason: "only the backfill runs") { id } }', { id });
    const hour = 3_600_000;
    const from = new Date(Math.floor(Date.now() / hour) * hour - 5 * hour).toISOString();
    const started = await first.graphql<{ backfillJob: { id: string; slots: string[] } }>(
      'mutation($id: ID!, $from: DateTime!, $to: DateTime!) { backfillJob(id: $id, from: $from, to: $to, reason: "crash test") { id slots } }',
      { id, from, to: new Date().toISOString() },
    );
    const backfill = started.data!.backfillJob;
    expect(backfill.slots).toHaveLength(6);

    // Killed while the third slot runs.
    await eventually(async () => {
      const runs = await backfillRuns(first, id);
      return runs.filter((r) => r.status === 'SUCCEEDED').length === 2 && runs.some((r) => r.status === 'RUNNING');
    }, 20_000);
    first.kill('SIGKILL');
    await first.exited;

    const second = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'bf-second' } });
    const end = await eventually(async () => {
      const res = await second.graphql<{ backfill: { state: string; created: number } }>('query($id: ID!) { backfill(id: $id) { state created } }', { id: backfill.id });
      return res.data?.backfill.state === 'DONE' ? res.data.backfill : null;
    }, 45_000);
    expect(end.created).toBe(6);

    const runs = await backfillRuns(second, id);
    const bySlot = new Map<string, Row[]>();
    for (const r of runs) bySlot.set(r.scheduledAt, [...(bySlot.get(r.scheduledAt) ?? []), r]);
    expect([...bySlot.keys()].sort()).toEqual([...backfill.slots].sort());
    const outcomes = backfill.slots.map((s) => bySlot.get(s)!.map((r) => `${r.status}${r.failureCode ? `/${r.failureCode}` : ''}@${r.runnerInstanceId}`));
    expect(outcomes).toEqual([
      ['SUCCEEDED@bf-first'],
      ['SUCCEEDED@bf-first'],
      ['FAILED/RUNNER_LOST@bf-first'],
      ['SUCCEEDED@bf-second'],
      ['SUCCEEDED@bf-second'],
      ['SUCCEEDED@bf-second'],
    ]);
  }, 120_000);
});
