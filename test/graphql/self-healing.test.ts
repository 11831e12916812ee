import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import { gql, startApi, type Api } from './support.js';

/** The GraphQL side of the self-healing runtime (docs/behaviour.md): catch-up policies on jobs and versions, and the instances list. */
describe('catch-up policies and instances over GraphQL', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'gql-self-healing' });
  });
  afterAll(async () => {
    await api.close();
  });

  const create = (input: Record<string, unknown>) =>
    gql<{ createJob: { id: string; catchUp: string; catchUpLimit: number | null } }, { input: Record<string, unknown> }>(
      api.url,
      'mutation($input: CreateJobInput!) { createJob(input: $input) { id catchUp catchUpLimit } }',
      { input: { target: 'log', scheduleType: 'RECURRING', cronExpression: '0 3 * * *', ...input } },
      api.adminToken,
    );

  it('defaults to NONE, keeps ALL with its limit, and copies both to new versions', async () => {
    expect((await create({ key: 'cu-default' })).data?.createJob).toMatchObject({ catchUp: 'NONE', catchUpLimit: null });
    const all = (await create({ key: 'cu-all', catchUp: 'ALL', catchUpLimit: 5 })).data!.createJob;
    expect(all).toMatchObject({ catchUp: 'ALL', catchUpLimit: 5 });
    const version = 'mutation($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { id version catchUp catchUpLimit } }';
    const v2 = await gql<{ createJobVersion: { id: string; version: number; catchUp: string; catchUpLimit: number | null } }, unknown>(
      api.url, version, { id: all.id, input: { timezone: 'Europe/Paris' } }, api.adminToken);
    expect(v2.data?.createJobVersion).toMatchObject({ version: 2, catchUp: 'ALL', catchUpLimit: 5 });
    // Changing the policy away from ALL drops the limit.
    const v3 = await gql<{ createJobVersion: { catchUp: string; catchUpLimit: number | null } }, unknown>(
      api.url, version, { id: v2.data!.createJobVersion.id, input: { catchUp: 'LATEST' } }, api.adminToken);
    expect(v3.data?.createJobVersion).toMatchObject({ catchUp: 'LATEST', catchUpLimit: null });
  });

  it('refuses every bad limit with BAD_USER_INPUT and creates nothing', async () => {
    const bad: Record<string, unknown>[] = [
      { catchUp: 'ALL', catchUpLimit: 0 },
      { catchUp: 'ALL', catchUpLimit: -1 },
      { catchUp: 'ALL', catchUpLimit: 1001 },
      { catchUp: 'NONE', catchUpLimit: 3 },
      { catchUpLimit: 3 },
      { catchUp: 'LATEST', catchUpLimit: 1 },
    ];
    for (const [i, extra] of bad.entries()) {
      const res = await create({ key: `cu-bad-${i}`, ...extra });
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(extra)).toBe('BAD_USER_INPUT');
    }
    const literal = await gql(api.url, 'mutation { createJob(input: { key: "cu-lit", target: "log", scheduleType: RECURRING, cronExpression: "* * * * *", catchUp: SOMETIMES }) { id } }', undefined, api.adminToken);
    expect(literal.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    const jobs = await gql<{ jobs: { nodes: { key: string }[] } }, unknown>(api.url, '{ jobs(first: 100) { nodes { key } } }', undefined, api.adminToken);
    expect(jobs.data!.jobs.nodes.filter((j) => j.key.startsWith('cu-bad') || j.key === 'cu-lit')).toEqual([]);
  });

  it('lists the live instances to an ADMIN, not to a VIEWER', async () => {
    const query = '{ instances { id role host startedAt heartbeatAt activeRuns } }';
    const admin = await gql<{ instances: { id: string; role: string; host: string; activeRuns: number }[] }, unknown>(api.url, query, undefined, api.adminToken);
    expect(admin.data?.instances).toEqual([
      expect.objectContaining({ id: 'gql-self-healing', role: 'all', host: expect.any(String), activeRuns: 0 }),
    ]);
    const viewer = await gql(api.url, query, undefined, api.viewerToken);
    expect(viewer.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });
});

describe('health, by named check', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'gql-health' });
  });
  afterAll(async () => {
    await api.close();
  });

  it('answers /readyz and the health query with each check, and the last hour\'s lost runs and missed slots', async () => {
    const job = await api.cronql.jobs.create({ key: 'health-job', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *' });
    await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, failure_code, failure_details, finished_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'health-job', 1, 'log', 'SCHEDULED', now() - interval '10 minutes', 'SKIPPED', 'MISSED', '{"reason":"STALL"}', now(), now(), now()),
              (gen_random_uuid(), $1, 'health-job', 1, 'log', 'MANUAL', now() - interval '5 minutes', 'FAILED', 'RUNNER_LOST', '{}', now(), now(), now()),
              (gen_random_uuid(), $1, 'health-job', 1, 'log', 'SCHEDULED', now() - interval '3 hours', 'SKIPPED', 'MISSED', '{"reason":"STALL"}', now() - interval '3 hours', now(), now())`,
      [job.id],
    );
    const res = await fetch(api.url.replace(/\/graphql$/, '/readyz'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: { runtime: 'ok', heartbeat: 'ok', database: 'ok' },
      lastHour: { lostRuns: 1, missedSlots: 1 },
    });
    const viewer = await gql<{ health: unknown }, unknown>(api.url, '{ health { ready checks { name status } lostRunsLastHour missedSlotsLastHour } }', undefined, api.viewerToken);
    expect(viewer.data?.health).toEqual({
      ready: true,
      checks: [
        { name: 'runtime', status: 'ok' },
        { name: 'heartbeat', status: 'ok' },
        { name: 'database', status: 'ok' },
      ],
      lostRunsLastHour: 1,
      missedSlotsLastHour: 1,
    });
  });
});
