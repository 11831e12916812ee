import { randomUUID } from 'node:crypto';
import type { GraphQLFormattedError } from 'graphql';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  CancelRunDocument,
  CreateJobDocument,
  CreateJobVersionDocument,
  JobsDocument,
  PauseJobDocument,
  PreviewScheduleDocument,
  ResumeJobDocument,
  RetireJobDocument,
  RunJobNowDocument,
  RunsDocument,
  TargetsDocument,
  type CreateJobInput,
} from '../../src/client/generated/graphql.js';
import { codes, gql, ok, snapshot, startApi, wsClient, wsOnce, type Api } from './support.js';

/**
 * Every error code of docs/api.md, produced over HTTP against a started server, each leaving the
 * database exactly as it was; internal errors are masked on both transports.
 */
let api: Api;
let admin: string;
let active: string;
let paused: string;
let retired: string;
let finishedRun: string;
let before: string;

const recurring = (key: string, extra: Partial<CreateJobInput> = {}): CreateJobInput => ({
  key,
  target: 'log',
  scheduleType: 'RECURRING',
  cronExpression: '0 0 1 1 *',
  ...extra,
});

beforeAll(async () => {
  api = await startApi();
  admin = api.adminToken;
  const create = async (key: string) => (await ok(api.url, CreateJobDocument, { input: recurring(key) }, admin)).createJob.id;
  active = await create('active');
  paused = await create('paused');
  await ok(api.url, PauseJobDocument, { id: paused, reason: 'on hold' }, admin);
  retired = await create('retired');
  await ok(api.url, RetireJobDocument, { id: retired }, admin);
  finishedRun = (await ok(api.url, RunJobNowDocument, { id: active }, admin)).runJobNow.id;
  await api.cronql.runtime!.whenIdle();
  before = await snapshot(api.cronql);
});

afterAll(async () => {
  await api?.close();
});

const oversized = { blob: 'x'.repeat(70_000) };
const anHourAgo = () => new Date(Date.now() - 3600_000).toISOString();

describe('each error code leaves the database unchanged', () => {
  const cases: [code: string, name: string, call: () => Promise<{ errors?: readonly GraphQLFormattedError[] }>][] = [
    ['UNAUTHENTICATED', 'no token', () => gql(api.url, TargetsDocument, {}, null)],
    ['UNAUTHENTICATED', 'unknown token', () => gql(api.url, CreateJobDocument, { input: recurring('x') }, 'not-a-known-token-at-all')],
    ['FORBIDDEN', 'VIEWER creates a job', () => gql(api.url, CreateJobDocument, { input: recurring('x') }, api.viewerToken)],
    ['BAD_USER_INPUT', 'malformed key', () => gql(api.url, CreateJobDocument, { input: recurring('no spaces allowed') }, admin)],
    ['BAD_USER_INPUT', 'timeoutSeconds 0', () => gql(api.url, CreateJobDocument, { input: recurring('x', { timeoutSeconds: 0 }) }, admin)],
    ['BAD_USER_INPUT', 'a cursor not from the API', () => gql(api.url, JobsDocument, { after: 'garbage' }, admin)],
    ['BAD_USER_INPUT', 'negative first', () => gql(api.url, RunsDocument, { first: -1 }, admin)],
    ['BAD_USER_INPUT', 'a DateTime without offset', () => gql(api.url, RunsDocument, { filter: { scheduledAfter: '2030-01-01T00:00:00' } }, admin)],
    ['BAD_USER_INPUT', 'a variable of the wrong type', () => gql(api.url, RunsDocument, { first: 'ten' as unknown as number }, admin)],
    ['INVALID_CRON_EXPRESSION', 'unparsable', () => gql(api.url, CreateJobDocument, { input: recurring('x', { cronExpression: 'every minute' }) }, admin)],
    ['INVALID_CRON_EXPRESSION', 'never fires', () => gql(api.url, PreviewScheduleDocument, { cronExpression: '0 0 30 2 *' }, admin)],
    ['INVALID_CRON_EXPRESSION', 'RECURRING without one', () => gql(api.url, CreateJobDocument, { input: recurring('x', { cronExpression: null }) }, admin)],
    ['INVALID_TIMEZONE', 'unknown zone', () => gql(api.url, CreateJobDocument, { input: recurring('x', { timezone: 'Mars/Olympus' }) }, admin)],
    ['INVALID_TIMEZONE', 'an offset is not a zone', () => gql(api.url, PreviewScheduleDocument, { cronExpression: '* * * * *', timezone: '+02:00' }, admin)],
    ['INVALID_RUN_AT', 'ONE_TIME without runAt', () => gql(api.url, CreateJobDocument, { input: { key: 'x', target: 'log', scheduleType: 'ONE_TIME' } }, admin)],
    ['INVALID_RUN_AT', 'runAt in the past', () => gql(api.url, CreateJobDocument, { input: { key: 'x', target: 'log', scheduleType: 'ONE_TIME', runAt: anHourAgo() } }, admin)],
    ['UNKNOWN_TARGET', 'createJob', () => gql(api.url, CreateJobDocument, { input: recurring('x', { target: 'nope' }) }, admin)],
    ['UNKNOWN_TARGET', 'createJobVersion', () => gql(api.url, CreateJobVersionDocument, { id: active, input: { target: 'nope' } }, admin)],
    ['REASON_REQUIRED', 'empty reason', () => gql(api.url, PauseJobDocument, { id: active, reason: '' }, admin)],
    ['KEY_EXISTS', 'createJob twice', () => gql(api.url, CreateJobDocument, { input: recurring('active') }, admin)],
    ['NOT_FOUND', 'pause an unknown job', () => gql(api.url, PauseJobDocument, { id: randomUUID(), reason: 'r' }, admin)],
    ['NOT_FOUND', 'run an unknown job', () => gql(api.url, RunJobNowDocument, { id: 'not-a-uuid' }, admin)],
    ['NOT_FOUND', 'cancel an unknown run', () => gql(api.url, CancelRunDocument, { id: randomUUID() }, admin)],
    ['INVALID_STATE', 'resume an ACTIVE job', () => gql(api.url, ResumeJobDocument, { id: active }, admin)],
    ['INVALID_STATE', 'pause a PAUSED job', () => gql(api.url, PauseJobDocument, { id: paused, reason: 'again' }, admin)],
    ['INVALID_STATE', 'retire a RETIRED job', () => gql(api.url, RetireJobDocument, { id: retired }, admin)],
    ['INVALID_STATE', 'run a RETIRED job', () => gql(api.url, RunJobNowDocument, { id: retired }, admin)],
    ['INVALID_STATE', 'version a RETIRED job', () => gql(api.url, CreateJobVersionDocument, { id: retired, input: {} }, admin)],
    ['INVALID_STATE', 'cancel a finished run', () => gql(api.url, CancelRunDocument, { id: finishedRun }, admin)],
    ['PAYLOAD_TOO_LARGE', 'job payload', () => gql(api.url, CreateJobDocument, { input: recurring('x', { payload: oversized }) }, admin)],
    ['PAYLOAD_TOO_LARGE', 'run-now payload', () => gql(api.url, RunJobNowDocument, { id: active, payload: oversized }, admin)],
  ];

  test.each(cases)('%s: %s', async (code, _name, call) => {
    const res = await call();
    expect(codes(res)).toEqual([code]);
    expect(await snapshot(api.cronql)).toBe(before);
  });

  test('every code of docs/api.md is covered above', () => {
    const covered = new Set(cases.map(([code]) => code));
    expect([...covered].sort()).toEqual(
      [
        'UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT', 'INVALID_CRON_EXPRESSION', 'INVALID_TIMEZONE', 'INVALID_RUN_AT',
        'UNKNOWN_TARGET', 'REASON_REQUIRED', 'KEY_EXISTS', 'NOT_FOUND', 'INVALID_STATE', 'PAYLOAD_TOO_LARGE',
      ].sort(),
    );
  });
});

test('an error carries a message and details a client can act on', async () => {
  const res = await gql(api.url, CreateJobDocument, { input: recurring('x', { target: 'nope' }) }, admin);
  expect(res.errors?.[0]).toMatchObject({
    message: expect.stringContaining('"nope"'),
    path: ['createJob'],
    extensions: { code: 'UNKNOWN_TARGET', details: { target: 'nope', known: ['http', 'log', 'sleep'] } },
  });
});

test('a request body over 1 MiB is refused with 413 before it is parsed', async () => {
  const body = JSON.stringify({ query: '{ targets { name } }', variables: { pad: 'x'.repeat(1_100_000) } });
  const res = await fetch(api.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` }, body });
  expect(res.status).toBe(413);
  expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: 'PAYLOAD_TOO_LARGE' } }] });
});

describe('internal errors are masked', () => {
  const secret = 'relation "cron_job_runs" violates constraint; SELECT * FROM cron_job_definitions WHERE id = $1';

  test('over HTTP', async () => {
    const spy = vi.spyOn(api.cronql.targets, 'list').mockImplementation(() => {
      throw new Error(secret);
    });
    try {
      const res = await gql(api.url, TargetsDocument, {}, admin);
      expect(res.errors).toEqual([{ message: 'Internal server error', locations: expect.any(Array), path: ['targets'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      expect(JSON.stringify(res)).not.toMatch(/SELECT|stack|cron_job/);
    } finally {
      spy.mockRestore();
    }
  });

  test('over WebSocket', async () => {
    const spy = vi.spyOn(api.cronql.targets, 'list').mockImplementation(() => {
      throw new Error(secret);
    });
    const client = wsClient(api.wsUrl, admin);
    try {
      const res = await wsOnce(client, TargetsDocument);
      expect(res.errors).toEqual([{ message: 'Internal server error', locations: expect.any(Array), path: ['targets'], extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      expect(JSON.stringify(res)).not.toMatch(/SELECT|stack|cron_job/);
    } finally {
      spy.mockRestore();
      await client.dispose();
    }
  });
});
