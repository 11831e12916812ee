import { randomUUID } from 'node:crypto';
import type { GraphQLFormattedError } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreateJobVersionDocument, CreateJobVersionsDocument, JobDocument, type NewJobVersionInput } from '../../src/client/generated/graphql.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { MAX_JOBS_PER_BATCH } from '../../src/services/job.service.js';
import { codes, gql, ok, snapshot, startApi, type Api } from './support.js';

/**
 * `createJobVersions`: new versions of several jobs, all or none, each exactly as createJobVersion
 * makes it (the same service code below GraphQL): the same record, the same audit entry, the
 * runtime told of both rows. One bad input anywhere changes nothing and is named; the list is
 * bounded in every form it can be sent.
 */
let api: Api;
let n = 0;

/** A fresh live job (the library API, as a fixture), that never fires in a test's time. */
async function job(extra: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const made = await api.cronql.jobs.create({ key: `versions.${++n}`, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 1 1 *', ...extra }, 'fixture');
  return { id: made.id, key: made.jobKey };
}

const VERSIONS = 'mutation($i: [CreateJobVersionInput!]!) { createJobVersions(inputs: $i) { id } }';
const auditOf = async (key: string) =>
  (await api.cronql.pool.query(`SELECT actor, action, job_key, subject, details FROM cron_audit_log WHERE job_key = $1 AND action LIKE 'createJobVersion%' ORDER BY id`, [key])).rows;
const auditCount = async () => Number((await api.cronql.pool.query(`SELECT count(*) AS n FROM cron_audit_log`)).rows[0].n);

beforeAll(async () => {
  api = await startApi({ instanceId: 'create-job-versions', maxPayloadBytes: 1_000 });
});
afterAll(() => api?.close());

describe('createJobVersions', () => {
  test("each new version is createJobVersion's of the same input: record, audit entry, the runtime arming the new and dropping the old", async () => {
    const inputs: NewJobVersionInput[] = [
      { cronExpression: '0 4 1 1 *', labels: { team: 'ops' } },
      // An explicit anchor: the default is the creation instant, whose second the two paths may straddle.
      { scheduleType: 'INTERVAL', every: '45m', anchorAt: '2026-01-01T00:00:00.000Z', timezone: 'Europe/Paris', retry: { maxAttempts: 3 } },
      { description: 'only this', timeoutSeconds: null },
    ];
    const single = await Promise.all(inputs.map(() => job({ timeoutSeconds: 30 })));
    const batch = await Promise.all(inputs.map(() => job({ timeoutSeconds: 30 })));
    for (const [i, input] of inputs.entries()) await ok(api.url, CreateJobVersionDocument, { id: single[i].id, input }, api.adminToken);
    const { createJobVersions } = await ok(api.url, CreateJobVersionsDocument, { inputs: batch.map((b, i) => ({ id: b.id, input: inputs[i] })) }, api.adminToken);
    // In the order given, each the next version of its job.
    expect(createJobVersions.map((j) => j.key)).toEqual(batch.map((b) => b.key));
    const read = async (id: string) => (await ok(api.url, JobDocument, { id, runsFirst: 1 }, api.adminToken)).job!;
    const strip = ({ id: _i, key: _k, createdAt: _c, updatedAt: _u, nextRunAt: _n, supersedes, supersededBy: _s, lastRun: _l, ...rest }: Awaited<ReturnType<typeof read>>) => ({
      ...rest,
      supersedes: supersedes && { version: supersedes.version, status: supersedes.status },
    });
    for (const [i] of inputs.entries()) {
      const one = (await read(single[i].id)).supersededBy!;
      const many = createJobVersions[i];
      expect(strip(await read(many.id))).toEqual(strip(await read(one.id)));
      expect(await read(batch[i].id)).toMatchObject({ status: 'RETIRED', supersededBy: { id: many.id, version: 2, status: 'ACTIVE' } });
      // The runtime of this process was told of both rows: the new version is armed, the old one no longer.
      expect(api.cronql.runtime!.nextRunAt(many.id)).toBeInstanceOf(Date);
      expect(api.cronql.runtime!.nextRunAt(batch[i].id)).toBeFalsy();
      // One entry per job, as createJobVersion's (the mutation's name as action).
      const [a] = await auditOf(single[i].key);
      const [b] = await auditOf(batch[i].key);
      expect({ ...b, job_key: a.job_key, subject: a.subject, action: a.action, details: { ...b.details, replaces: a.details.replaces } }).toEqual(a);
      expect(b).toMatchObject({ actor: 'admin', action: 'createJobVersions', subject: many.id, details: { version: 2, replaces: batch[i].id } });
    }
  });

  test('a bad input anywhere in the batch: its error names it (code, index, key), and nothing of the batch is written, audit included', async () => {
    const retired = await job();
    await api.cronql.jobs.retire(retired.id, 'fixture');
    const shared = await job();
    // Generated: each bad input at a position of a batch of four, the others good. The calendar is
    // refused by the database after the versions replaced were retired: the transaction undoes it.
    const rules: [(ids: string[]) => { id: string; input: NewJobVersionInput }, string][] = [
      [(ids) => ({ id: ids[0], input: { cronExpression: '61 * * * *' } }), 'INVALID_CRON_EXPRESSION'],
      [(ids) => ({ id: ids[0], input: { target: 'nope' } }), 'UNKNOWN_TARGET'],
      [(ids) => ({ id: ids[0], input: { payload: { text: 'x'.repeat(2_000) } } }), 'PAYLOAD_TOO_LARGE'],
      [(ids) => ({ id: ids[0], input: { payload: { token: '${secrets.MISSING}' } } }), 'UNKNOWN_SECRET'],
      [(ids) => ({ id: ids[0], input: { calendars: ['no-such-calendar'] } }), 'UNKNOWN_CALENDAR'],
      [() => ({ id: randomUUID(), input: {} }), 'NOT_FOUND'],
      [() => ({ id: 'not-a-uuid', input: {} }), 'NOT_FOUND'],
      [() => ({ id: retired.id, input: {} }), 'INVALID_STATE'],
      [() => ({ id: shared.id, input: { description: 'twice' } }), 'BAD_USER_INPUT'],
    ];
    for (const [r, [bad, code]] of rules.entries()) {
      const at = r % 4;
      const jobs = await Promise.all([0, 1, 2, 3].map(() => job()));
      const inputs = jobs.map((j, k) => (k === at ? bad([j.id]) : { id: code === 'BAD_USER_INPUT' && k === (at + 1) % 4 ? shared.id : j.id, input: { description: `v2 of ${k}` } }));
      const before = await snapshot(api.cronql);
      const entries = await auditCount();
      const res = await gql(api.url, CreateJobVersionsDocument, { inputs }, api.adminToken);
      expect(codes(res), JSON.stringify(res.errors)).toEqual([code]);
      const details = res.errors![0].extensions!.details as { index: number; key?: string };
      // A job listed twice is named at its second listing.
      expect(details.index).toBe(code === 'BAD_USER_INPUT' ? Math.max(at, (at + 1) % 4) : at);
      if (!['NOT_FOUND', 'BAD_USER_INPUT', 'INVALID_STATE'].includes(code)) {
        expect(details.key).toBe(jobs[at].key);
        expect(res.errors![0].message.startsWith(`job "${jobs[at].key}" (input ${at + 1}): `)).toBe(true);
      }
      expect(await snapshot(api.cronql)).toBe(before);
      expect(await auditCount()).toBe(entries);
    }
  });

  test(`the list is bounded in every form: literal, variable, null, omitted, empty, over ${MAX_JOBS_PER_BATCH}, and priced by its length; the VIEWER may not`, async () => {
    const j = await job();
    const before = await snapshot(api.cronql);
    const literal = (items: number, selection = '{ id }') =>
      `mutation { createJobVersions(inputs: [${Array.from({ length: items }, () => `{ id: "${randomUUID()}", input: { description: "x" } }`).join(', ')}]) ${selection} }`;
    const variable = (items: number) => ({ i: Array.from({ length: items }, () => ({ id: randomUUID(), input: { description: 'x' } })) });
    // A page of 500 runs per job answered: 1,003 a job, so 25 jobs are over the cost limit (25,000), 20 within.
    const heavy = '{ id runs(first: 500) { nodes { id } } }';
    const heavyVars = `mutation($i: [CreateJobVersionInput!]!) { createJobVersions(inputs: $i) ${heavy} }`;
    const cases: [string, () => Promise<{ errors?: readonly GraphQLFormattedError[] }>, string][] = [
      ['literal, unknown ids', () => gql(api.url, literal(2), undefined, api.adminToken), 'NOT_FOUND'],
      ['variable, unknown ids', () => gql(api.url, VERSIONS, variable(2), api.adminToken), 'NOT_FOUND'],
      ['literal null', () => gql(api.url, 'mutation { createJobVersions(inputs: null) { id } }', undefined, api.adminToken), 'GRAPHQL_VALIDATION_FAILED'],
      ['variable null', () => gql(api.url, VERSIONS, { i: null }, api.adminToken), 'BAD_USER_INPUT'],
      ['omitted', () => gql(api.url, 'mutation { createJobVersions { id } }', undefined, api.adminToken), 'GRAPHQL_VALIDATION_FAILED'],
      ['an item null', () => gql(api.url, VERSIONS, { i: [null] }, api.adminToken), 'BAD_USER_INPUT'],
      ['over the cap', () => gql(api.url, VERSIONS, variable(MAX_JOBS_PER_BATCH + 1), api.adminToken), 'BAD_USER_INPUT'],
      ['literal, priced per item', () => gql(api.url, literal(25, heavy), undefined, api.adminToken), 'GRAPHQL_VALIDATION_FAILED'],
      ['variable, priced per item', () => gql(api.url, heavyVars, variable(25), api.adminToken), 'GRAPHQL_VALIDATION_FAILED'],
      ['variable, within the price', () => gql(api.url, heavyVars, variable(20), api.adminToken), 'NOT_FOUND'],
      ['the VIEWER', () => gql(api.url, VERSIONS, { i: [{ id: j.id, input: { description: 'x' } }] }, api.viewerToken), 'FORBIDDEN'],
    ];
    for (const [name, call, code] of cases) {
      const res = await call();
      expect(codes(res), `${name}: ${JSON.stringify(res.errors)}`).toEqual([code]);
      if (name === 'over the cap') expect(res.errors![0].extensions!.details).toMatchObject({ field: 'inputs', max: MAX_JOBS_PER_BATCH });
      if (code === 'GRAPHQL_VALIDATION_FAILED' && name.includes('priced')) expect(JSON.stringify(res.errors)).toMatch(/Operation cost \d+ exceeds the limit of 25000/);
    }
    expect(await snapshot(api.cronql)).toBe(before);
    // An empty list is nothing to do.
    expect((await ok(api.url, CreateJobVersionsDocument, { inputs: [] }, api.adminToken)).createJobVersions).toEqual([]);
    expect(await snapshot(api.cronql)).toBe(before);
  });
});
