import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { gql, startApi, type Api } from './support.js';

/** The assignment, visible: Instance.ownedJobs and Job.armedOn (one instance: it arms every ACTIVE job). */
describe('who arms what, over GraphQL', () => {
  let api: Api;
  beforeAll(async () => {
    // Beats every 200 ms so the share is recorded quickly; counted lost only after a minute, so a
    // busy machine that delays a beat never makes the only instance look dead (armedOn would be []).
    api = await startApi({ instanceId: 'owner-1', heartbeatMs: 200, lostAfterMs: 60_000 });
  });
  afterAll(() => api.close());
  const admin = <R>(query: string, variables?: Record<string, unknown>) => gql<R, unknown>(api.url, query, variables, api.adminToken);

  it('an ACTIVE job is armed on the live scheduler; a paused one nowhere; ownedJobs counts the share', async () => {
    const ids: string[] = [];
    for (const key of ['own-a', 'own-b', 'own-c']) {
      const res = await admin<{ createJob: { id: string; armedOn: string[] } }>(
        `mutation($key: String!) { createJob(input: { key: $key, target: "log", scheduleType: RECURRING, cronExpression: "0 0 1 1 *" }) { id armedOn } }`,
        { key },
      );
      expect(res.data!.createJob.armedOn).toEqual(['owner-1']);
      ids.push(res.data!.createJob.id);
    }
    const paused = await admin<{ pauseJob: { armedOn: string[] } }>(`mutation($id: ID!) { pauseJob(id: $id, reason: "test") { armedOn } }`, { id: ids[0] });
    expect(paused.data!.pauseJob.armedOn).toEqual([]);
    // A beat records the share (every 200 ms here; one that began before the pause may still
    // write the old count once, under load — the next one corrects it).
    let seen: unknown;
    await eventually(async () => {
      seen = (await admin<{ instances: { id: string; ownedJobs: number }[] }>(`{ instances { id ownedJobs } }`)).data!.instances;
      return JSON.stringify(seen) === JSON.stringify([{ id: 'owner-1', ownedJobs: 2 }]);
    }, 5_000).catch(() => expect(seen).toEqual([{ id: 'owner-1', ownedJobs: 2 }]));
    // A VIEWER may read armedOn (instance ids are not secret), not instances.
    const asViewer = await gql<{ jobs: { nodes: { armedOn: string[] }[] } }, unknown>(api.url, `{ jobs(filter: { status: [ACTIVE] }) { nodes { armedOn } } }`, undefined, api.viewerToken);
    expect(asViewer.data!.jobs.nodes.map((n) => n.armedOn)).toEqual([['owner-1'], ['owner-1']]);
  });
});
