import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import { TokenRole } from '../../src/domain/token-role.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { writeAudit } from '../../src/db/audit.js';
import { createLogger } from '../../src/logger.js';
import { AuditRetentionDuty } from '../../src/maintenance/audit-retention.js';
import { Outage } from '../../src/maintenance/outage.js';
import { codes, gql, startApi, type Api } from './support.js';

/**
 * The audit log (docs/operations.md, "Audit log"), walked from the schema: every Mutation field
 * has a case below, called with valid arguments by the admin token — it writes at least one entry
 * with its name as action and `admin` as actor — and with bad input — refused, it writes nothing.
 * A mutation added without a case fails the first test, by name; one whose change writes no entry
 * fails its own. Runs on role `api` (no runtime): runs stay PENDING, so they can be canceled.
 */

/** A mutation's call: its text and variables (fixtures are made with the library API beforehand). */
interface Call {
  query: string;
  variables?: Record<string, unknown>;
}

interface Case {
  /** Valid arguments: the mutation succeeds and records its entries. */
  valid: () => Promise<Call>;
  /** Bad input: refused with an error, nothing recorded. */
  bad: () => Promise<Call>;
  /** What else the entries must (not) show. */
  check?: (entries: Entry[], data: Record<string, unknown>) => void | Promise<void>;
}

interface Entry {
  id: string;
  at: string;
  actor: string;
  action: string;
  jobKey: string | null;
  subject: string | null;
  details: Record<string, unknown> | null;
}

/** A credential-looking value: it must appear in no entry. */
const SECRET_VALUE = `s3cret-${randomBytes(12).toString('hex')}`;
const TOKEN_IN_URL = `tok${randomBytes(12).toString('hex')}`;

let api: Api;
let receiver: Server;
let base = '';
let n = 0;
const key = (what: string) => `audit-${what}-${++n}`;
const secretName = () => `AUDIT_SECRET_${++n}`;

/** A fresh job, made by the fixture actor (not audited as `admin`), that never fires in a test's time. */
async function job(what: string, cron = '0 0 1 1 *'): Promise<{ id: string; key: string }> {
  const made = await api.cronql.jobs.create({ key: key(what), target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: cron, payload: { token: SECRET_VALUE } }, 'fixture');
  return { id: made.id, key: made.jobKey };
}

const JOB_INPUT = (k: string, cron = '0 0 1 1 *') => ({ key: k, target: 'log', scheduleType: 'RECURRING', cronExpression: cron, payload: { password: SECRET_VALUE } });

/** A backfill in flight of a fresh every-minute job (no runtime here: its first run stays PENDING). */
async function backfill(): Promise<{ id: string; key: string }> {
  const j = await job('bf', '* * * * *');
  const now = Date.now();
  const b = await api.cronql.backfills.backfill({ jobId: j.id, from: new Date(now - 10 * 60_000), to: new Date(now - 60_000), reason: 'fixture' }, 'fixture');
  return { id: b.id, key: j.key };
}

const CASES: Record<string, Case> = {
  createJob: {
    valid: async () => ({ query: 'mutation($i: CreateJobInput!) { createJob(input: $i) { id } }', variables: { i: JOB_INPUT(key('create')) } }),
    bad: async () => ({ query: 'mutation($i: CreateJobInput!) { createJob(input: $i) { id } }', variables: { i: JOB_INPUT(key('create'), 'not a cron') } }),
  },
  createJobs: {
    valid: async () => ({ query: 'mutation($i: [CreateJobInput!]!) { createJobs(inputs: $i) { id } }', variables: { i: [JOB_INPUT(key('many')), JOB_INPUT(key('many'))] } }),
    // The second key exists already: refused by the statement itself (its unique key), which writes neither the first job nor any entry.
    bad: async () => ({ query: 'mutation($i: [CreateJobInput!]!) { createJobs(inputs: $i) { id } }', variables: { i: [JOB_INPUT(key('many')), JOB_INPUT((await job('taken')).key)] } }),
    // One entry per job.
    check: (entries) => expect(new Set(entries.map((e) => e.jobKey)).size).toBe(2),
  },
  createJobVersion: {
    valid: async () => ({ query: `mutation { createJobVersion(id: "${(await job('version')).id}", input: { cronExpression: "0 0 2 1 *" }) { id } }` }),
    bad: async () => ({ query: `mutation { createJobVersion(id: "${(await job('version')).id}", input: { cronExpression: "0 0 31 2 * 1999" }) { id } }` }),
    check: (entries) => expect(entries[0].details).toMatchObject({ fields: ['cronExpression'], version: 2 }),
  },
  createJobVersions: {
    valid: async () => ({
      query: 'mutation($i: [CreateJobVersionInput!]!) { createJobVersions(inputs: $i) { id } }',
      variables: { i: [{ id: (await job('versions')).id, input: { cronExpression: '0 0 2 1 *' } }, { id: (await job('versions')).id, input: { timeoutSeconds: 30 } }] },
    }),
    // The second job's new version is refused by the rules: neither job gets a version, nor an entry.
    bad: async () => ({
      query: 'mutation($i: [CreateJobVersionInput!]!) { createJobVersions(inputs: $i) { id } }',
      variables: { i: [{ id: (await job('versions')).id, input: { cronExpression: '0 0 2 1 *' } }, { id: (await job('versions')).id, input: { cronExpression: '0 0 31 2 * 1999' } }] },
    }),
    // One entry per job, each as createJobVersion's.
    check: (entries) => {
      expect(entries).toHaveLength(2);
      expect(entries.map((e) => e.details).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([
        expect.objectContaining({ fields: ['cronExpression'], version: 2 }),
        expect.objectContaining({ fields: ['timeoutSeconds'], version: 2 }),
      ]);
    },
  },
  pauseJob: {
    valid: async () => ({ query: `mutation { pauseJob(id: "${(await job('pause')).id}", reason: "maintenance window") { id } }` }),
    bad: async () => ({ query: `mutation { pauseJob(id: "${(await job('pause')).id}", reason: "") { id } }` }),
    check: (entries) => expect(entries[0].details).toMatchObject({ reason: 'maintenance window', status: 'PAUSED' }),
  },
  resumeJob: {
    valid: async () => {
      const j = await job('resume');
      await api.cronql.jobs.pause(j.id, 'fixture', 'fixture');
      return { query: `mutation { resumeJob(id: "${j.id}") { id } }` };
    },
    // ACTIVE: nothing to resume.
    bad: async () => ({ query: `mutation { resumeJob(id: "${(await job('resume')).id}") { id } }` }),
  },
  retireJob: {
    valid: async () => ({ query: `mutation { retireJob(id: "${(await job('retire')).id}") { id } }` }),
    bad: async () => ({ query: `mutation { retireJob(id: "${randomUUID()}") { id } }` }),
  },
  skipNextRuns: {
    valid: async () => ({ query: `mutation { skipNextRuns(id: "${(await job('skip')).id}", count: 3, reason: "holiday") { id } }` }),
    bad: async () => ({ query: `mutation { skipNextRuns(id: "${(await job('skip')).id}", count: 1001, reason: "holiday") { id } }` }),
    check: (entries) => expect(entries[0].details).toMatchObject({ count: 3, reason: 'holiday' }),
  },
  runJobNow: {
    valid: async () => ({ query: `mutation { runJobNow(id: "${(await job('now')).id}", payload: { secret: "${SECRET_VALUE}" }) { id triggerType triggeredBy } }` }),
    bad: async () => ({ query: `mutation { runJobNow(id: "${randomUUID()}") { id } }` }),
    check: (entries, data) => {
      const run = data.runJobNow as { id: string; triggerType: string; triggeredBy: string };
      expect(run).toMatchObject({ triggerType: 'AD_HOC', triggeredBy: 'admin' });
      expect(entries[0]).toMatchObject({ subject: run.id, details: { trigger: 'AD_HOC' } });
    },
  },
  cancelRun: {
    valid: async () => {
      const run = await api.cronql.runs.runNow((await job('cancel')).id, undefined, { actor: 'fixture' });
      return { query: `mutation { cancelRun(id: "${run.id}") { id status } }` };
    },
    bad: async () => ({ query: `mutation { cancelRun(id: "${randomUUID()}") { id } }` }),
  },
  backfillJob: {
    valid: async () => {
      const j = await job('backfill', '* * * * *');
      const to = new Date(Date.now() - 60_000).toISOString();
      const from = new Date(Date.now() - 5 * 60_000).toISOString();
      return { query: `mutation { backfillJob(id: "${j.id}", from: "${from}", to: "${to}", reason: "replay") { id job { key } } }` };
    },
    // Its runs say who asked for them.
    check: async (entries, data) => {
      const { key: jobKey } = (data.backfillJob as { job: { key: string } }).job;
      expect(entries[0]).toMatchObject({ jobKey, details: { reason: 'replay', scope: 'NOT_SUCCEEDED' } });
      const runs = await gql<{ runs: { nodes: { triggeredBy: string | null }[] } }, undefined>(api.url, `{ runs(filter: { jobKey: "${jobKey}", triggerType: [BACKFILL] }) { nodes { triggeredBy } } }`, undefined, api.adminToken);
      expect(runs.data!.runs.nodes.length).toBeGreaterThan(0);
      expect(runs.data!.runs.nodes.every((r) => r.triggeredBy === 'admin')).toBe(true);
    },
    // from after to.
    bad: async () => {
      const j = await job('backfill', '* * * * *');
      const from = new Date(Date.now() - 60_000).toISOString();
      const to = new Date(Date.now() - 5 * 60_000).toISOString();
      return { query: `mutation { backfillJob(id: "${j.id}", from: "${from}", to: "${to}", reason: "replay") { id } }` };
    },
  },
  cancelBackfill: {
    valid: async () => ({ query: `mutation { cancelBackfill(id: "${(await backfill()).id}") { id state } }` }),
    bad: async () => ({ query: `mutation { cancelBackfill(id: "${randomUUID()}") { id } }` }),
  },
  setSecret: {
    valid: async () => ({ query: 'mutation($n: String!, $v: String!) { setSecret(name: $n, value: $v) { name } }', variables: { n: secretName(), v: SECRET_VALUE } }),
    bad: async () => ({ query: 'mutation($n: String!, $v: String!) { setSecret(name: $n, value: $v) { name } }', variables: { n: secretName(), v: 'ab' } }),
  },
  deleteSecret: {
    valid: async () => {
      const name = secretName();
      await api.cronql.secrets.set(name, SECRET_VALUE, 'fixture');
      return { query: `mutation { deleteSecret(name: "${name}") }` };
    },
    bad: async () => ({ query: 'mutation { deleteSecret(name: "no spaces allowed") }' }),
  },
  setCalendar: {
    valid: async () => ({ query: `mutation { setCalendar(input: { name: "${key('cal')}", dates: ["2030-12-25"] }) { name } }` }),
    bad: async () => ({ query: `mutation { setCalendar(input: { name: "${key('cal')}", timezone: "Mars/Olympus", dates: ["2030-12-25"] }) { name } }` }),
  },
  createApiToken: {
    valid: async () => ({ query: `mutation { createApiToken(name: "${key('tok')}", role: OPERATOR, labelSelector: "team=audit") { token { id } secret } }` }),
    bad: async () => ({ query: `mutation { createApiToken(name: "${key('tok')}", role: ADMIN, labelSelector: "team=audit") { token { id } } }` }),
    // The secret is in the answer only: not in the entry.
    check: (entries, data) => {
      const { secret } = data.createApiToken as { secret: string };
      expect(JSON.stringify(entries)).not.toContain(secret.slice(3));
      expect(entries[0].details).toMatchObject({ role: 'OPERATOR', labelSelector: 'team=audit' });
    },
  },
  revokeApiToken: {
    valid: async () => {
      const { token } = await api.cronql.tokens.create({ name: key('tok'), role: TokenRole.VIEWER }, 'fixture');
      return { query: `mutation { revokeApiToken(id: "${token.id}") { id revokedAt } }` };
    },
    bad: async () => ({ query: `mutation { revokeApiToken(id: "${randomUUID()}") { id } }` }),
    check: (entries) => expect(entries[0].subject).toMatch(/^audit-tok-/),
  },
  deleteCalendar: {
    valid: async () => {
      const name = key('cal');
      await api.cronql.calendars.set({ name, dates: ['2030-12-25'] }, 'fixture');
      return { query: `mutation { deleteCalendar(name: "${name}") }` };
    },
    bad: async () => ({ query: 'mutation { deleteCalendar(name: "not a name!") }' }),
  },
  setNotificationChannel: {
    valid: async () => ({
      query: 'mutation($i: NotificationChannelInput!) { setNotificationChannel(input: $i) { name } }',
      variables: { i: { name: key('chan'), kind: 'WEBHOOK', url: `${base}/${TOKEN_IN_URL}`, secret: SECRET_VALUE } },
    }),
    bad: async () => ({ query: 'mutation($i: NotificationChannelInput!) { setNotificationChannel(input: $i) { name } }', variables: { i: { name: key('chan'), kind: 'WEBHOOK', url: 'ftp://example.com' } } }),
    check: (entries) => expect(entries[0].details).toMatchObject({ kind: 'WEBHOOK', signed: true }),
  },
  deleteNotificationChannel: {
    valid: async () => {
      const name = key('chan');
      await api.cronql.channels.set({ name, kind: 'WEBHOOK' as never, url: `${base}/${TOKEN_IN_URL}` }, 'fixture');
      return { query: `mutation { deleteNotificationChannel(name: "${name}") }` };
    },
    bad: async () => ({ query: 'mutation { deleteNotificationChannel(name: "not a name!") }' }),
  },
  testNotificationChannel: {
    valid: async () => {
      const name = key('chan');
      await api.cronql.channels.set({ name, kind: 'WEBHOOK' as never, url: `${base}/${TOKEN_IN_URL}` }, 'fixture');
      return { query: `mutation { testNotificationChannel(name: "${name}") }` };
    },
    bad: async () => ({ query: `mutation { testNotificationChannel(name: "${key('none')}") }` }),
  },
};

/** A fixture made over GraphQL (for what the library API of this branch may not type yet); throws on errors. */
async function adminDo<R = Record<string, unknown>>(query: string): Promise<R> {
  const res = await gql<R, undefined>(api.url, query, undefined, api.adminToken);
  if (res.errors?.length || !res.data) throw new Error(`fixture failed: ${JSON.stringify(res.errors)}`);
  return res.data;
}

/** A job labelled `team=<fresh team>` (labels: issue 28's teams), and its selector. */
async function labelled(): Promise<{ id: string; key: string; selector: string }> {
  const team = key('team');
  const k = key('labelled');
  const made = await adminDo<{ createJob: { id: string } }>(`mutation { createJob(input: { key: "${k}", target: "log", scheduleType: RECURRING, cronExpression: "0 0 1 1 *", labels: { team: "${team}" } }) { id } }`);
  return { id: made.createJob.id, key: k, selector: `team=${team}` };
}

/**
 * The cases of the mutations other parts of issue 28 and 29 add (bulk actions, named tokens,
 * concurrency pools): used once the schema has them.
 */
Object.assign(CASES, {
  pauseJobs: {
    valid: async () => ({ query: `mutation { pauseJobs(labelSelector: "${(await labelled()).selector}", reason: "maintenance window") }` }),
    bad: async () => ({ query: 'mutation { pauseJobs(labelSelector: "team in (", reason: "maintenance window") }' }),
    // One entry per job changed.
    check: (entries) => expect(entries.length).toBe(1),
  },
  resumeJobs: {
    valid: async () => {
      const j = await labelled();
      await adminDo(`mutation { pauseJob(id: "${j.id}", reason: "fixture") { id } }`);
      return { query: `mutation { resumeJobs(labelSelector: "${j.selector}") }` };
    },
    bad: async () => ({ query: 'mutation { resumeJobs(labelSelector: "!!team") }' }),
    check: (entries) => expect(entries.length).toBe(1),
  },
  createApiToken: {
    valid: async () => ({ query: `mutation { createApiToken(name: "${key('token')}", role: OPERATOR, labelSelector: "team=audit") { token { id } secret } }` }),
    // A scoped ADMIN is refused (it could reference another team's secret in a payload).
    bad: async () => ({ query: `mutation { createApiToken(name: "${key('token')}", role: ADMIN, labelSelector: "team=audit") { token { id } secret } }` }),
    // The secret is shown once, and never recorded.
    check: (entries, data) => expect(JSON.stringify(entries)).not.toContain((data.createApiToken as { secret: string }).secret),
  },
  revokeApiToken: {
    valid: async () => {
      const made = await adminDo<{ createApiToken: { token: { id: string } } }>(`mutation { createApiToken(name: "${key('token')}", role: VIEWER) { token { id } } }`);
      return { query: `mutation { revokeApiToken(id: "${made.createApiToken.token.id}") { id } }` };
    },
    bad: async () => ({ query: `mutation { revokeApiToken(id: "${randomUUID()}") { id } }` }),
  },
  setConcurrencyPool: {
    valid: async () => ({ query: `mutation { setConcurrencyPool(name: "${key('pool')}", limit: 3) { name } }` }),
    bad: async () => ({ query: `mutation { setConcurrencyPool(name: "${key('pool')}", limit: -1) { name } }` }),
  },
  deleteConcurrencyPool: {
    valid: async () => {
      const name = key('pool');
      await adminDo(`mutation { setConcurrencyPool(name: "${name}", limit: 2) { name } }`);
      return { query: `mutation { deleteConcurrencyPool(name: "${name}") }` };
    },
    bad: async () => ({ query: 'mutation { deleteConcurrencyPool(name: "not a name!") }' }),
  },
} satisfies Record<string, Case>);

const ENTRIES = `query($f: AuditFilter, $first: Int, $after: String) {
  auditLog(filter: $f, first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } nodes { id at actor action jobKey subject details } } }`;

/** Every entry written after the one with id `since`, oldest first (read straight from the table: the test of auditLog is below). */
async function entriesSince(since: number): Promise<Entry[]> {
  const res = await api.cronql.pool.query(`SELECT id::text, at, actor, action, job_key AS "jobKey", subject, details FROM cron_audit_log WHERE id > $1 ORDER BY id`, [since]);
  return res.rows as Entry[];
}
const lastId = async (): Promise<number> => Number((await api.cronql.pool.query('SELECT coalesce(max(id), 0) AS n FROM cron_audit_log')).rows[0].n);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  api = await startApi({ role: 'api', listen: false, httpAllowPrivate: true, secretsKey: randomBytes(32).toString('base64') });
}, 60_000);

afterAll(async () => {
  await api?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

describe('every mutation writes its audit entries, with its actor (walked from the schema)', async () => {
  const schema = await cronqlSchema();
  const names = Object.keys(schema.getMutationType()!.getFields()).sort();

  test('every Mutation field of the schema has an audit case here', () => {
    expect(names.filter((name) => !CASES[name]).map((name) => `${name}: no audit case (write its entries with src/db/audit.ts and add it to CASES)`)).toEqual([]);
  });

  test.each(names.filter((name) => CASES[name]))('%s: bad input is refused and writes nothing; valid input writes its entries with actor admin', async (name) => {
    const c = CASES[name];
    // The fixtures first (made by the library API, as `fixture`): from here on only the calls write.
    const bad = await c.bad();
    const valid = await c.valid();
    const before = await lastId();
    const refused = await gql(api.url, bad.query, bad.variables, api.adminToken);
    expect(refused.errors?.length, `${name} with bad input: ${JSON.stringify(refused.data)}`).toBeGreaterThan(0);
    // VIEWER: refused (FORBIDDEN), nothing written either.
    expect(codes(await gql(api.url, valid.query, valid.variables, api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(await entriesSince(before)).toEqual([]);

    const done = await gql<Record<string, unknown>, Record<string, unknown> | undefined>(api.url, valid.query, valid.variables, api.adminToken);
    expect(done.errors).toBeUndefined();
    const entries = (await entriesSince(before)).filter((e) => e.action === name);
    expect(entries.length, `${name} wrote no audit entry`).toBeGreaterThan(0);
    for (const e of entries) expect(e.actor).toBe('admin');
    // No credential in any entry: not a secret's value, a channel's URL, nor a payload's values.
    const text = JSON.stringify(await entriesSince(before));
    expect(text).not.toContain(SECRET_VALUE);
    expect(text).not.toContain(TOKEN_IN_URL);
    await c.check?.(entries, done.data!);
  });
});

describe('auditLog', () => {
  test('pages newest first with totalCount, filters by actor, action, job key and time; ADMIN only; bad filters are BAD_USER_INPUT', async () => {
    const j = await job('log');
    const t0 = new Date();
    for (const reason of ['one', 'two', 'three']) {
      await api.cronql.jobs.pause(j.id, reason, 'alice');
      await api.cronql.jobs.resume(j.id, 'bob');
    }
    const all: Entry[] = [];
    let after: string | null = null;
    for (;;) {
      const res: { errors?: unknown; data?: { auditLog: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Entry[] } } | null } = await gql<{ auditLog: { totalCount: number; pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Entry[] } }, Record<string, unknown>>(
        api.url,
        ENTRIES,
        { f: { jobKey: j.key }, first: 4, after },
        api.adminToken,
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.auditLog.totalCount).toBe(7); // created (by fixture) + 3 pauses + 3 resumes
      all.push(...res.data!.auditLog.nodes);
      if (!res.data!.auditLog.pageInfo.hasNextPage) break;
      after = res.data!.auditLog.pageInfo.endCursor;
    }
    expect(all.map((e) => `${e.actor}:${e.action}`)).toEqual(['bob:resumeJob', 'alice:pauseJob', 'bob:resumeJob', 'alice:pauseJob', 'bob:resumeJob', 'alice:pauseJob', 'fixture:createJob']);
    expect(all.map((e) => e.details?.reason).filter(Boolean)).toEqual(['three', 'two', 'one']);

    // "Who paused this job since t0?"
    const paused = await gql<{ auditLog: { totalCount: number; nodes: Entry[] } }, Record<string, unknown>>(
      api.url,
      ENTRIES,
      { f: { jobKey: j.key, action: ['pauseJob', 'pauseJobs'], after: t0.toISOString(), before: new Date(Date.now() + 60_000).toISOString() } },
      api.adminToken,
    );
    expect(paused.data!.auditLog.nodes.map((e) => e.actor)).toEqual(['alice', 'alice', 'alice']);
    const byBob = await gql<{ auditLog: { totalCount: number } }, Record<string, unknown>>(api.url, ENTRIES, { f: { actor: 'bob', jobKey: j.key } }, api.adminToken);
    expect(byBob.data!.auditLog.totalCount).toBe(3);

    expect(codes(await gql(api.url, ENTRIES, {}, api.viewerToken))).toEqual(['FORBIDDEN']);
    for (const f of [{ action: Array.from({ length: 51 }, (_, i) => `a${i}`) }, { actor: 'x'.repeat(257) }, { actor: 'nul\u0000' }, { after: t0.toISOString(), before: t0.toISOString() }]) {
      expect(codes(await gql(api.url, ENTRIES, { f }, api.adminToken)), JSON.stringify(f).slice(0, 80)).toEqual(['BAD_USER_INPUT']);
    }
    expect(codes(await gql(api.url, ENTRIES, { after: 'bogus' }, api.adminToken))).toEqual(['BAD_USER_INPUT']);
    // first: literal, variable, null (the default 50), zero, over the cap (capped at 500).
    for (const first of [0, 1, null, 500, 501]) {
      const res = await gql<{ auditLog: { nodes: Entry[] } }, Record<string, unknown>>(api.url, ENTRIES, { f: { jobKey: j.key }, first }, api.adminToken);
      expect(res.errors).toBeUndefined();
      expect(res.data!.auditLog.nodes.length).toBe(Math.min(first ?? 50, 7));
    }
    expect(codes(await gql(api.url, ENTRIES, { first: -1 }, api.adminToken))).toEqual(['BAD_USER_INPUT']);
  });
});

describe("cronql's own changes", () => {
  test('a pause that ends by itself is recorded as pauseEnded by cronql; one already resumed by hand records nothing more', async () => {
    const j = await job('until');
    const until = new Date(Date.now() + 3_600_000);
    await api.cronql.jobs.pause(j.id, 'until lunch', 'alice', until);
    const before = await lastId();
    expect(await api.cronql.jobs.resumeEnded(j.id, until)).not.toBeNull();
    expect(await entriesSince(before)).toMatchObject([{ actor: 'cronql', action: 'pauseEnded', jobKey: j.key, details: { until: until.toISOString(), status: 'ACTIVE' } }]);
    const again = await lastId();
    expect(await api.cronql.jobs.resumeEnded(j.id, until)).toBeNull();
    expect(await entriesSince(again)).toEqual([]);
  });
});

describe('audit retention', () => {
  test('entries older than CRONQL_AUDIT_RETENTION_DAYS are deleted in bounded batches; younger ones stay; 0 keeps them', async () => {
    const pool = api.cronql.pool;
    const now = new Date();
    const day = 86_400_000;
    const q = (text: string, params: unknown[]) => pool.query(text, params);
    // 25 entries 401 days old, 5 399 days old.
    for (let i = 0; i < 25; i++) await writeAudit(q, [{ actor: 'old', action: 'retentionTest', details: { i } }], new Date(now.getTime() - 401 * day));
    await writeAudit(q, Array.from({ length: 5 }, () => ({ actor: 'young', action: 'retentionTest' })), new Date(now.getTime() - 399 * day));
    const left = async () => (await pool.query(`SELECT actor, count(*)::int AS n FROM cron_audit_log WHERE action = 'retentionTest' GROUP BY actor ORDER BY actor`)).rows;
    const log = createLogger();
    const duty = (days: number) =>
      new AuditRetentionDuty({ log, instanceId: 'audit-retention', outage: new Outage(log, () => {}), leaseHeld: () => true, passed: () => {} }, 60_000, { pool, log, days, now: () => now, batchSize: 10 });
    expect(await duty(0).round()).toBe(0);
    expect(await left()).toEqual([{ actor: 'old', n: 25 }, { actor: 'young', n: 5 }]);
    // 10 + 10 + 5: three statements of at most 10.
    expect(await duty(400).round()).toBe(25);
    expect(await left()).toEqual([{ actor: 'young', n: 5 }]);
  });
});
