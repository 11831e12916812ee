import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS, operationCostOf } from '../../src/graphql/limits.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { gql, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * The query cost is what runs: generated nested queries with every form of `first` — literal,
 * variable, null, variable null, omitted, 0, over the cap — never fetch more rows than their
 * estimate allowed, on HTTP and on the WebSocket; and the `first: null` bypass is closed.
 */
const JOBS = 30;
const RUNS_PER_JOB = 30;

let api: Api;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
  await api.cronql.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, pause_reason)
     SELECT gen_random_uuid(), 'cost-' || i, 1, 'log', 'RECURRING', '0 3 * * *', 'PAUSED', 'fixture' FROM generate_series(1, $1) AS i`,
    [JOBS],
  );
  await api.cronql.pool.query(
    `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, finished_at, created_at, updated_at)
     SELECT gen_random_uuid(), j.id, j.job_key, 1, 'log', 'MANUAL', now() - make_interval(mins => n), 'SUCCEEDED', now(), now(), now(), now()
     FROM cron_job_definitions j, generate_series(1, $1) AS n`,
    [RUNS_PER_JOB],
  );
});
afterAll(async () => {
  await api?.close();
});

/** Rows in a response: the elements of every page (`nodes`, `edges`), at any depth. */
function objects(value: unknown, key = ''): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + (key === 'nodes' || key === 'edges' ? 1 : 0) + objects(v), 0);
  if (value && typeof value === 'object') return Object.entries(value).reduce((n: number, [k, v]) => n + objects(v, k), 0);
  return 0;
}

type First = { arg: string; variable?: unknown };
const forms: First[] = [
  { arg: '' }, // omitted
  { arg: '(first: null)' },
  { arg: '(first: 0)' },
  { arg: '(first: 3)' },
  { arg: '(first: 25)' },
  { arg: '(first: 1000)' }, // over the cap
  { arg: '(first: $a)', variable: null },
  { arg: '(first: $a)', variable: 7 },
  { arg: '(first: $a)' }, // variable not sent
];

function generate(seed: number): { query: string; variables: Record<string, unknown> } {
  let s = seed;
  const pick = <T,>(xs: T[]) => xs[(s = (s * 1103515245 + 12345) % 2 ** 31) % xs.length];
  const variables: Record<string, unknown> = {};
  let usesVar = false;
  const arg = () => {
    const f = pick(forms);
    if (f.arg.includes('$a')) {
      usesVar = true;
      if ('variable' in f) variables.a = f.variable;
    }
    return f.arg;
  };
  const extras = () => pick(['', 'totalCount', 'pageInfo { hasNextPage endCursor }', 'totalCount pageInfo { hasNextPage }']);
  const runs = () => `runs${arg()} { ${extras()} nodes { id status job { key } } }`;
  const shape = pick([
    () => `jobs${arg()} { ${extras()} nodes { key ${runs()} } }`,
    () => `jobs${arg()} { ${extras()} edges { cursor node { key ${runs()} lastRun { id } } } }`,
    () => `${runs()} jobs${arg()} { totalCount nodes { key } }`,
    () => `runs${arg()} { ${extras()} nodes { id job { ${runs()} } } }`,
  ])();
  const query = `${usesVar ? 'query($a: Int)' : ''} { ${shape} }`;
  return { query, variables };
}

describe('the query cost matches what runs', () => {
  it('never lets an operation fetch more rows than its estimate (120 generated operations, HTTP and WebSocket)', async () => {
    const schema = await cronqlSchema();
    const client = wsClient(api.wsUrl, api.viewerToken);
    let refused = 0;
    try {
      for (let seed = 1; seed <= 120; seed++) {
        const { query, variables } = generate(seed);
        const cost = operationCostOf(schema, parse(query), variables);
        const viaHttp = await gql<Record<string, unknown>, unknown>(api.url, query, variables, api.viewerToken);
        const viaWs = seed % 4 === 0 ? await wsOnce<Record<string, unknown>, unknown>(client, query, variables) : viaHttp;
        for (const res of [viaHttp, viaWs]) {
          if (cost > LIMITS.maxCost) {
            expect(res.errors?.[0]?.extensions?.code, query).toBe('GRAPHQL_VALIDATION_FAILED');
            refused++;
          } else {
            expect(res.errors, query).toBeUndefined();
            expect(objects(res.data), `${query} ${JSON.stringify(variables)}`).toBeLessThanOrEqual(cost);
          }
        }
      }
    } finally {
      await client.dispose();
    }
    expect(refused).toBeGreaterThan(0);
  }, 60_000);

  it('`first: null` costs the default page it fetches: the reported bypass is refused', async () => {
    // Three levels, twice (aliases): 2 × 17,261 with the default page of 20 at every level.
    const level = (first: string) => `runs${first} { nodes { job { runs${first} { nodes { job { runs${first} { nodes { id } } } } } } } }`;
    const nest = (first: string) => `{ a: ${level(first)} b: ${level(first)} }`;
    const nulls = nest('(first: null)');
    const twenties = nest('(first: 20)');
    const schema = await cronqlSchema();
    expect(operationCostOf(schema, parse(nulls))).toBe(operationCostOf(schema, parse(twenties)));
    const res = await gql(api.url, nulls, undefined, api.viewerToken);
    expect(res.errors?.[0]?.message).toMatch(/cost \d+ exceeds the limit of 25000/);
  });

  it('`first: 0` still pays for totalCount and pageInfo', async () => {
    const schema = await cronqlSchema();
    const counts = operationCostOf(schema, parse('{ jobs(first: 0) { totalCount pageInfo { hasNextPage } nodes { key } } }'));
    const bare = operationCostOf(schema, parse('{ jobs(first: 0) { nodes { key } } }'));
    expect(counts).toBeGreaterThan(bare);
    // Nested under a page, each count is paid per row.
    const nested = operationCostOf(schema, parse('{ jobs(first: 500) { nodes { runs(first: 0) { totalCount } } } }'));
    expect(nested).toBeGreaterThanOrEqual(500 * 3);
  });
});
