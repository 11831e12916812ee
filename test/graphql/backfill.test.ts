import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BACKFILL_SLOTS } from '../../src/domain/backfill.js';
import { eventually } from '../support/cronql.js';
import { codes, gql, startApi, type Api } from './support.js';

/**
 * backfillJob over HTTP: BACKFILL_TOO_LARGE for generated ranges on both sides of the cap, every
 * form of the arguments (literal, variable, null, omitted), ADMIN only; a refusal writes nothing.
 */
describe('backfillJob over GraphQL', () => {
  let api: Api;
  let everyMinute: string;
  let every5s: string;
  beforeAll(async () => {
    api = await startApi({ listen: false });
    // Paused: no slot of theirs fires during the tests; a backfill runs a paused job's slots.
    const job = async (key: string, cron: string) => {
      const made = await api.cronql.jobs.create({ key, target: 'log', scheduleType: 'RECURRING' as never, cronExpression: cron }, 'test');
      return (await api.cronql.jobs.pause(made.id, 'fixture', 'test')).id;
    };
    everyMinute = await job('bf-gql-minute', '* * * * *');
    every5s = await job('bf-gql-5s', '*/5 * * * * *');
  });
  afterAll(() => api?.close());

  const rows = async () =>
    (await api.cronql.pool.query(`SELECT (SELECT count(*) FROM cron_job_runs)::int + (SELECT count(*) FROM cron_backfills)::int AS n`)).rows[0].n as number;

  const DRY = `mutation($id: ID!, $from: DateTime!, $to: DateTime!) {
    backfillJob(id: $id, from: $from, to: $to, dryRun: true, reason: "size") { slots skippedExisting state scope created } }`;

  it('BACKFILL_TOO_LARGE exactly when the range holds more than 10,000 slots (generated ranges), and nothing is written', async () => {
    const base = Date.parse('2026-06-01T00:00:00Z');
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const cases: { id: string; stepMs: number; count: number }[] = [];
    for (const [id, stepMs] of [[everyMinute, 60_000], [every5s, 5_000]] as const) {
      for (const count of [1, 9_999, MAX_BACKFILL_SLOTS, MAX_BACKFILL_SLOTS + 1, 10_050, 20_000, 1 + Math.floor(rnd() * 30_000)]) cases.push({ id, stepMs, count });
    }
    const before = await rows();
    for (const { id, stepMs, count } of cases) {
      // `count` slots: from a slot (or just before it) to the last one (or just after it).
      const from = new Date(base - (rnd() < 0.5 ? 0 : Math.floor(rnd() * (stepMs - 1))));
      const to = new Date(base + (count - 1) * stepMs + (rnd() < 0.5 ? 0 : Math.floor(rnd() * (stepMs - 1))));
      const res = await gql<{ backfillJob: { slots: string[] } }, Record<string, unknown>>(api.url, DRY, { id, from: from.toISOString(), to: to.toISOString() }, api.adminToken);
      if (count > MAX_BACKFILL_SLOTS) {
        expect({ count, codes: codes(res) }).toEqual({ count, codes: ['BACKFILL_TOO_LARGE'] });
      } else {
        expect({ count, errors: res.errors }).toEqual({ count, errors: undefined });
        expect(res.data!.backfillJob.slots.length).toBe(count);
      }
    }
    expect(await rows()).toBe(before);
  });

  it('takes its arguments as literals or variables; scope and dryRun null or omitted are their defaults', async () => {
    const from = '2026-06-01T00:00:00Z';
    const to = '2026-06-01T00:09:00Z';
    const literal = await gql<{ backfillJob: { scope: string; state: string; slots: string[] } }, never>(
      api.url,
      `mutation { backfillJob(id: "${everyMinute}", from: "${from}", to: "${to}", scope: ALL, dryRun: true, reason: "literal") { scope state slots } }`,
      undefined,
      api.adminToken,
    );
    expect(literal.data?.backfillJob).toMatchObject({ scope: 'ALL', state: 'PLANNED' });
    expect(literal.data!.backfillJob.slots).toHaveLength(10);
    const withVars = `mutation($id: ID!, $from: DateTime!, $to: DateTime!, $scope: BackfillScope, $dryRun: Boolean, $reason: String!) {
      backfillJob(id: $id, from: $from, to: $to, scope: $scope, dryRun: $dryRun, reason: $reason) { id scope state slots created requestedBy job { id } } }`;
    type Answer = { backfillJob: { id: string; scope: string; state: string; slots: string[]; created: number; requestedBy: string; job: { id: string } } };
    const nulls = await gql<Answer, Record<string, unknown>>(api.url, withVars, { id: everyMinute, from, to, scope: null, dryRun: true, reason: 'vars' }, api.adminToken);
    expect(nulls.data?.backfillJob).toMatchObject({ scope: 'NOT_SUCCEEDED', state: 'PLANNED', created: 0, requestedBy: 'admin', job: { id: everyMinute } });
    const before = await rows();
    // dryRun null: a real backfill (the default is false), scope omitted: NOT_SUCCEEDED.
    const real = await gql<Answer, Record<string, unknown>>(api.url, withVars, { id: everyMinute, from, to, dryRun: null, reason: 'real' }, api.adminToken);
    expect(real.errors).toBeUndefined();
    expect(real.data!.backfillJob).toMatchObject({ scope: 'NOT_SUCCEEDED' });
    expect(['RUNNING', 'DONE']).toContain(real.data!.backfillJob.state);
    await eventually(async () => (await api.cronql.backfills.get(real.data!.backfillJob.id))?.state === 'DONE', 20_000);
    expect(await rows()).toBe(before + 1 + 10);
    const read = await gql<{ backfill: { id: string; reason: string } }, Record<string, unknown>>(
      api.url,
      'query($id: ID!) { backfill(id: $id) { id reason } }',
      { id: real.data!.backfillJob.id },
      api.viewerToken,
    );
    expect(read.data?.backfill).toEqual({ id: real.data!.backfillJob.id, reason: 'real' });
  });

  it('refuses bad arguments with their codes, a VIEWER with FORBIDDEN, and writes nothing', async () => {
    const before = await rows();
    const ask = (vars: Record<string, unknown>, token = api.adminToken) =>
      gql(
        api.url,
        `mutation($id: ID!, $from: DateTime!, $to: DateTime!, $reason: String!) { backfillJob(id: $id, from: $from, to: $to, reason: $reason) { id } }`,
        { id: everyMinute, from: '2026-06-01T00:00:00Z', to: '2026-06-01T01:00:00Z', reason: 'r', ...vars },
        token,
      );
    expect(codes(await ask({}, api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(codes(await ask({ reason: '' }))).toEqual(['REASON_REQUIRED']);
    expect(codes(await ask({ from: '2026-06-02T00:00:00Z' }))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await ask({ to: new Date(Date.now() + 3_600_000).toISOString() }))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await ask({ from: 'yesterday' }))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await ask({ id: '00000000-0000-4000-8000-000000000000' }))).toEqual(['NOT_FOUND']);
    const cancel = (token: string) => gql(api.url, 'mutation($id: ID!) { cancelBackfill(id: $id) { id } }', { id: '00000000-0000-4000-8000-000000000000' }, token);
    expect(codes(await cancel(api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(codes(await cancel(api.adminToken))).toEqual(['NOT_FOUND']);
    expect(await rows()).toBe(before);
  });
});
