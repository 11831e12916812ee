import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreateJobDocument, CreateJobsDocument, JobsDocument, type CreateJobInput } from '../../src/client/generated/graphql.js';
import { MAX_JOBS_PER_BATCH } from '../../src/services/job.service.js';
import { codes, gql, ok, snapshot, startApi, type Api } from './support.js';

/**
 * `createJobs`: several new jobs, all or none, each by createJob's rules; an error names the input
 * it is about and changes nothing. The jobs created are armed like createJob's.
 */
let api: Api;

const job = (key: string, extra: Partial<CreateJobInput> = {}): CreateJobInput => ({
  key,
  target: 'log',
  scheduleType: 'RECURRING',
  cronExpression: '0 3 * * *',
  ...extra,
});

beforeAll(async () => {
  api = await startApi({ instanceId: 'create-jobs', maxPayloadBytes: 1_000 });
});
afterAll(() => api?.close());

describe('createJobs', () => {
  test('creates every job, version 1, ACTIVE, with createJob\'s fields, and arms each', async () => {
    const inputs = [
      job('many.a', { payload: { message: 'a' }, timezone: 'Europe/Paris', retry: { maxAttempts: 3 } }),
      job('many.b', { scheduleType: 'ONE_TIME', cronExpression: null, runAt: new Date(Date.now() + 86_400_000).toISOString() }),
      job('many.c', { cronExpression: '0 0 9 1 1 * 2090', overlap: 'ALLOW', maxConcurrentRuns: 3, jitterSeconds: 5 }),
    ];
    const { createJobs } = await ok(api.url, CreateJobsDocument, { inputs }, api.adminToken);
    expect(createJobs.map((j) => j.key)).toEqual(['many.a', 'many.b', 'many.c']);
    // What the API shows of each is what createJob would have made of the same input.
    const one = await ok(api.url, CreateJobDocument, { input: { ...inputs[2], key: 'single.c' } }, api.adminToken);
    const listed = await ok(api.url, JobsDocument, { filter: { keyContains: 'many.' }, first: 10 }, api.adminToken);
    const c = listed.jobs.edges.map((e) => e.node).find((n) => n.key === 'many.c')!;
    const strip = ({ id: _i, key: _k, createdAt: _c, updatedAt: _u, nextRunAt: _n, ...rest }: typeof one.createJob) => rest;
    const { lastRun: _l, ...fields } = c;
    expect(strip(fields)).toEqual(strip(one.createJob));
    expect(c).toMatchObject({ version: 1, status: 'ACTIVE', createdBy: 'admin', overlap: 'ALLOW', maxConcurrentRuns: 3 });
    for (const created of createJobs) expect(api.cronql.runtime!.nextRunAt(created.id)).toBeInstanceOf(Date);
  });

  test('a bad input anywhere in the batch: its error names it, and nothing of the batch is created', async () => {
    // Generated: the bad input at each position of a batch of five, one rule after another.
    const rules: [Partial<CreateJobInput>, string][] = [
      [{ cronExpression: '61 * * * *' }, 'INVALID_CRON_EXPRESSION'],
      [{ timezone: 'Mars/Olympus' }, 'INVALID_TIMEZONE'],
      [{ target: 'nope' }, 'UNKNOWN_TARGET'],
      [{ payload: { text: 'x'.repeat(2_000) } }, 'PAYLOAD_TOO_LARGE'],
      [{ payload: { token: '${secrets.MISSING}' } }, 'UNKNOWN_SECRET'],
      [{ jitterSeconds: -1 }, 'INVALID_POLICY'],
      [{ key: 'bad key with spaces' }, 'BAD_USER_INPUT'],
    ];
    for (const [i, [bad, code]] of rules.entries()) {
      const at = i % 5;
      const inputs = Array.from({ length: 5 }, (_, k) => job(`gen-${i}.${k}`, k === at ? bad : {}));
      const before = await snapshot(api.cronql);
      const res = await gql(api.url, CreateJobsDocument, { inputs }, api.adminToken);
      expect(codes(res), JSON.stringify(res.errors)).toEqual([code]);
      const details = res.errors![0].extensions!.details as { index: number; key?: string };
      expect(details.index).toBe(at);
      expect(res.errors![0].message.startsWith(`job "${inputs[at].key}" (input ${at + 1}): `) || bad.key !== undefined).toBe(true);
      expect(await snapshot(api.cronql)).toBe(before);
    }
  });

  test('a key that exists, or one listed twice, is KEY_EXISTS for that input; nothing is created', async () => {
    await ok(api.url, CreateJobDocument, { input: job('taken.x') }, api.adminToken);
    const before = await snapshot(api.cronql);
    const taken = await gql(api.url, CreateJobsDocument, { inputs: [job('taken.a'), job('taken.x'), job('taken.b')] }, api.adminToken);
    expect(codes(taken)).toEqual(['KEY_EXISTS']);
    expect(taken.errors![0].extensions!.details).toMatchObject({ index: 1, key: 'taken.x' });
    const twice = await gql(api.url, CreateJobsDocument, { inputs: [job('twice.a'), job('twice.b'), job('twice.a')] }, api.adminToken);
    expect(codes(twice)).toEqual(['KEY_EXISTS']);
    expect(twice.errors![0].extensions!.details).toMatchObject({ index: 2, key: 'twice.a' });
    expect(await snapshot(api.cronql)).toBe(before);
  });

  test(`at most ${MAX_JOBS_PER_BATCH} inputs a call; the VIEWER may not`, async () => {
    const before = await snapshot(api.cronql);
    const many = Array.from({ length: MAX_JOBS_PER_BATCH + 1 }, (_, i) => job(`limit.${i}`));
    expect(codes(await gql(api.url, CreateJobsDocument, { inputs: many }, api.adminToken))).toEqual(['BAD_USER_INPUT']);
    expect(codes(await gql(api.url, CreateJobsDocument, { inputs: [job('viewer.a')] }, api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(await snapshot(api.cronql)).toBe(before);
    // An empty batch is nothing to do.
    expect((await ok(api.url, CreateJobsDocument, { inputs: [] }, api.adminToken)).createJobs).toEqual([]);
  });
});
