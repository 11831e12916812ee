import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CreateJobDocument,
  JobDocument,
  JobsDocument,
  PreviewScheduleDocument,
  PreviewScheduleSlotsDocument,
  RunDocument,
  RunJobNowDocument,
  RunsDocument,
  TargetsDocument,
  type JobsQuery,
} from '../../src/client/generated/graphql.js';
import { LIMITS } from '../../src/graphql/limits.js';

const MAX_PREVIEW_COUNT = LIMITS.maxPreviewCount;
import { codes, gql, ok, startApi, type Api } from './support.js';

/** Queries over HTTP: schedule preview, paging, filters, lookups, and the DateTime format. */
let api: Api;
let token: string;
const keys = ['q-a', 'q-b', 'q-c', 'q-d', 'q-e'];
const ids: string[] = [];

beforeAll(async () => {
  api = await startApi();
  token = api.viewerToken;
  for (const key of keys) {
    const job = await ok(api.url, CreateJobDocument, {
      input: { key, target: 'log', scheduleType: 'ONE_TIME', runAt: '2099-06-01T12:00:00+02:00', payload: { message: key } },
    }, api.adminToken);
    ids.push(job.createJob.id);
  }
});
afterAll(async () => {
  await api?.close();
});

describe('previewSchedule', () => {
  test('the runtime\'s slot math and DST policy: 02:30 on the spring-forward day runs at 03:30 EDT', async () => {
    const res = await ok(api.url, PreviewScheduleDocument, {
      cronExpression: '30 2 * * *',
      timezone: 'America/New_York',
      count: 3,
      from: '2030-03-09T07:00:00-05:00',
    }, token);
    expect(res.previewSchedule).toEqual(['2030-03-10T07:30:00.000Z', '2030-03-11T06:30:00.000Z', '2030-03-12T06:30:00.000Z']);
  });

  test('defaults: 5 slots, UTC, from now', async () => {
    const res = await ok(api.url, PreviewScheduleDocument, { cronExpression: '0 0 * * *' }, token);
    expect(res.previewSchedule).toHaveLength(5);
    expect(res.previewSchedule[0]).toMatch(/T00:00:00\.000Z$/);
    expect(Date.parse(res.previewSchedule[0])).toBeGreaterThan(Date.now());
  });

  test(`count is capped at ${MAX_PREVIEW_COUNT}`, async () => {
    const res = await ok(api.url, PreviewScheduleDocument, { cronExpression: '*/5 * * * * *', count: 10_000 }, token);
    expect(res.previewSchedule).toHaveLength(MAX_PREVIEW_COUNT);
  });

  test('a negative count is bad input', async () => {
    expect(codes(await gql(api.url, PreviewScheduleDocument, { cronExpression: '* * * * *', count: -1 }, token))).toEqual(['BAD_USER_INPUT']);
  });
});

describe('previewScheduleSlots', () => {
  test('the same slots, each with what DST did to it: the shifted 02:30, the repeated 01:30 (first and second)', async () => {
    const spring = await ok(api.url, PreviewScheduleSlotsDocument, { cronExpression: '30 2 * * *', timezone: 'America/New_York', count: 2, from: '2030-03-09T07:00:00-05:00' }, token);
    expect(spring.previewScheduleSlots).toEqual([
      { at: '2030-03-10T07:30:00.000Z', dstMark: 'SHIFTED', dstNote: '02:30 does not exist on 2030-03-10 (clocks go forward); runs at 03:30' },
      { at: '2030-03-11T06:30:00.000Z', dstMark: null, dstNote: null },
    ]);
    const fall = await ok(api.url, PreviewScheduleSlotsDocument, { cronExpression: '30 * * * *', timezone: 'America/New_York', count: 3, from: '2030-11-03T05:00:00Z' }, token);
    expect(fall.previewScheduleSlots.map((s) => [s.at, s.dstMark, s.dstNote?.split(' ').pop()])).toEqual([
      ['2030-11-03T05:30:00.000Z', 'REPEATED', 'first'],
      ['2030-11-03T06:30:00.000Z', 'REPEATED', 'second'],
      ['2030-11-03T07:30:00.000Z', null, undefined],
    ]);
  });

  test('the same checks as previewSchedule: a bad expression, a negative count', async () => {
    expect(codes(await gql(api.url, PreviewScheduleSlotsDocument, { cronExpression: 'not cron' }, token))).toEqual(['INVALID_CRON_EXPRESSION']);
    expect(codes(await gql(api.url, PreviewScheduleSlotsDocument, { cronExpression: '* * * * *', count: -1 }, token))).toEqual(['BAD_USER_INPUT']);
  });
});

describe('jobs', () => {
  test('pages newest first with opaque cursors and a total count', async () => {
    const seen: string[] = [];
    let after: string | null | undefined = null;
    for (let page = 0; page < 3; page += 1) {
      const res: JobsQuery = await ok(api.url, JobsDocument, { first: 2, after, filter: { target: 'log' } }, token);
      expect(res.jobs.totalCount).toBe(5);
      seen.push(...res.jobs.edges.map((e) => e.node.key));
      expect(res.jobs.pageInfo.endCursor).toBe(res.jobs.edges.at(-1)?.cursor);
      after = res.jobs.pageInfo.endCursor;
      expect(res.jobs.pageInfo.hasNextPage).toBe(page < 2);
    }
    expect(seen).toEqual([...keys].reverse());
  });

  test('filters by key and status; first above 500 is capped, not refused', async () => {
    const byKey = await ok(api.url, JobsDocument, { filter: { key: 'q-c' }, first: 10_000 }, token);
    expect(byKey.jobs.nodes.map((n) => n.id)).toEqual([ids[2]]);
    const paused = await ok(api.url, JobsDocument, { filter: { status: ['PAUSED'] } }, token);
    expect(paused.jobs.totalCount).toBe(0);
  });

  test('keyContains searches keys ignoring case; LIKE wildcards in it are literal', async () => {
    const found = await ok(api.url, JobsDocument, { filter: { keyContains: 'Q-D' } }, token);
    expect(found.jobs.nodes.map((n) => n.id)).toEqual([ids[3]]);
    expect((await ok(api.url, JobsDocument, { filter: { keyContains: 'q-' } }, token)).jobs.totalCount).toBe(5);
    expect((await ok(api.url, JobsDocument, { filter: { keyContains: 'q_' } }, token)).jobs.totalCount).toBe(0);
    expect((await ok(api.url, JobsDocument, { filter: { keyContains: '%' } }, token)).jobs.totalCount).toBe(0);
    expect((await ok(api.url, JobsDocument, { filter: { keyContains: 'q-', key: 'q-b' } }, token)).jobs.nodes.map((n) => n.id)).toEqual([ids[1]]);
  });

  test('a job as given, with DateTimes in UTC', async () => {
    const job = (await ok(api.url, JobDocument, { id: ids[0] }, token)).job;
    expect(job).toMatchObject({ key: 'q-a', runAt: '2099-06-01T10:00:00.000Z', nextRunAt: '2099-06-01T10:00:00.000Z', payload: { message: 'q-a' }, supersedes: null, supersededBy: null, lastRun: null });
    expect(job?.runs).toMatchObject({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false, endCursor: null } });
  });

  test('unknown or malformed ids are null, not errors', async () => {
    expect((await ok(api.url, JobDocument, { id: '00000000-0000-4000-8000-000000000000' }, token)).job).toBeNull();
    expect((await ok(api.url, JobDocument, { id: 'nope' }, token)).job).toBeNull();
    expect((await ok(api.url, RunDocument, { id: 'nope' }, token)).run).toBeNull();
  });
});

describe('runs', () => {
  test('filters by job, trigger and time window; a run links back to its job', async () => {
    const run = (await ok(api.url, RunJobNowDocument, { id: ids[1], payload: { message: 'now' } }, api.adminToken)).runJobNow;
    await api.cronql.runtime!.whenIdle();
    const res = await ok(api.url, RunsDocument, {
      filter: { jobKey: 'q-b', triggerType: ['AD_HOC'], scheduledAfter: '2000-01-01T00:00:00+14:00', scheduledBefore: '2100-01-01T00:00Z' },
    }, token);
    expect(res.runs.edges.map((e) => e.node.id)).toEqual([run.id]);
    const node = res.runs.edges[0].node;
    expect(node).toMatchObject({ status: 'SUCCEEDED', output: { message: 'now' }, job: { id: ids[1] } });
    expect(node.scheduledAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(node.durationMs).toBe(Date.parse(node.finishedAt!) - Date.parse(node.startedAt!));
    expect((await ok(api.url, RunsDocument, { filter: { jobKey: 'q-b', status: ['FAILED'] } }, token)).runs.totalCount).toBe(0);
    expect((await ok(api.url, RunDocument, { id: run.id }, token)).run?.id).toBe(run.id);
  });
});

test('targets lists the built-ins with descriptions', async () => {
  const res = await ok(api.url, TargetsDocument, {}, token);
  expect(res.targets.map((t) => t.name)).toEqual(['http', 'log', 'sleep']);
  expect(res.targets.every((t) => typeof t.description === 'string')).toBe(true);
});
