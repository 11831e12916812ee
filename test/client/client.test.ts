import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import { afterAll, beforeAll, describe, expect, expectTypeOf, test } from 'vitest';
import {
  CreateJobDocument,
  CronqlApiError,
  DescribeScheduleDocument,
  JobsDocument,
  RunChangedDocument,
  TargetsDocument,
  createClient,
  type CronqlClient,
  type CronqlErrorCode,
  type JobStatus,
  type RunStatus,
} from '../../src/client/index.js';
import { startApi, type Api } from '../graphql/support.js';

/**
 * `cronql/client` against a real server (HTTP and graphql-ws): typed results of a query, a
 * mutation and a subscription, the API's refusals as CronqlApiError with their code and field,
 * and the client's own codes for transport failures. The types are checked by the compiler:
 * the results are used without casts, and `expectTypeOf` pins what matters.
 */
let api: Api;
let admin: CronqlClient;
let viewer: CronqlClient;
beforeAll(async () => {
  api = await startApi();
  admin = createClient({ url: api.url, token: api.adminToken });
  viewer = createClient({ url: api.url, token: api.viewerToken });
});
afterAll(async () => {
  await admin?.dispose();
  await viewer?.dispose();
  await api?.close();
});

/** What a promise rejects with (undefined when it resolves). */
const thrown = (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (err: unknown) => err);

const recurring = (key: string) => ({ key, target: 'log', scheduleType: 'RECURRING' as const, cronExpression: '*/1 * * * * *', payload: { message: key } });

describe('typed calls', () => {
  test('a query: its typed data', async () => {
    const { targets } = await viewer.request(TargetsDocument);
    expectTypeOf(targets).toEqualTypeOf<{ description: string | null; name: string }[]>();
    expect(targets.map((t) => t.name)).toContain('log');

    const { describeSchedule } = await viewer.request(DescribeScheduleDocument, { cronExpression: '0 9 * * 1-5', timezone: 'Europe/Paris' });
    expectTypeOf(describeSchedule).toEqualTypeOf<string>();
    expect(describeSchedule).toMatch(/09:00/);
  });

  test('a mutation creating a job, then the job in a typed page', async () => {
    const { createJob } = await admin.request(CreateJobDocument, { input: { ...recurring('client.created'), timezone: 'europe/berlin' } });
    expectTypeOf(createJob.status).toEqualTypeOf<JobStatus>();
    expect(createJob).toMatchObject({ key: 'client.created', version: 1, status: 'ACTIVE', timezone: 'Europe/Berlin', createdBy: 'admin' });

    const { jobs } = await viewer.request(JobsDocument, { filter: { key: 'client.created' } });
    expectTypeOf(jobs.totalCount).toEqualTypeOf<number>();
    expect(jobs.totalCount).toBe(1);
    expect(jobs.nodes[0]).toMatchObject({ id: createJob.id, scheduleDescription: expect.any(String) });
    expect(jobs.pageInfo.hasNextPage).toBe(false);
  });

  test('a subscription (async iterator) receives a run of the job going to SUCCEEDED', async () => {
    await admin.request(CreateJobDocument, { input: recurring('client.watched') });
    const seen: RunStatus[] = [];
    // The job fires every second, so whenever the subscription is in place a run comes.
    for await (const { runChanged } of viewer.subscribe(RunChangedDocument, { filter: { jobKey: 'client.watched' } })) {
      expectTypeOf(runChanged.run.status).toEqualTypeOf<RunStatus>();
      expect(runChanged.run.jobKey).toBe('client.watched');
      seen.push(runChanged.run.status);
      if (runChanged.run.status === 'SUCCEEDED') {
        expect(runChanged.run.output).toEqual({ message: 'client.watched' });
        break; // ends the subscription
      }
    }
    expect(seen.at(-1)).toBe('SUCCEEDED');
  });

  test('a subscription with a sink, ended by the function it returns', async () => {
    await admin.request(CreateJobDocument, { input: recurring('client.sink') });
    const change = await new Promise<{ status: RunStatus; id: string }>((resolve, reject) => {
      const stop = viewer.subscribe(RunChangedDocument, { filter: { jobKey: 'client.sink' } }, {
        next: ({ runChanged }) => {
          stop();
          resolve(runChanged.run);
        },
        error: reject,
      });
    });
    expect(change.id).toEqual(expect.any(String));
  });
});

describe('errors', () => {
  test('a refused mutation: CronqlApiError with the API code, message and nothing created', async () => {
    const err = await thrown(admin.request(CreateJobDocument, { input: { ...recurring('client.bad'), cronExpression: '61 * * * *' } }));
    expect(err).toBeInstanceOf(CronqlApiError);
    const e = err as CronqlApiError;
    expectTypeOf(e.code).toEqualTypeOf<CronqlErrorCode>();
    expect(e.code).toBe('INVALID_CRON_EXPRESSION');
    expect(e.message).toMatch(/61/);
    const { jobs } = await viewer.request(JobsDocument, { filter: { key: 'client.bad' } });
    expect(jobs.totalCount).toBe(0);
  });

  test('a mutation with the VIEWER token: FORBIDDEN', async () => {
    const err = (await thrown(viewer.request(CreateJobDocument, { input: recurring('client.viewer') }))) as CronqlApiError;
    expect(err).toBeInstanceOf(CronqlApiError);
    expect(err.code).toBe('FORBIDDEN');
  });

  test('a value out of range: the code and the field the API names', async () => {
    const err = (await thrown(
      admin.request(CreateJobDocument, { input: { ...recurring('client.policy'), retry: { maxAttempts: 11 } } }),
    )) as CronqlApiError;
    expect(err.code).toBe('INVALID_POLICY');
    expect(err.field).toMatch(/maxAttempts/);
  });

  test('a document the server refuses before execution: its request code (HTTP 400 read, not lost)', async () => {
    const broken = { toString: () => 'query { jobs(first: "x") { totalCount } }' } as typeof TargetsDocument;
    const err = (await thrown(viewer.request(broken))) as CronqlApiError;
    expect(err.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(err.status).toBe(400);
  });

  test('an unknown token: UNAUTHENTICATED over HTTP and over the WebSocket', async () => {
    const stranger = createClient({ url: api.url, token: 'nobody', ws: { retryAttempts: 0 } });
    try {
      expect(((await thrown(stranger.request(TargetsDocument))) as CronqlApiError).code).toBe('UNAUTHENTICATED');
      const it = stranger.subscribe(RunChangedDocument, {});
      const err = (await thrown(it.next())) as CronqlApiError;
      expect(err).toBeInstanceOf(CronqlApiError);
      expect(err.code).toBe('UNAUTHENTICATED');
    } finally {
      await stranger.dispose();
    }
  });

  test('nothing listening: NETWORK, over HTTP and over the WebSocket', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const nowhere = createClient({ url: `http://127.0.0.1:${port}`, token: 'x', ws: { retryAttempts: 0 } });
    try {
      expect(nowhere.url).toBe(`http://127.0.0.1:${port}/graphql`);
      const err = (await thrown(nowhere.request(TargetsDocument))) as CronqlApiError;
      expect(err).toBeInstanceOf(CronqlApiError);
      expect(err.code).toBe('NETWORK');
      expect(err.message).toContain(`127.0.0.1:${port}`);
      const sub = (await thrown(nowhere.subscribe(RunChangedDocument, {}).next())) as CronqlApiError;
      expect(sub.code).toBe('NETWORK');
    } finally {
      await nowhere.dispose();
    }
  });

  test('an aborted request: NETWORK, saying so; a URL that is not http(s): a TypeError at once', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = (await thrown(viewer.request(TargetsDocument, {}, { signal: controller.signal }))) as CronqlApiError;
    expect(err.code).toBe('NETWORK');
    expect(err.message).toMatch(/aborted/);
    expect(() => createClient({ url: 'ftp://127.0.0.1/graphql' })).toThrow(TypeError);
  });

  test('a WebSocket the server closes (4429, a reader too slow): NETWORK with the close code', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    wss.on('connection', (socket) => socket.once('message', () => socket.close(4429, 'too slow')));
    const { port } = wss.address() as { port: number };
    const slow = createClient({ url: `http://127.0.0.1:${port}/graphql`, ws: { retryAttempts: 0 } });
    try {
      const err = (await thrown(slow.subscribe(RunChangedDocument, {}).next())) as CronqlApiError;
      expect(err.code).toBe('NETWORK');
      expect(err.details).toMatchObject({ closeCode: 4429, reason: 'too slow' });
    } finally {
      await slow.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    }
  });

  test('an answer that is not GraphQL: BAD_RESPONSE', async () => {
    const server = createServer((_req, res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const proxy = createClient({ url: `http://127.0.0.1:${port}/graphql` });
      const err = (await thrown(proxy.request(TargetsDocument))) as CronqlApiError;
      expect(err.code).toBe('BAD_RESPONSE');
      expect(err.status).toBe(502);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

test('the types: variables required exactly when the operation has a required one', () => {
  // Compile-time only (never called): a missing required variable or a wrong type does not compile.
  const check = (client: CronqlClient) => {
    void client.request(TargetsDocument);
    void client.request(JobsDocument);
    // @ts-expect-error CreateJob needs its input
    void client.request(CreateJobDocument);
    // @ts-expect-error scheduleType is an enum
    void client.request(CreateJobDocument, { input: { key: 'k', target: 'log', scheduleType: 'HOURLY' } });
  };
  expect(typeof check).toBe('function');
});
