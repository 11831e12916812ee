import { getNamedType, isLeafType, type GraphQLField } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreateApiTokenDocument, CreateJobDocument, PauseJobDocument, ResumeJobDocument } from '../../src/client/generated/graphql.js';
import type { AccessRole } from '../../src/graphql/context.type.js';
import { ROLE_RULES, type Operation } from '../../src/graphql/auth.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { codes, gql, ok, sample, snapshot, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * The role half of the access matrix (the scope half is in the matrix test of scopes): every root
 * field of the schema has its rule in graphql/auth.ts's ROLE_RULES, and an OPERATOR and a VIEWER
 * named token are allowed or refused (FORBIDDEN, nothing changed) each query and mutation exactly
 * as the table says. Walked from the schema, so a new operation without a rule fails here.
 */
const schema = await cronqlSchema();
const roots = (['Query', 'Mutation', 'Subscription'] as const).flatMap((kind) => {
  const type = kind === 'Query' ? schema.getQueryType() : kind === 'Mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  return Object.values(type!.getFields()).map((field) => ({ kind, field, operation: `${kind}.${field.name}` }));
});
const rules = ROLE_RULES as Record<string, readonly AccessRole[]>;

let api: Api;
const secrets: Partial<Record<AccessRole, string>> = {};
beforeAll(async () => {
  api = await startApi();
  for (const role of ['OPERATOR', 'VIEWER'] as const) {
    secrets[role] = (await ok(api.url, CreateApiTokenDocument, { name: `matrix-${role.toLowerCase()}`, role }, api.adminToken)).createApiToken.secret;
  }
});
afterAll(async () => {
  await api?.close();
});

test('every query, mutation and subscription of the schema has a role rule', () => {
  expect(roots.length).toBeGreaterThan(40);
  expect(roots.filter((r) => !(r.operation in rules)).map((r) => r.operation)).toEqual([]);
});

test('OPERATOR may do exactly the day-to-day actions among mutations; every role may read, except what only ADMIN manages', () => {
  const mutations = roots.filter((r) => r.kind === 'Mutation');
  const operatorMay = mutations.filter((r) => rules[r.operation].includes('OPERATOR')).map((r) => r.field.name);
  const known = ['pauseJob', 'resumeJob', 'runJobNow', 'cancelRun', 'skipNextRuns', 'backfillJob', 'cancelBackfill', 'pauseJobs', 'resumeJobs'];
  expect(operatorMay.every((name) => known.includes(name))).toBe(true);
  expect(mutations.every((r) => !rules[r.operation].includes('VIEWER'))).toBe(true);
  const adminReads = roots.filter((r) => r.kind !== 'Mutation' && !rules[r.operation].includes('VIEWER')).map((r) => r.field.name).sort();
  expect(adminReads.every((name) => ['apiTokens', 'auditLog', 'instances', 'notificationChannels', 'secrets'].includes(name))).toBe(true);
  for (const r of roots) expect(rules[r.operation]).toContain('ADMIN');
});

/** An operation calling the field with well-typed arguments (a random id, a made-up name). */
function call(kind: 'Query' | 'Mutation', field: GraphQLField<unknown, unknown>) {
  const variables = Object.fromEntries(field.args.map((a) => [a.name, sample(a.type)]));
  const declared = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const passed = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return { query: `${kind.toLowerCase()}${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`, variables };
}

describe.each(['OPERATOR', 'VIEWER'] as const)('a named %s token', (role) => {
  const cases = roots.filter((r) => r.kind !== 'Subscription').map((r) => [r.operation, r] as const);
  test.each(cases)('%s: as the role table says', async (operation, { kind, field }) => {
    const allowed = rules[operation as Operation].includes(role);
    const { query, variables } = call(kind as 'Query' | 'Mutation', field);
    const before = await snapshot(api.cronql);
    const tokensBefore = (await api.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens')).rows[0].n;
    const got = codes(await gql(api.url, query, variables, secrets[role]));
    if (allowed) {
      expect(got).not.toContain('FORBIDDEN');
      expect(got).not.toContain('UNAUTHENTICATED');
    } else {
      expect(got).toEqual(['FORBIDDEN']);
      expect(await snapshot(api.cronql)).toBe(before);
      expect((await api.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens')).rows[0].n).toBe(tokensBefore);
    }
  });
});

test('an OPERATOR acts over the WebSocket too, and is refused there what it is refused over HTTP', async () => {
  const jobId = (
    await ok(api.url, CreateJobDocument, { input: { key: 'roles-ws', target: 'log', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 86_400_000).toISOString() } }, api.adminToken)
  ).createJob.id;
  const client = wsClient(api.wsUrl, secrets.OPERATOR);
  try {
    const paused = await wsOnce(client, PauseJobDocument, { id: jobId, reason: 'over ws' });
    expect(paused.errors).toBeUndefined();
    expect(paused.data?.pauseJob).toMatchObject({ status: 'PAUSED', updatedBy: 'matrix-operator' });
    expect((await wsOnce(client, ResumeJobDocument, { id: jobId })).data?.resumeJob.status).toBe('ACTIVE');
    const before = await snapshot(api.cronql);
    expect(codes(await wsOnce(client, CreateJobDocument, { input: { key: 'roles-ws-2', target: 'log', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 86_400_000).toISOString() } }))).toEqual(['FORBIDDEN']);
    expect(await snapshot(api.cronql)).toBe(before);
  } finally {
    await client.dispose();
  }
});
