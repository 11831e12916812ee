import { execute, getOperationAST, parse, type ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompiledExecution } from '../../src/graphql/compiled-execution.js';
import type { GraphQLContext, Principal } from '../../src/graphql/context.type.js';
import { Loaders } from '../../src/graphql/loaders.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { scopeOf } from '../../src/domain/scope.js';
import { gql, startApi, type Api } from './support.js';

const ADMIN: Principal = { role: 'ADMIN', name: 'admin', tokenId: null, scope: null };
const VIEWER: Principal = { role: 'VIEWER', name: 'viewer', tokenId: null, scope: null };
const SCOPED: Principal = { role: 'VIEWER', name: 'team-a', tokenId: null, scope: 'team=a' };

/** Operations as the clients send them: pages with every run field, errors raised in resolvers, variables, introspection. */
const OPERATIONS: { query: string; variables?: Record<string, unknown> }[] = [
  {
    query: `query { runs(first: 50) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id jobKey jobVersion target payloadSnapshot triggerType
      scheduledAt startedAt finishedAt durationMs status failureCode failureMessage failureDetails waitingFor output runnerInstanceId progress progressMessage
      heartbeatAt createdAt updatedAt attempt nextAttemptAt traceId triggeredBy retryOf { id } upstreamRuns { id } job { id } } } } }`,
  },
  { query: `query { jobs(first: 10) { totalCount nodes { id key labels payload status lastRun { id status output } runs(first: 2) { nodes { id job { key } } } } } }` },
  { query: `query Page($n: Int, $after: String) { runs(first: $n, after: $after) { nodes { id scheduledAt } pageInfo { endCursor } } }`, variables: { n: 2 } },
  { query: `query Page($n: Int, $after: String) { runs(first: $n, after: $after) { nodes { id scheduledAt } pageInfo { endCursor } } }`, variables: { n: null, after: null } },
  { query: `query { runs(filter: { labelSelector: "team=a," }) { nodes { id } } }` },
  { query: `query { a: runs(first: -1) { nodes { id } } b: jobs(first: 1) { nodes { key } } }` },
  { query: `query { auditLog(first: 1) { nodes { action } } whoami { role } }` },
  { query: `query { __typename __schema { queryType { name } } __type(name: "Run") { fields { name } } }` },
];

/**
 * Queries over HTTP are executed compiled (graphql-jit, src/graphql/compiled-execution.ts): the
 * answer — data, error messages, paths, locations, codes and the errors resolvers threw — must be
 * what graphql-js's own execution gives, for every role and scope. (Every other test of
 * test/graphql goes through the compiled path too, over HTTP.)
 */
describe('compiled execution', () => {
  let api: Api;
  let execution: CompiledExecution;
  const context = (principal: Principal): GraphQLContext => ({ cronql: api.cronql, principal, loaders: new Loaders(api.cronql, scopeOf(principal)), log: api.cronql.log });

  beforeAll(async () => {
    api = await startApi({ instanceId: 'compiled', targets: { echo: async (ctx) => ({ echoed: ctx.payload, accessToken: 'S3CRET' }) } });
    execution = new CompiledExecution(await cronqlSchema());
    for (const [key, labels] of [['a-1', { team: 'a' }], ['b-1', { team: 'b' }]] as const) {
      const created = await gql<{ createJob: { id: string } }, unknown>(
        api.url,
        'mutation($key: String!, $labels: JSON) { createJob(input: { key: $key, target: "echo", scheduleType: RECURRING, cronExpression: "0 3 * * *", payload: { password: "S3CRET", n: 1 }, labels: $labels }) { id } }',
        { key, labels },
        api.adminToken,
      );
      expect(created.errors).toBeUndefined();
      for (let i = 0; i < 3; i++) {
        const run = await api.cronql.runs.runNow(created.data!.createJob.id, undefined, { actor: 'admin' });
        // Ended runs: both executions below must read the same rows.
        const deadline = Date.now() + 30_000;
        while ((await api.cronql.runs.get(run.id))?.status !== 'SUCCEEDED' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  afterAll(async () => {
    await api?.close();
  });

  const plain = (r: ExecutionResult) => JSON.parse(JSON.stringify(r)) as unknown;

  it('answers as graphql-js does: data, errors and what the resolvers threw, for ADMIN, VIEWER and a scoped token', async () => {
    for (const { query, variables } of OPERATIONS) {
      const document = parse(query);
      const operation = getOperationAST(document)!;
      expect(execution.compiled(document), query).not.toBeNull();
      for (const principal of [ADMIN, VIEWER, SCOPED]) {
        const interpreted = await execute({ schema: await cronqlSchema(), document, contextValue: context(principal), variableValues: variables });
        const compiled = await execution.run({ document, operation, variables, context: context(principal) });
        const label = `${principal.name}: ${query.slice(0, 60)}`;
        expect(plain(compiled), label).toEqual(plain(interpreted));
        expect(compiled.errors?.map((e) => e.originalError?.constructor.name), label).toEqual(interpreted.errors?.map((e) => e.originalError?.constructor.name));
        if (principal !== ADMIN) expect(JSON.stringify(compiled.data ?? null), label).not.toMatch(/S3CRET/);
      }
    }
  });

  it('leaves mutations and variables that do not coerce to graphql-js', async () => {
    const mutation = parse('mutation { cancelRun(id: "00000000-0000-0000-0000-000000000000") { id } }');
    const bad = parse('query($n: Int) { runs(first: $n) { nodes { id } } }');
    const variables = { n: 'many' };
    const interpreted = await execute({ schema: await cronqlSchema(), document: bad, contextValue: context(ADMIN), variableValues: variables });
    const compiled = await execution.run({ document: bad, operation: getOperationAST(bad)!, variables, context: context(ADMIN) });
    expect(plain(compiled)).toEqual(plain(interpreted));
    expect(compiled.errors?.[0].message).toMatch(/^Variable "\$n" got invalid value "many"/);
    const canceled = await execution.run({ document: mutation, operation: getOperationAST(mutation)!, context: context(VIEWER) });
    expect(canceled.errors?.[0].extensions?.code).toBe('FORBIDDEN');
  });
});
