import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/services/stored-input.js';
import { gql, startApi, type Api } from './support.js';

/**
 * Input the database cannot store — a NUL character, a lone UTF-16 surrogate, a number outside
 * JSON's range, a payload nested thousands of levels deep — is refused with BAD_USER_INPUT in
 * every argument that reaches the database, whether sent as a literal or a variable, and nothing
 * changes. (Before: a masked INTERNAL_SERVER_ERROR, or `1e999` silently stored as null.)
 */
describe('input the database cannot store', () => {
  let api: Api;
  let jobId: string;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'stored-input' });
    const res = await gql<{ createJob: { id: string } }, unknown>(
      api.url,
      'mutation { createJob(input: { key: "victim", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *", payload: { ok: true } }) { id } }',
      undefined,
      api.adminToken,
    );
    jobId = res.data!.createJob.id;
  });
  afterAll(async () => {
    await api.close();
  });

  /** Raw JSON text of a bad value, as a client could send it (JSON.stringify cannot write 1e999). */
  const badValues: [string, string][] = [
    ['NUL in a string', '{"text":"a\\u0000b"}'],
    ['NUL in a key', '{"a\\u0000b":1}'],
    ['a lone high surrogate', '{"text":"\\ud800"}'],
    ['a lone low surrogate', '["x\\udc00y"]'],
    ['a number out of range', '{"n":1e999}'],
    ['a negative number out of range', '[-1e400]'],
    ['10,000 levels of nesting', `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`],
    [`${MAX_JSON_DEPTH + 1} levels of nesting`, `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`],
  ];

  async function post(body: string) {
    const res = await fetch(api.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` }, body });
    return { status: res.status, body: (await res.json()) as { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] } };
  }

  const payloadOperations: [string, string][] = [
    ['createJob', 'mutation($p: JSON) { createJob(input: { key: "bad-new", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *", payload: $p }) { id } }'],
    ['createJobVersion', 'mutation($id: ID!, $p: JSON) { createJobVersion(id: $id, input: { payload: $p }) { id } }'],
    ['runJobNow', 'mutation($id: ID!, $p: JSON) { runJobNow(id: $id, payload: $p) { id } }'],
  ];

  it.each(payloadOperations.flatMap(([op, query]) => badValues.map(([what, json]) => [op, what, query, json] as const)))(
    '%s refuses a payload with %s (variable)',
    async (_op, _what, query, json) => {
      const res = await post(`{"query":${JSON.stringify(query)},"variables":{"id":${JSON.stringify(jobId)},"p":${json}}}`);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(res.body.errors?.[0]?.message).not.toMatch(/internal/i);
    },
  );

  it.each([
    ['NUL in a string', '{ text: "a\\u0000b" }', 'BAD_USER_INPUT'],
    // GraphQL's own grammar already refuses a lone surrogate escape in a document.
    ['a lone surrogate', '{ text: "\\ud800" }', 'GRAPHQL_PARSE_FAILED'],
    ['a number out of range', '{ n: 1e999 }', 'BAD_USER_INPUT'],
    ['100 levels of nesting', `${'{ a: '.repeat(100)}1${' }'.repeat(100)}`, 'BAD_USER_INPUT'],
    // A document that long is refused by the parser's token limit before any of this.
    ['10,000 levels of nesting', `${'{ a: '.repeat(10_000)}1${' }'.repeat(10_000)}`, 'GRAPHQL_PARSE_FAILED'],
  ])('createJob refuses a literal payload with %s', async (_what, literal, code) => {
    const res = await gql(api.url, `mutation { createJob(input: { key: "bad-literal", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *", payload: ${literal} }) { id } }`, undefined, api.adminToken);
    expect(res.errors?.[0]?.extensions?.code).toBe(code);
  });

  it.each([
    ['pauseJob reason', 'mutation($id: ID!, $s: String!) { pauseJob(id: $id, reason: $s) { id } }'],
    ['jobs filter key', 'query($s: String) { jobs(filter: { key: $s }) { totalCount } }'],
    ['jobs filter target', 'query($s: String) { jobs(filter: { target: $s }) { totalCount } }'],
    ['runs filter jobKey', 'query($s: String) { runs(filter: { jobKey: $s }) { totalCount } }'],
    ['runs filter target', 'query($s: String) { runs(filter: { target: $s }) { totalCount } }'],
  ])('%s refuses NUL characters and lone surrogates', async (_what, query) => {
    for (const s of ['why\u0000not', 'x\ud800', '\udfff']) {
      const res = await gql(api.url, query, { id: jobId, s }, api.adminToken);
      expect(res.errors?.[0]?.extensions?.code, JSON.stringify(s)).toBe('BAD_USER_INPUT');
    }
  });

  it('changed nothing', async () => {
    const res = await gql<{ job: { status: string; payload: unknown; version: number }; jobs: { totalCount: number }; runs: { totalCount: number } }, unknown>(
      api.url,
      'query($id: ID!) { job(id: $id) { status payload version } jobs { totalCount } runs { totalCount } }',
      { id: jobId },
      api.adminToken,
    );
    expect(res.data).toEqual({ job: { status: 'ACTIVE', payload: { ok: true }, version: 1 }, jobs: { totalCount: 1 }, runs: { totalCount: 0 } });
  });
});
