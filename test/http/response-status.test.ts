import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { answerMediaType } from '../../src/http/response-status.js';
import { startApi, type Api } from '../graphql/support.js';

/**
 * The status of a request refused before execution depends on the media type of the answer
 * (docs/api.md, "Status codes"): 200 for application/json, 400 for
 * application/graphql-response+json; other refusals keep their 4xx.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
});
afterAll(async () => {
  await api?.close();
});

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

async function post(accept: string | undefined, body: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` };
  if (accept !== undefined) headers.accept = accept;
  const res = await fetch(api.url, { method: 'POST', headers, body: JSON.stringify(body) });
  const json = (await res.json()) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  return { status: res.status, type: res.headers.get('content-type')?.split(';')[0], body: json, codes: json.errors?.map((e) => e.extensions?.code) };
}

const refusals: [string, unknown, string][] = [
  ['a document that does not parse', { query: '{ targets { name ' }, 'GRAPHQL_PARSE_FAILED'],
  ['a document that does not validate', { query: '{ targetz { name } }' }, 'GRAPHQL_VALIDATION_FAILED'],
  ['a limit (depth)', { query: '{ runs { nodes { job { lastRun { job { lastRun { job { lastRun { job { lastRun { id } } } } } } } } } } }' }, 'GRAPHQL_VALIDATION_FAILED'],
  ['a limit (cost, through a variable)', { query: 'query($n: Int) { jobs(first: $n) { nodes { runs(first: $n) { nodes { id } } } } }', variables: { n: 500 } }, 'GRAPHQL_VALIDATION_FAILED'],
  ['a variable that does not coerce', { query: 'query($id: ID!) { job(id: $id) { id } }', variables: { id: { not: 'an id' } } }, 'BAD_USER_INPUT'],
];

describe.each(refusals)('%s', (_, body, code) => {
  test.each([
    [JSON_TYPE, JSON_TYPE, 200],
    ['*/*', JSON_TYPE, 200],
    [undefined, JSON_TYPE, 200],
    [`${GRAPHQL_RESPONSE}, ${JSON_TYPE};q=0.9`, GRAPHQL_RESPONSE, 400],
    [GRAPHQL_RESPONSE, GRAPHQL_RESPONSE, 400],
  ] as const)('Accept %s → %s, %i, no data', async (accept, type, status) => {
    const res = await post(accept, body);
    expect(res.type).toBe(type);
    expect(res.status).toBe(status);
    expect(res.codes).toEqual([code]);
    expect('data' in res.body).toBe(false);
  });
});

test('other refusals keep their 4xx whatever the media type: a subscription over HTTP, a missing query, a batch', async () => {
  for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
    const subscription = await post(accept, { query: 'subscription { runChanged { run { id } } }' });
    expect([subscription.status, subscription.codes]).toEqual([400, ['BAD_REQUEST']]);
    const missing = await post(accept, { variables: {} });
    expect([missing.status, missing.codes]).toEqual([400, ['BAD_REQUEST']]);
    const batch = await post(accept, [{ query: '{ targets { name } }' }, { query: '{ targets { name } }' }]);
    expect(batch.status).toBe(400);
  }
});

test('an error during execution is 200 on both media types, with data', async () => {
  for (const accept of [JSON_TYPE, GRAPHQL_RESPONSE]) {
    const res = await post(accept, { query: 'mutation { retireJob(id: "00000000-0000-4000-8000-000000000000") { id } }' });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeNull();
    expect(res.codes).toEqual(['NOT_FOUND']);
  }
});

test('the media type negotiation is Apollo\'s: application/json unless graphql-response+json is preferred', () => {
  expect(answerMediaType(undefined)).toBe(JSON_TYPE);
  expect(answerMediaType('*/*')).toBe(JSON_TYPE);
  expect(answerMediaType('application/*')).toBe(JSON_TYPE);
  expect(answerMediaType(`${JSON_TYPE};q=0.5, ${GRAPHQL_RESPONSE}`)).toBe(GRAPHQL_RESPONSE);
  expect(answerMediaType(`${GRAPHQL_RESPONSE};q=0.5, ${JSON_TYPE}`)).toBe(JSON_TYPE);
  expect(answerMediaType('text/html')).toBeUndefined();
});
