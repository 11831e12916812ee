import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gql, startApi, type Api } from './support.js';

/**
 * Schedules beyond one cron line over GraphQL (docs/behaviour.md, "Intervals, several expressions,
 * bounds"): every new field in every form — a literal in the document, a variable, null, omitted,
 * zero and over its cap — either accepted as the contract says or refused with its stable code
 * (INVALID_SCHEDULE, naming the field), and a refused input creates nothing.
 */
describe('intervals, several expressions, bounds, maxRuns and the misfire grace over GraphQL', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'gql-schedule-kinds' });
  });
  afterAll(async () => {
    await api.close();
  });

  const FIELDS = 'id key scheduleType cronExpression cronExpressions every anchorAt startAt endAt maxRuns misfireGraceSeconds schedules scheduleDescription nextRunAt';
  const FUTURE = '2031-01-06T00:00:00.000Z'; // a Monday
  const LATER = '2031-02-01T00:00:00.000Z';
  const recurring = { scheduleType: 'RECURRING', cronExpression: '0 9 * * 1-5' };
  const interval = { scheduleType: 'INTERVAL', every: '45m' };
  const once = { scheduleType: 'ONE_TIME', runAt: FUTURE };

  /** A GraphQL literal of a JSON value (enums: the schedule type's names are bare). */
  const literal = (key: string, v: unknown): string => {
    if (v === null) return 'null';
    if (Array.isArray(v)) return `[${v.map((x) => literal('', x)).join(', ')}]`;
    if (typeof v === 'string') return key === 'scheduleType' ? v : JSON.stringify(v);
    return String(v);
  };

  type Created = { createJob: Record<string, unknown> };
  const byVariable = (input: Record<string, unknown>) =>
    gql<Created, unknown>(api.url, `mutation($input: CreateJobInput!) { createJob(input: $input) { ${FIELDS} } }`, { input }, api.adminToken);
  const byLiteral = (input: Record<string, unknown>) =>
    gql<Created, unknown>(
      api.url,
      `mutation { createJob(input: { ${Object.entries(input).map(([k, v]) => `${k}: ${literal(k, v)}`).join(', ')} }) { ${FIELDS} } }`,
      undefined,
      api.adminToken,
    );

  // [case, input beyond key and target, the code it fails with (null: accepted), the field named]
  const CASES: [string, Record<string, unknown>, string | null, string?][] = [
    // every
    ['every omitted', { scheduleType: 'INTERVAL' }, 'INVALID_SCHEDULE', 'every'],
    ['every null', { scheduleType: 'INTERVAL', every: null }, 'INVALID_SCHEDULE', 'every'],
    ['every zero', { scheduleType: 'INTERVAL', every: '0s' }, 'INVALID_SCHEDULE', 'every'],
    ['every ISO zero', { scheduleType: 'INTERVAL', every: 'PT0S' }, 'INVALID_SCHEDULE', 'every'],
    ['every over the cap', { scheduleType: 'INTERVAL', every: '367d' }, 'INVALID_SCHEDULE', 'every'],
    ['every not a length', { scheduleType: 'INTERVAL', every: 'often' }, 'INVALID_SCHEDULE', 'every'],
    ['every a month', { scheduleType: 'INTERVAL', every: 'P1M' }, 'INVALID_SCHEDULE', 'every'],
    ['every at its floor', { scheduleType: 'INTERVAL', every: '1s' }, null],
    ['every at its cap', { scheduleType: 'INTERVAL', every: '366d' }, null],
    ['every ISO', { scheduleType: 'INTERVAL', every: 'PT1H30M' }, null],
    ['every on a RECURRING job', { ...recurring, every: '45m' }, 'INVALID_SCHEDULE', 'every'],
    ['cronExpression on an INTERVAL job', { ...interval, cronExpression: '* * * * *' }, 'INVALID_SCHEDULE', 'cronExpression'],
    // anchorAt
    ['anchorAt off its second', { ...interval, anchorAt: '2031-01-06T00:00:00.500Z' }, 'INVALID_SCHEDULE', 'anchorAt'],
    ['anchorAt on a RECURRING job', { ...recurring, anchorAt: FUTURE }, 'INVALID_SCHEDULE', 'anchorAt'],
    ['anchorAt null', { ...interval, anchorAt: null }, null],
    // cronExpressions
    ['cronExpressions empty', { scheduleType: 'RECURRING', cronExpressions: [] }, 'INVALID_SCHEDULE', 'cronExpressions'],
    ['cronExpressions over the cap', { scheduleType: 'RECURRING', cronExpressions: Array.from({ length: 21 }, (_, i) => `${i} 9 * * *`) }, 'INVALID_SCHEDULE', 'cronExpressions'],
    ['cronExpressions at the cap', { scheduleType: 'RECURRING', cronExpressions: Array.from({ length: 20 }, (_, i) => `${i} 9 * * *`) }, null],
    ['cronExpressions twice the same', { scheduleType: 'RECURRING', cronExpressions: ['0 9 * * *', '0 9 * * *'] }, 'INVALID_SCHEDULE', 'cronExpressions'],
    ['cronExpressions not starting with cronExpression', { scheduleType: 'RECURRING', cronExpression: '0 8 * * *', cronExpressions: ['0 9 * * *', '0 10 * * *'] }, 'INVALID_SCHEDULE', 'cronExpressions'],
    ['cronExpressions with a bad one', { scheduleType: 'RECURRING', cronExpressions: ['0 9 * * *', '0 25 * * *'] }, 'INVALID_CRON_EXPRESSION'],
    ['cronExpressions null', { ...recurring, cronExpressions: null }, null],
    ['cronExpressions on an INTERVAL job', { ...interval, cronExpressions: ['0 9 * * *'] }, 'INVALID_SCHEDULE', 'cronExpressions'],
    // bounds
    ['endAt before startAt', { ...recurring, startAt: LATER, endAt: FUTURE }, 'INVALID_SCHEDULE', 'endAt'],
    ['endAt past', { ...recurring, endAt: '2020-01-01T00:00:00Z' }, 'INVALID_SCHEDULE', 'endAt'],
    ['bounds with no slot between', { ...recurring, startAt: '2031-01-04T00:00:00Z', endAt: '2031-01-05T00:00:00Z' }, 'INVALID_SCHEDULE', 'endAt'],
    ['startAt on a ONE_TIME job', { ...once, startAt: FUTURE }, 'INVALID_SCHEDULE', 'startAt'],
    ['bounds null', { ...recurring, startAt: null, endAt: null }, null],
    // maxRuns
    ['maxRuns zero', { ...recurring, maxRuns: 0 }, 'INVALID_SCHEDULE', 'maxRuns'],
    ['maxRuns negative', { ...recurring, maxRuns: -1 }, 'INVALID_SCHEDULE', 'maxRuns'],
    ['maxRuns over the cap', { ...recurring, maxRuns: 1_000_001 }, 'INVALID_SCHEDULE', 'maxRuns'],
    ['maxRuns at the cap', { ...interval, maxRuns: 1_000_000 }, null],
    ['maxRuns null', { ...recurring, maxRuns: null }, null],
    ['maxRuns on a ONE_TIME job', { ...once, maxRuns: 1 }, 'INVALID_SCHEDULE', 'maxRuns'],
    // misfireGraceSeconds
    ['misfireGraceSeconds zero', { ...recurring, misfireGraceSeconds: 0 }, 'INVALID_SCHEDULE', 'misfireGraceSeconds'],
    ['misfireGraceSeconds over the cap', { ...recurring, misfireGraceSeconds: 86_401 }, 'INVALID_SCHEDULE', 'misfireGraceSeconds'],
    ['misfireGraceSeconds at the cap', { ...once, misfireGraceSeconds: 86_400 }, null],
    ['misfireGraceSeconds null', { ...interval, misfireGraceSeconds: null }, null],
  ];

  it('every case, as a variable and as a literal: accepted, or refused with its code naming the field, creating nothing', async () => {
    for (const [i, [name, extra, code, field]] of CASES.entries()) {
      for (const [form, send] of [['variable', byVariable], ['literal', byLiteral]] as const) {
        const key = `sk-${i}-${form}`;
        const res = await send({ key, target: 'log', ...extra });
        const label = `${name} (${form})`;
        if (code === null) {
          expect(res.errors, label).toBeUndefined();
          expect(res.data?.createJob, label).toMatchObject({ key });
          continue;
        }
        expect(res.errors?.[0]?.extensions?.code, label).toBe(code);
        if (field) expect((res.errors?.[0]?.extensions?.details as { field?: string } | undefined)?.field, label).toBe(field);
        const found = await gql<{ jobs: { totalCount: number } }, unknown>(api.url, `{ jobs(filter: { key: "${key}" }) { totalCount } }`, undefined, api.adminToken);
        expect(found.data?.jobs.totalCount, `${label} created a job`).toBe(0);
      }
    }
  });

  it('omitted, the new fields read as null (and an interval anchors at its creation, on the second)', async () => {
    const plain = (await byVariable({ key: 'sk-plain', target: 'log', ...recurring })).data!.createJob;
    expect(plain).toMatchObject({ cronExpressions: ['0 9 * * 1-5'], every: null, anchorAt: null, startAt: null, endAt: null, maxRuns: null, misfireGraceSeconds: null });
    const before = Date.now();
    const every = (await byVariable({ key: 'sk-every', target: 'log', scheduleType: 'INTERVAL', every: 'PT90M' })).data!.createJob;
    expect(every).toMatchObject({ scheduleType: 'INTERVAL', cronExpression: null, cronExpressions: null, every: '1h30m', schedules: [expect.stringMatching(/^Every 1 hour 30 minutes, from /)] });
    const anchor = Date.parse(every.anchorAt as string);
    expect(anchor % 1000).toBe(0);
    expect(anchor).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(every.nextRunAt as string)).toBe(anchor + 90 * 60_000);
  });

  it('several expressions: described each, the next run the earliest of them; a new version keeps or replaces them', async () => {
    const created = (await byVariable({ key: 'sk-two', target: 'log', scheduleType: 'RECURRING', timezone: 'Europe/Berlin', cronExpressions: ['0 9 * * 1-5', '0 12 * * 0,6'], startAt: FUTURE, maxRuns: 5, misfireGraceSeconds: 120 })).data!.createJob;
    expect(created).toMatchObject({ cronExpression: '0 9 * * 1-5', cronExpressions: ['0 9 * * 1-5', '0 12 * * 0,6'], startAt: FUTURE, maxRuns: 5, misfireGraceSeconds: 120 });
    expect(created.schedules).toHaveLength(2);
    expect(created.scheduleDescription).toBe((created.schedules as string[]).join('; '));
    expect(created.nextRunAt).toBe('2031-01-06T08:00:00.000Z'); // Monday 09:00 in Berlin, the first slot from startAt
    const version = (input: Record<string, unknown>, id: string) =>
      gql<{ createJobVersion: Record<string, unknown> }, unknown>(api.url, `mutation($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { ${FIELDS} } }`, { id, input }, api.adminToken);
    const kept = (await version({ timezone: 'UTC' }, created.id as string)).data!.createJobVersion;
    expect(kept).toMatchObject({ cronExpressions: ['0 9 * * 1-5', '0 12 * * 0,6'], startAt: FUTURE, maxRuns: 5, misfireGraceSeconds: 120 });
    const replaced = (await version({ cronExpression: '0 7 * * *', startAt: null }, kept.id as string)).data!.createJobVersion;
    expect(replaced).toMatchObject({ cronExpressions: ['0 7 * * *'], startAt: null, maxRuns: 5 });
    const toInterval = (await version({ scheduleType: 'INTERVAL', every: '2h' }, replaced.id as string)).data!.createJobVersion;
    expect(toInterval).toMatchObject({ scheduleType: 'INTERVAL', cronExpression: null, cronExpressions: null, every: '2h' });
  });

  it('parseSchedule answers an INTERVAL for a length cron cannot repeat, and previewSchedule shows any schedule', async () => {
    const parse = (text: string) =>
      gql<{ parseSchedule: Record<string, unknown> }, unknown>(api.url, 'query($t: String!) { parseSchedule(text: $t) { scheduleType cronExpression every anchorAt description next } }', { t: text }, api.viewerToken);
    const interval = (await parse('every 45 minutes')).data!.parseSchedule;
    expect(interval).toMatchObject({ scheduleType: 'INTERVAL', cronExpression: null, every: '45m', description: 'Every 45 minutes' });
    const next = interval.next as string[];
    expect(next.map((t, i) => (i ? Date.parse(t) - Date.parse(next[i - 1]) : 0)).slice(1)).toEqual([2_700_000, 2_700_000, 2_700_000, 2_700_000]);
    expect(Date.parse(next[0]) - Date.parse(interval.anchorAt as string)).toBe(2_700_000);
    expect((await parse('every 15 minutes')).data!.parseSchedule).toMatchObject({ scheduleType: 'RECURRING', cronExpression: '*/15 * * * *', every: null, anchorAt: null });

    const preview = (args: string) => gql<{ previewSchedule: string[] }, unknown>(api.url, `{ previewSchedule(${args}) }`, undefined, api.viewerToken);
    expect((await preview(`every: "90s", anchorAt: "${FUTURE}", from: "${FUTURE}", count: 3`)).data!.previewSchedule).toEqual(['2031-01-06T00:01:30.000Z', '2031-01-06T00:03:00.000Z', '2031-01-06T00:04:30.000Z']);
    expect((await preview(`cronExpressions: ["0 9 * * *", "0 9 * * MON", "30 9 * * *"], from: "${FUTURE}", count: 3`)).data!.previewSchedule).toEqual([
      '2031-01-06T09:00:00.000Z', '2031-01-06T09:30:00.000Z', '2031-01-07T09:00:00.000Z',
    ]);
    for (const args of ['count: 2', 'cronExpression: "* * * * *", every: "1m"', 'anchorAt: "2031-01-01T00:00:00Z", cronExpression: "* * * * *"', 'every: "0s"', 'cronExpressions: []']) {
      expect((await preview(args)).errors?.[0]?.extensions?.code, args).toBe('INVALID_SCHEDULE');
    }
  });
});
