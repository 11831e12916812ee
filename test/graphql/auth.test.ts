import { getNamedType, isLeafType } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CreateJobDocument,
  RunChangedDocument,
  RunJobNowDocument,
  TargetsDocument,
  type RunChangedSubscription,
} from '../../src/client/generated/graphql.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { Feed, codes, gql, ok, sample, snapshot, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * The auth matrix of issue 3 — anonymous / VIEWER / ADMIN × query / mutation / subscription ×
 * HTTP / WebSocket — and a walk over the schema's Mutation fields proving each needs ADMIN.
 */
let api: Api;
let jobId: string;
beforeAll(async () => {
  api = await startApi();
  jobId = (
    await ok(api.url, CreateJobDocument, {
      input: { key: 'auth', target: 'log', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 86_400_000).toISOString() },
    }, api.adminToken)
  ).createJob.id;
});
afterAll(async () => {
  await api?.close();
});

const anonymous = [
  ['no token', null],
  ['an unknown token', 'x'.repeat(40)],
] as const;

const newJob = (key: string) => ({ input: { key, target: 'log', scheduleType: 'ONE_TIME' as const, runAt: new Date(Date.now() + 86_400_000).toISOString() } });

describe('HTTP', () => {
  test.each(anonymous)('with %s, query, mutation and subscription are refused with 401 UNAUTHENTICATED', async (_, token) => {
    const before = await snapshot(api.cronql);
    for (const [doc, vars] of [
      [TargetsDocument, {}],
      [CreateJobDocument, newJob('anon')],
      [RunChangedDocument, {}],
    ] as const) {
      const res = await gql(api.url, doc, vars, token);
      expect(res.status).toBe(401);
      expect(codes(res)).toEqual(['UNAUTHENTICATED']);
      expect(res.data).toBeUndefined();
    }
    expect(await snapshot(api.cronql)).toBe(before);
  });

  test('introspection is for authenticated callers only', async () => {
    const query = '{ __schema { queryType { name } } }';
    expect((await gql(api.url, query, {}, null)).status).toBe(401);
    expect((await gql(api.url, query, {}, api.viewerToken)).data).toEqual({ __schema: { queryType: { name: 'Query' } } });
  });

  test('VIEWER may query, may not mutate', async () => {
    expect((await ok(api.url, TargetsDocument, {}, api.viewerToken)).targets.map((t) => t.name)).toContain('log');
    const before = await snapshot(api.cronql);
    const res = await gql(api.url, CreateJobDocument, newJob('by-viewer'), api.viewerToken);
    expect(codes(res)).toEqual(['FORBIDDEN']);
    expect(res.data).toBeNull();
    expect(await snapshot(api.cronql)).toBe(before);
  });

  test('ADMIN may query and mutate', async () => {
    expect((await ok(api.url, TargetsDocument, {}, api.adminToken)).targets.length).toBeGreaterThan(0);
    expect((await ok(api.url, CreateJobDocument, newJob('by-admin'), api.adminToken)).createJob.createdBy).toBe('admin');
  });

  test.each([
    ['VIEWER', () => api.viewerToken],
    ['ADMIN', () => api.adminToken],
  ])('%s subscriptions are for the WebSocket: over HTTP they are refused, not executed', async (_, token) => {
    const res = await gql(api.url, RunChangedDocument, {}, token());
    expect(res.status).toBe(400);
    expect(codes(res)).toEqual(['BAD_REQUEST']);
    expect(res.data ?? null).toBeNull();
  });
});

describe('WebSocket', () => {
  test.each(anonymous)('with %s, the connection is closed with 4401 before any operation runs', async (_, token) => {
    const before = await snapshot(api.cronql);
    for (const [doc, vars] of [
      [TargetsDocument, {}],
      [CreateJobDocument, newJob('anon-ws')],
      [RunChangedDocument, {}],
    ] as const) {
      const client = wsClient(api.wsUrl, token);
      try {
        await expect(wsOnce(client, doc, vars)).rejects.toMatchObject({ code: 4401, reason: 'UNAUTHENTICATED' });
      } finally {
        await client.dispose();
      }
    }
    expect(await snapshot(api.cronql)).toBe(before);
  });

  test('VIEWER may query and subscribe, may not mutate', async () => {
    const client = wsClient(api.wsUrl, api.viewerToken);
    const feed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobId } });
    try {
      const targets = await wsOnce(client, TargetsDocument);
      expect(targets.errors).toBeUndefined();
      expect(targets.data?.targets.map((t) => t.name)).toContain('sleep');

      const before = await snapshot(api.cronql);
      const mutation = await wsOnce(client, CreateJobDocument, newJob('by-viewer-ws'));
      expect(codes(mutation)).toEqual(['FORBIDDEN']);
      expect(await snapshot(api.cronql)).toBe(before);

      // The subscription is live: a run made by the admin reaches the viewer.
      const run = (await ok(api.url, RunJobNowDocument, { id: jobId }, api.adminToken)).runJobNow;
      await feed.waitFor((e) => e.runChanged.run.id === run.id && e.runChanged.run.status === 'SUCCEEDED');
      expect(feed.errors).toEqual([]);
    } finally {
      feed.close();
      await client.dispose();
    }
  });

  test('ADMIN may query, mutate and subscribe', async () => {
    const client = wsClient(api.wsUrl, api.adminToken);
    const feed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobId, triggerType: ['AD_HOC'] } });
    try {
      expect((await wsOnce(client, TargetsDocument)).errors).toBeUndefined();
      const created = await wsOnce(client, CreateJobDocument, newJob('by-admin-ws'));
      expect(created.errors).toBeUndefined();
      expect(created.data?.createJob).toMatchObject({ key: 'by-admin-ws', createdBy: 'admin' });
      const run = await wsOnce(client, RunJobNowDocument, { id: jobId, payload: { message: 'over ws' } });
      const runId = run.data!.runJobNow.id;
      const done = await feed.waitFor((e) => e.runChanged.run.id === runId && e.runChanged.run.status === 'SUCCEEDED');
      expect(done.runChanged.run.output).toEqual({ message: 'over ws' });
      // Filtered on the server: the MANUAL run of the viewer test never arrives here.
      expect(feed.events.every((e) => e.runChanged.run.triggerType === 'AD_HOC')).toBe(true);
    } finally {
      feed.close();
      await client.dispose();
    }
  });
});

describe('every Mutation field is refused to VIEWER (walked from the schema)', async () => {
  const schema = await cronqlSchema();
  const fields = Object.values(schema.getMutationType()!.getFields());

  test('the schema has mutations to walk', () => {
    expect(fields.map((f) => f.name).sort()).toEqual(
      [
        'backfillJob', 'cancelBackfill', 'cancelRun', 'createJob', 'createJobs', 'createJobVersion', 'createJobVersions', 'deleteSecret', 'pauseJob', 'resumeJob', 'retireJob', 'runJobNow', 'setSecret', 'skipNextRuns',
        'setCalendar', 'deleteCalendar', 'setNotificationChannel', 'deleteNotificationChannel', 'testNotificationChannel',
        'createApiToken', 'revokeApiToken', 'pauseJobs', 'resumeJobs',
        'setConcurrencyPool', 'deleteConcurrencyPool',
      ].sort(),
    );
  });

  test.each(fields.map((f) => [f.name, f] as const))('%s: VIEWER gets FORBIDDEN on HTTP and WebSocket, ADMIN gets past auth', async (_, field) => {
    // Arguments of the right types (a random id, a made-up target): the call is well formed and
    // reaches the resolver's authorization, whatever the mutation does with them.
    const variables = Object.fromEntries(field.args.map((a) => [a.name, sample(a.type)]));
    const declared = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
    const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
    const query = `mutation${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`;
    const before = await snapshot(api.cronql);

    expect(codes(await gql(api.url, query, variables, api.viewerToken))).toEqual(['FORBIDDEN']);
    const client = wsClient(api.wsUrl, api.viewerToken);
    try {
      expect(codes(await wsOnce(client, query, variables))).toEqual(['FORBIDDEN']);
    } finally {
      await client.dispose();
    }
    expect(await snapshot(api.cronql)).toBe(before);

    const asAdmin = codes(await gql(api.url, query, variables, api.adminToken));
    expect(asAdmin).not.toContain('FORBIDDEN');
    expect(asAdmin).not.toContain('UNAUTHENTICATED');
  });
});
