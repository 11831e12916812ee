import { getIntrospectionQuery, print, stripIgnoredCharacters } from 'graphql';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { RunsDocument, TargetsDocument } from '../../src/client/generated/graphql.js';
import { LIMITS, costError } from '../../src/graphql/limits.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { codes, gql, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * The hardening of issue 3 on both transports: depth bomb, alias flood, cost, batched requests,
 * and no schema hints (CSRF: test/graphql/clients.test.ts). graphql-ws bypasses Apollo, so every case is run over
 * HTTP and over WebSocket.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
});
afterAll(async () => {
  await api?.close();
});

const depthBomb = `{ runs { nodes { job { lastRun { job { lastRun { job { lastRun { job { lastRun { id } } } } } } } } } } }`;
const aliasFlood = `{ ${Array.from({ length: 100 }, (_, i) => `a${i}: targets { name }`).join(' ')} }`;
const costly = `{ jobs(first: 500) { nodes { runs(first: 500) { nodes { id } } } } }`;
const costlyByVariable = `query($n: Int) { jobs(first: $n) { nodes { runs(first: $n) { nodes { id } } } } }`;
const introspectionBomb = `{ __schema { types { fields { type { fields { type { fields { type { name } } } } } } } } }`;

async function overWs(query: string, variables?: Record<string, unknown>) {
  const client = wsClient(api.wsUrl, api.adminToken);
  try {
    return await wsOnce(client, query, variables);
  } finally {
    await client.dispose();
  }
}

describe.each([
  ['depth bomb', depthBomb, undefined, /nested deeper than the limit of 10/],
  ['alias flood', aliasFlood, undefined, /more than the limit of 30 aliases/],
  ['cost', costly, undefined, /cost \d+ exceeds the limit of 25000/],
  ['cost through variables', costlyByVariable, { n: 500 }, /cost \d+ exceeds the limit/],
  ['introspection bomb', introspectionBomb, undefined, /Maximum introspection depth exceeded/],
])('%s', (_, query, variables, message) => {
  test('is refused over HTTP before execution', async () => {
    const res = await gql(api.url, query, variables, api.adminToken);
    // Answered as application/json: 200 (docs/api.md, "Status codes"); as
    // application/graphql-response+json it is 400 (test/http/response-status.test.ts).
    expect(res.status).toBe(200);
    expect(res.data).toBeUndefined();
    expect(codes(res)).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(res.errors?.map((e) => e.message).join()).toMatch(message);
  });

  test('is refused over WebSocket before execution', async () => {
    const res = await overWs(query, variables);
    expect(res.data).toBeUndefined();
    expect(codes(res)).toContain('GRAPHQL_VALIDATION_FAILED');
    expect(res.errors?.map((e) => e.message).join()).toMatch(message);
  });
});

describe('within the limits', () => {
  test('GraphiQL\'s introspection query passes on both transports', async () => {
    const http = await gql(api.url, getIntrospectionQuery(), {}, api.adminToken);
    expect(http.errors).toBeUndefined();
    const ws = await overWs(getIntrospectionQuery());
    expect(ws.errors).toBeUndefined();
    expect(ws.data).toEqual(http.data);
  });

  test('the introspection of the GraphiQL page (schema description, deprecated arguments; compacted) passes', async () => {
    // What src/graphiql/app asks GraphiQL for (schemaDescription, inputValueDeprecation), sent as the page sends it.
    const query = stripIgnoredCharacters(getIntrospectionQuery({ schemaDescription: true, inputValueDeprecation: true }));
    const http = await gql(api.url, query, {}, api.adminToken);
    expect(http.errors).toBeUndefined();
    expect(http.data).toHaveProperty('__schema.queryType.name', 'Query');
  });

  test('a full page of 500 runs with every field passes the cost limit', async () => {
    const schema = await cronqlSchema();
    expect(costError(schema, RunsDocument, { first: 500 }, 'Runs')).toBeNull();
    expect((await gql(api.url, RunsDocument, { first: 500 }, api.adminToken)).errors).toBeUndefined();
  });

  test(`a document over ${LIMITS.maxTokens} tokens is not even parsed`, async () => {
    const huge = `{ ${Array.from({ length: 3_000 }, () => 'targets { name }').join(' ')} }`;
    expect(codes(await gql(api.url, huge, {}, api.adminToken))).toEqual(['GRAPHQL_PARSE_FAILED']);
    expect(codes(await overWs(huge))).toEqual(['GRAPHQL_PARSE_FAILED']);
  });
});

describe('batched requests', () => {
  test('an array of operations is refused over HTTP, none executed', async () => {
    const body = JSON.stringify([{ query: print(TargetsDocument) }, { query: print(TargetsDocument) }]);
    const res = await fetch(api.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` }, body });
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('"targets"');
  });

  test.each([
    ['an array as the payload of one subscribe message', (q: string) => ({ id: '1', type: 'subscribe', payload: [{ query: q }, { query: q }] })],
    ['an array of messages', (q: string) => [
      { id: '1', type: 'subscribe', payload: { query: q } },
      { id: '2', type: 'subscribe', payload: { query: q } },
    ]],
  ])('%s is refused over WebSocket: the socket is closed 4400, nothing executed', async (_, batch) => {
    const socket = new WebSocket(api.wsUrl, 'graphql-transport-ws');
    const received: string[] = [];
    socket.on('message', (data) => received.push(String(data)));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${api.adminToken}` } }));
    await new Promise<void>((resolve) => socket.once('message', () => resolve()));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify(batch(print(TargetsDocument))));
    expect(await closed).toBe(4400);
    expect(received).toEqual([JSON.stringify({ type: 'connection_ack' })]);
  });
});

test('no schema hints: errors do not suggest field names, on either transport', async () => {
  const typo = '{ targetz { name } }';
  for (const res of [await gql(api.url, typo, {}, api.adminToken), await overWs(typo)]) {
    expect(codes(res)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect(res.errors?.[0].message).toBe('Cannot query field "targetz" on type "Query".');
  }
});
