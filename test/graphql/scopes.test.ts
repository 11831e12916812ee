import { randomUUID } from 'node:crypto';
import { getOperationAST, parse, validate, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Cronql } from '../../src/app.js';
import type { AccessRole } from '../../src/graphql/context.type.js';
import { cronqlSchema } from '../../src/graphql/schema.js';
import { TokenRole } from '../../src/domain/token-role.js';
import { Feed, gql, snapshot, startApi, wsClient, type Api } from './support.js';

/**
 * Issue 28's matrix: every query, mutation and subscription of the schema × {ADMIN, OPERATOR,
 * VIEWER} × {no scope, a scope matching the job it is about, a scope not matching it} → allowed,
 * FORBIDDEN, or "does not exist" (docs/teams.md): a job, run or backfill outside the caller's
 * scope answers exactly as an id that does not exist (NOT_FOUND with the same message, or null),
 * lists and counts leave it out; nothing is written when a call is refused. The operations are
 * walked from the schema: one without a rule below fails the first test.
 *
 * Every call is made as a client makes it, with a named token of the role and scope (the ADMIN:
 * the environment's token; an ADMIN token cannot have a scope): queries and mutations over HTTP,
 * subscriptions over the WebSocket.
 */

type ScopeCase = 'none' | 'matching' | 'other';

interface Fixture {
  /** The job (team=billing) every call is about, its key, one of its runs, one of its backfills. */
  jobId: string;
  key: string;
  runId: string;
  backfillId: string;
}

type Vars = Record<string, unknown>;

interface Rule {
  /** Who may, by role (the scope narrows what they reach, never what they may do). */
  roles: readonly AccessRole[];
  /**
   * byId: about the fixture's job (or its run, backfill) — out of scope, the answer of an id that
   * does not exist; list: shows the job in scope, leaves it out otherwise; bulk: acts on the jobs of
   * scope ∧ selector; feed: a subscription to changes (its own test below); none: no job in it.
   */
  kind: 'byId' | 'list' | 'bulk' | 'feed' | 'none';
  query: string;
  vars?: (fx: Fixture) => Vars | Promise<Vars>;
  /** list: whether the answer shows the fixture's job (default: its id, key, run or backfill appear); false: not checked. */
  shows?: ((a: Answer) => boolean) | false;
  /** Puts the fixture in the state the call expects (a job to pause is ACTIVE …), before it is measured. */
  prepare?: () => Promise<void>;
}

const READERS = ['ADMIN', 'OPERATOR', 'VIEWER'] as const;
const OPERATORS = ['ADMIN', 'OPERATOR'] as const;
const ADMINS = ['ADMIN'] as const;

const DAY = 86_400_000;
const future = (days = 1) => new Date(Date.now() + days * DAY).toISOString();
const past = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const unique = () => randomUUID().slice(0, 8);

let api: Api;
let cronql: Cronql;
let schema: GraphQLSchema;
let fx: Fixture;
let other: { jobId: string; key: string };
/** The token of each principal of the matrix, by `${role} ${scope}`. */
const tokens = new Map<string, string>();

/** A job input of team `team` that fires only when asked (a slot a year away). */
const jobInput = (key: string, team: string, target = 'log') => ({
  key,
  target,
  scheduleType: 'RECURRING',
  cronExpression: '0 3 1 1 *',
  labels: { team },
  calendars: [] as string[],
});

/** A throwaway job of team billing, for the calls that retire or version one. */
async function throwaway(): Promise<string> {
  return (await cronql.jobs.create({ ...jobInput(`billing-tmp-${unique()}`, 'billing'), scheduleType: 'RECURRING' } as never)).id;
}

const RULES: Record<string, Rule> = {
  // ---- Queries
  'Query.jobs': { roles: READERS, kind: 'list', query: 'query { jobs(first: 100) { totalCount nodes { id key } } }' },
  'Query.job': { roles: READERS, kind: 'byId', query: 'query($id: ID!) { job(id: $id) { id key supersedes { id } supersededBy { id } } }', vars: (f) => ({ id: f.jobId }) },
  'Query.runs': { roles: READERS, kind: 'list', query: 'query { runs(first: 100) { totalCount nodes { id job { id key } } } }' },
  'Query.run': { roles: READERS, kind: 'byId', query: 'query($id: ID!) { run(id: $id) { id job { id key } retryOf { id } } }', vars: (f) => ({ id: f.runId }) },
  'Query.stats': {
    roles: READERS,
    kind: 'list',
    query: 'query { stats(window: 720) { total byTarget { target runs } byTrigger { trigger count } mostFailing { jobId jobKey } } }',
    // Billing's runs are the only ones of target log; search's run sleep.
    shows: (a) => (a.data as { stats: { byTarget: { target: string }[] } }).stats.byTarget.some((t) => t.target === 'log'),
  },
  'Query.upcoming': { roles: READERS, kind: 'list', query: `query($to: DateTime!) { upcoming(to: $to, first: 100) { nodes { slot job { id key } } } }`, vars: () => ({ to: future(400) }) },
  'Query.targets': { roles: READERS, kind: 'none', query: 'query { targets { name } }' },
  'Query.health': { roles: READERS, kind: 'none', query: 'query { health { ready } }' },
  'Query.calendars': { roles: READERS, kind: 'list', query: 'query { calendars { name usedBy { id key } } }' },
  'Query.calendar': { roles: READERS, kind: 'list', query: 'query { calendar(name: "matrix-days") { name usedBy { id key } } }' },
  'Query.backfill': { roles: READERS, kind: 'byId', query: 'query($id: ID!) { backfill(id: $id) { id job { id key } } }', vars: (f) => ({ id: f.backfillId }) },
  'Query.backfills': { roles: READERS, kind: 'byId', query: 'query($id: ID!) { backfills(jobId: $id) { id job { id } } }', vars: (f) => ({ id: f.jobId }) },
  'Query.describeSchedule': { roles: READERS, kind: 'none', query: 'query { describeSchedule(cronExpression: "0 9 * * 1-5") }' },
  'Query.parseSchedule': { roles: READERS, kind: 'none', query: 'query { parseSchedule(text: "every day at 9am") { cronExpression } }' },
  'Query.previewSchedule': { roles: READERS, kind: 'none', query: 'query { previewSchedule(cronExpression: "0 9 * * *") }' },
  'Query.previewScheduleSlots': { roles: READERS, kind: 'none', query: 'query { previewScheduleSlots(cronExpression: "0 9 * * *") { at } }' },
  'Query.instances': { roles: ADMINS, kind: 'none', query: 'query { instances { id } }' },
  'Query.secrets': { roles: ADMINS, kind: 'list', query: 'query { secrets { name usedBy { id key } } }' },
  'Query.notificationChannels': { roles: ADMINS, kind: 'none', query: 'query { notificationChannels { name } }' },
  'Query.whoami': { roles: READERS, kind: 'none', query: 'query { whoami { name role labelSelector } }' },
  'Query.apiTokens': { roles: ADMINS, kind: 'none', query: 'query { apiTokens { id name } }' },
  'Query.auditLog': { roles: ADMINS, kind: 'none', query: 'query { auditLog(first: 5) { totalCount nodes { actor action } } }' },
  'Query.concurrencyPools': { roles: READERS, kind: 'list', query: 'query { concurrencyPools { name jobs { id key } } }', shows: false },

  // ---- Mutations: what an OPERATOR may do, on the fixture's job
  'Mutation.pauseJob': {
    roles: OPERATORS,
    kind: 'byId',
    query: 'mutation($id: ID!) { pauseJob(id: $id, reason: "matrix") { id status } }',
    vars: (f) => ({ id: f.jobId }),
    prepare: () => cronql.jobs.resume(fx.jobId).then(() => undefined, () => undefined),
  },
  'Mutation.resumeJob': {
    roles: OPERATORS,
    kind: 'byId',
    query: 'mutation($id: ID!) { resumeJob(id: $id) { id status } }',
    vars: (f) => ({ id: f.jobId }),
    prepare: () => cronql.jobs.pause(fx.jobId, 'matrix').then(() => undefined, () => undefined),
  },
  'Mutation.skipNextRuns': { roles: OPERATORS, kind: 'byId', query: 'mutation($id: ID!) { skipNextRuns(id: $id, count: 0, reason: "matrix") { id } }', vars: (f) => ({ id: f.jobId }) },
  'Mutation.runJobNow': { roles: OPERATORS, kind: 'byId', query: 'mutation($id: ID!) { runJobNow(id: $id) { id job { id } } }', vars: (f) => ({ id: f.jobId }) },
  'Mutation.cancelRun': { roles: OPERATORS, kind: 'byId', query: 'mutation($id: ID!) { cancelRun(id: $id) { id } }', vars: (f) => ({ id: f.runId }) },
  'Mutation.backfillJob': {
    roles: OPERATORS,
    kind: 'byId',
    query: 'mutation($id: ID!, $from: DateTime!, $to: DateTime!) { backfillJob(id: $id, from: $from, to: $to, dryRun: true, reason: "matrix") { slots } }',
    vars: (f) => ({ id: f.jobId, from: past(3), to: past(1) }),
  },
  'Mutation.cancelBackfill': { roles: OPERATORS, kind: 'byId', query: 'mutation($id: ID!) { cancelBackfill(id: $id) { id } }', vars: (f) => ({ id: f.backfillId }) },
  'Mutation.pauseJobs': {
    roles: OPERATORS,
    kind: 'bulk',
    query: 'mutation { pauseJobs(labelSelector: "team=billing,matrix=fixture", reason: "maintenance") }',
    prepare: () => cronql.jobs.resume(fx.jobId).then(() => undefined, () => undefined),
  },
  'Mutation.resumeJobs': {
    roles: OPERATORS,
    kind: 'bulk',
    query: 'mutation { resumeJobs(labelSelector: "team=billing,matrix=fixture") }',
    prepare: () => cronql.jobs.pause(fx.jobId, 'matrix').then(() => undefined, () => undefined),
  },
  // ---- Mutations: ADMIN only (an ADMIN token cannot be scoped)
  'Mutation.createJob': { roles: ADMINS, kind: 'none', query: 'mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', vars: () => ({ input: jobInput(`new-${unique()}`, 'billing') }) },
  'Mutation.createJobs': { roles: ADMINS, kind: 'none', query: 'mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { id } }', vars: () => ({ inputs: [jobInput(`new-${unique()}`, 'billing')] }) },
  'Mutation.createJobVersion': {
    roles: ADMINS,
    kind: 'none',
    query: 'mutation($id: ID!) { createJobVersion(id: $id, input: { description: "v2" }) { id } }',
    vars: async () => ({ id: await throwaway() }),
  },
  'Mutation.createJobVersions': {
    roles: ADMINS,
    kind: 'none',
    query: 'mutation($id: ID!) { createJobVersions(inputs: [{ id: $id, input: { description: "v2" } }]) { id } }',
    vars: async () => ({ id: await throwaway() }),
  },
  'Mutation.retireJob': { roles: ADMINS, kind: 'none', query: 'mutation($id: ID!) { retireJob(id: $id) { id } }', vars: async () => ({ id: await throwaway() }) },
  'Mutation.setSecret': { roles: ADMINS, kind: 'none', query: 'mutation($name: String!) { setSecret(name: $name, value: "s3cret-value") { name } }', vars: () => ({ name: `MATRIX_${unique().toUpperCase()}` }) },
  'Mutation.deleteSecret': { roles: ADMINS, kind: 'none', query: 'mutation { deleteSecret(name: "NO_SUCH_SECRET") }' },
  'Mutation.setCalendar': { roles: ADMINS, kind: 'none', query: 'mutation($name: String!) { setCalendar(input: { name: $name, timezone: "UTC", dates: ["2030-01-01"] }) { name } }', vars: () => ({ name: `cal-${unique()}` }) },
  'Mutation.deleteCalendar': { roles: ADMINS, kind: 'none', query: 'mutation { deleteCalendar(name: "no-such-calendar") }' },
  'Mutation.setNotificationChannel': {
    roles: ADMINS,
    kind: 'none',
    query: 'mutation($name: String!) { setNotificationChannel(input: { name: $name, kind: WEBHOOK, url: "http://127.0.0.1:9/hook" }) { name } }',
    vars: () => ({ name: `ch-${unique()}` }),
  },
  'Mutation.deleteNotificationChannel': { roles: ADMINS, kind: 'none', query: 'mutation { deleteNotificationChannel(name: "no-such-channel") }' },
  'Mutation.testNotificationChannel': { roles: ADMINS, kind: 'none', query: 'mutation { testNotificationChannel(name: "matrix-channel") }' },
  'Mutation.createApiToken': { roles: ADMINS, kind: 'none', query: 'mutation($name: String!) { createApiToken(name: $name, role: VIEWER, labelSelector: "team=billing") { secret } }', vars: () => ({ name: `tok-${unique()}` }) },
  'Mutation.revokeApiToken': {
    roles: ADMINS,
    kind: 'none',
    query: 'mutation($id: ID!) { revokeApiToken(id: $id) { id } }',
    vars: async () => ({ id: (await cronql.tokens.create({ name: `doomed-${unique()}`, role: TokenRole.VIEWER }, 'admin')).token.id }),
  },
  'Mutation.setConcurrencyPool': { roles: ADMINS, kind: 'none', query: 'mutation($name: String!) { setConcurrencyPool(name: $name, limit: 2) { name } }', vars: () => ({ name: `pool-${unique()}` }) },
  'Mutation.deleteConcurrencyPool': { roles: ADMINS, kind: 'none', query: 'mutation { deleteConcurrencyPool(name: "no-such-pool") }' },

  // ---- Subscriptions
  'Subscription.runChanged': { roles: READERS, kind: 'feed', query: 'subscription { runChanged { run { id status job { id } } } }' },
  'Subscription.runLogs': { roles: READERS, kind: 'byId', query: 'subscription($id: ID!) { runLogs(runId: $id) { sequence } }', vars: (f) => ({ id: f.runId }) },
};

/** The principals of the matrix (an ADMIN token cannot carry a scope: createApiToken refuses it). */
const PRINCIPALS: { role: AccessRole; scope: ScopeCase }[] = [
  { role: 'ADMIN', scope: 'none' },
  ...(['OPERATOR', 'VIEWER'] as const).flatMap((role) => (['none', 'matching', 'other'] as const).map((scope) => ({ role, scope }))),
];

const SCOPES: Record<ScopeCase, string | null> = { none: null, matching: 'team=billing', other: 'team=search' };

/** The token of a principal of the matrix. */
const principal = (role: AccessRole, scope: ScopeCase): string => tokens.get(`${role} ${scope}`)!;

interface Answer {
  status?: number;
  data?: unknown;
  errors?: readonly GraphQLFormattedError[];
}

/** Runs an operation with `token`: over HTTP, or a subscription over a WebSocket, read to its end (runLogs of an ended run ends at once). */
async function call(token: string, query: string, variables: Vars = {}): Promise<Answer> {
  const document = parse(query);
  const invalid = validate(schema, document);
  if (invalid.length) throw new Error(`the matrix's document does not validate: ${invalid.map((e) => e.message).join('; ')}: ${query}`);
  if (getOperationAST(document)?.operation !== 'subscription') return gql(api.url, query, variables, token);
  const client = wsClient(api.wsUrl, token);
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const data: unknown[] = [];
      const errors: GraphQLFormattedError[] = [];
      client.subscribe(
        { query, variables },
        {
          next: (r) => {
            data.push(r.data);
            errors.push(...(r.errors ?? []));
          },
          // An operation's errors come as an array; a closed socket as its event.
          error: (err) => (Array.isArray(err) ? resolve({ data, errors: [...errors, ...(err as GraphQLFormattedError[])] }) : reject(err)),
          complete: () => resolve({ data, errors }),
        },
      );
    });
  } finally {
    await client.dispose();
  }
}

const codesOf = (a: Answer) => (a.errors ?? []).map((e) => e.extensions?.code);

/** Every table's row count, and every row of jobs, runs and secrets: what "nothing changed" compares. */
async function state(): Promise<string> {
  const tables = await cronql.pool.query(`SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`);
  const counts = await cronql.pool.query(`SELECT ${tables.rows.map((t) => `(SELECT count(*) FROM "${t.tablename}") AS "${t.tablename}"`).join(', ')}`);
  const backfills = await cronql.pool.query('SELECT * FROM cron_backfills ORDER BY id');
  return JSON.stringify({ counts: counts.rows[0], backfills: backfills.rows }) + (await snapshot(cronql));
}

/** Waits until no run is waiting or running: what an allowed call started has ended before the next is measured. */
async function settle(): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    // A backfill still RUNNING has slots to start (its next run may not exist yet): it counts as in flight.
    const { rows } = await cronql.pool.query(
      `SELECT (SELECT count(*)::int FROM cron_job_runs WHERE status IN ('PENDING', 'RUNNING')) + (SELECT count(*)::int FROM cron_backfills WHERE state = 'RUNNING') AS n`,
    );
    if (rows[0].n === 0) return;
    if (Date.now() > deadline) throw new Error('runs still in flight after 30 s');
    await new Promise((resolve) => setImmediate(resolve));
    await cronql.pool.query('SELECT pg_sleep(0.02)');
  }
}

/** The answer with the fixture's ids written as their names: an answer about a job and one about no job compare equal. */
function normalized(a: Answer, f: Fixture): string {
  let text = JSON.stringify(a);
  for (const [name, value] of Object.entries(f)) text = text.split(value).join(`<${name}>`);
  return text;
}

/** Whether an answer shows the fixture's job: its id, key, run or backfill. */
const shows = (a: Answer, f: Fixture) => [f.jobId, f.key, f.runId, f.backfillId].some((v) => JSON.stringify(a.data ?? null).includes(v));

beforeAll(async () => {
  api = await startApi();
  cronql = api.cronql;
  schema = await cronqlSchema();
  await cronql.calendars.set({ name: 'matrix-days', timezone: 'UTC', dates: ['2031-01-01'] } as never, 'admin');
  await cronql.channels.set({ name: 'matrix-channel', kind: 'WEBHOOK', url: 'http://127.0.0.1:9/hook' } as never, 'admin');
  await cronql.secrets.set('MATRIX_TOKEN', 'secret-value', 'admin');
  const billing = await cronql.jobs.create({
    ...jobInput(`billing-report-${unique()}`, 'billing'),
    labels: { team: 'billing', matrix: 'fixture' },
    calendars: ['matrix-days'],
    payload: { token: '${secrets.MATRIX_TOKEN}' },
  } as never);
  const search = await cronql.jobs.create(jobInput(`search-index-${unique()}`, 'search', 'sleep') as never);
  other = { jobId: search.id, key: search.jobKey };
  const run = await cronql.runs.runNow(billing.id);
  await cronql.runs.runNow(search.id, { ms: 1 });
  const backfill = await cronql.backfills.backfill({ jobId: billing.id, from: new Date(Date.now() - 400 * DAY), to: new Date(Date.now() - 60_000), reason: 'matrix' }, 'admin');
  await settle();
  fx = { jobId: billing.id, key: billing.jobKey, runId: run.id, backfillId: backfill.id };
  tokens.set('ADMIN none', api.adminToken);
  for (const { role, scope } of PRINCIPALS.filter((p) => p.role !== 'ADMIN')) {
    const made = await cronql.tokens.create({ name: `${role.toLowerCase()}-${scope}`, role: role as TokenRole, labelSelector: SCOPES[scope] }, 'admin');
    tokens.set(`${role} ${scope}`, made.secret);
  }
});

afterAll(async () => {
  await api?.close();
});

describe('the roles × scopes matrix, walked from the schema', () => {
  const operations = async () => {
    const s = await cronqlSchema();
    return (['Query', 'Mutation', 'Subscription'] as const).flatMap((root) => {
      const type = root === 'Query' ? s.getQueryType() : root === 'Mutation' ? s.getMutationType() : s.getSubscriptionType();
      return Object.keys(type?.getFields() ?? {}).map((name) => `${root}.${name}`);
    });
  };

  test('every query, mutation and subscription has a rule here', async () => {
    const missing = (await operations()).filter((op) => !RULES[op]);
    expect(missing, 'operations without a roles × scopes rule in this test: say who may call them and what a scope does to them').toEqual([]);
  });

  const runnable = Object.entries(RULES).filter(([, rule]) => rule.kind !== 'feed');
  test.each(runnable)('%s', async (op, rule) => {
    if (!(await operations()).includes(op)) return; // announced in the contract, not in this schema yet
    for (const { role, scope } of PRINCIPALS) {
      const who = principal(role, scope);
      const cell = `${op} as ${role} with ${scope} scope`;
      await rule.prepare?.();
      const variables = (await rule.vars?.(fx)) ?? {};
      // Measured where nothing may change: a refused role, or a job out of scope.
      const refused = !rule.roles.includes(role) || (scope === 'other' && (rule.kind === 'byId' || rule.kind === 'bulk'));
      const before = refused ? await state() : '';
      const answer = await call(who, rule.query, variables);
      const codes = codesOf(answer);

      if (!rule.roles.includes(role)) {
        expect(codes, cell).toEqual(['FORBIDDEN']);
        expect(await state(), `${cell}: refused, yet something changed`).toBe(before);
        continue;
      }
      expect(codes, `${cell}: ${JSON.stringify(answer.errors)}`).not.toContain('FORBIDDEN');
      expect(codes, cell).not.toContain('INTERNAL_SERVER_ERROR');

      if (rule.kind === 'byId' && scope === 'other') {
        // Out of scope: the answer of an id that does not exist, word for word; nothing written.
        expect(await state(), `${cell}: out of scope, yet something changed`).toBe(before);
        const nobody: Fixture = { jobId: randomUUID(), key: `no-such-${unique()}`, runId: randomUUID(), backfillId: randomUUID() };
        const absent = await call(who, rule.query, (await rule.vars?.(nobody)) ?? {});
        expect(normalized(answer, fx), cell).toBe(normalized(absent, nobody));
        expect(shows(answer, fx), cell).toBe(false);
        continue;
      }
      if (rule.kind === 'list' || rule.kind === 'bulk') {
        expect(codes, cell).toEqual([]);
        if (rule.kind === 'list') {
          // Out of scope, nothing of the job shows, whatever the rule's own check says.
          if (scope === 'other') expect(shows(answer, fx), `${cell}: ${JSON.stringify(answer.data)}`).toBe(false);
          if (rule.shows !== false) expect((rule.shows ?? ((a: Answer) => shows(a, fx)))(answer), `${cell}: ${JSON.stringify(answer.data)}`).toBe(scope !== 'other');
        }
        if (rule.kind === 'bulk') {
          const changed = Object.values(answer.data as Record<string, number>)[0];
          expect(changed, cell).toBe(scope === 'other' ? 0 : 1);
          if (scope === 'other') expect(await state(), `${cell}: out of scope, yet something changed`).toBe(before);
        }
        if (op.startsWith('Mutation.')) await settle();
        continue;
      }
      // In scope (or none): past auth and scope — the call's own rules may still refuse it (INVALID_STATE …).
      expect(codes, `${cell}: ${JSON.stringify(answer.errors)}`).not.toContain('NOT_FOUND');
      if (rule.kind === 'byId' && op.startsWith('Query.')) expect(shows(answer, fx), cell).toBe(true);
      if (op.startsWith('Mutation.')) await settle();
    }
  });
});

describe('runChanged', () => {
  test('each subscriber gets the changes of the runs of its scope only', async () => {
    type Change = { runChanged: { run: { id: string; status: string } } };
    const subscribers = PRINCIPALS.map(({ role, scope }) => {
      const client = wsClient(api.wsUrl, principal(role, scope));
      return { scope, client, feed: new Feed<Change>(client, parse(RULES['Subscription.runChanged'].query)) };
    });
    try {
      // Each subscription is live once a change reaches it: runs of both jobs until every feed has one.
      const deadline = Date.now() + 30_000;
      while (subscribers.some((s) => s.feed.events.length === 0)) {
        if (Date.now() > deadline) throw new Error(`the subscriptions did not start within 30 s: ${JSON.stringify(subscribers.map((s) => [s.scope, s.feed.events.length, s.feed.errors]))}`);
        const probes = [await cronql.runs.runNow(fx.jobId), await cronql.runs.runNow(other.jobId, { ms: 1 })].map((r) => r.id);
        await Promise.all(subscribers.map((s) => s.feed.waitFor((e) => probes.includes(e.runChanged.run.id), 1_000).catch(() => undefined)));
      }
      // billing, search, billing, search: each run's changes all published (the unscoped ADMIN has
      // its end) before the next run exists, and each socket delivers in order — so a feed that has
      // the last run it may see has had every chance to get the others.
      const ran: { id: string; team: 'billing' | 'search' }[] = [];
      for (const team of ['billing', 'search', 'billing', 'search'] as const) {
        // A probe's run may still be active: a run-now beside it would be SKIPPED (OVERLAP), never SUCCEEDED.
        await settle();
        const run = team === 'billing' ? await cronql.runs.runNow(fx.jobId) : await cronql.runs.runNow(other.jobId, { ms: 1 });
        await subscribers[0].feed.waitFor((e) => e.runChanged.run.id === run.id && e.runChanged.run.status === 'SUCCEEDED', 20_000);
        ran.push({ id: run.id, team });
      }
      const sees = (scope: ScopeCase, team: 'billing' | 'search') => scope === 'none' || (scope === 'matching') === (team === 'billing');
      for (const s of subscribers) {
        const last = ran.filter((r) => sees(s.scope, r.team)).at(-1)!;
        await s.feed.waitFor((e) => e.runChanged.run.id === last.id && e.runChanged.run.status === 'SUCCEEDED', 20_000);
        for (const r of ran) expect(s.feed.events.some((e) => e.runChanged.run.id === r.id), `${s.scope} scope, ${r.team}'s run`).toBe(sees(s.scope, r.team));
        expect(s.feed.errors).toEqual([]);
      }
    } finally {
      for (const s of subscribers) {
        s.feed.close();
        await s.client.dispose();
      }
    }
    await settle();
  });
});

describe('a job that leaves the scope by a new version', () => {
  test('disappears for the token at once: reads, lists, actions; its old version stays as it was', async () => {
    const who = principal('OPERATOR', 'matching');
    const v1 = await cronql.jobs.create(jobInput(`moving-${unique()}`, 'billing') as never);
    expect(codesOf(await call(who, 'mutation($id: ID!) { pauseJob(id: $id, reason: "before") { id } }', { id: v1.id }))).toEqual([]);
    const v2 = await cronql.jobs.createVersion(v1.id, { labels: { team: 'search' } } as never, 'admin');

    expect((await call(who, 'query($id: ID!) { job(id: $id) { id } }', { id: v2.id })).data).toEqual({ job: null });
    const listed = await call(who, 'query($key: String!) { jobs(filter: { key: $key }) { totalCount nodes { id } } }', { key: v1.jobKey });
    expect(listed.data).toEqual({ jobs: { totalCount: 1, nodes: [{ id: v1.id }] } }); // the retired v1, made while it was billing's
    // …whose successor it cannot follow.
    expect((await call(who, 'query($id: ID!) { job(id: $id) { supersededBy { id } } }', { id: v1.id })).data).toEqual({ job: { supersededBy: null } });
    const before = await state();
    for (const [query, vars] of [
      ['mutation($id: ID!) { resumeJob(id: $id) { id } }', { id: v2.id }],
      ['mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: v2.id }],
      // A backfill runs the live version: the old version's id does not reach it.
      ['mutation($id: ID!, $from: DateTime!, $to: DateTime!) { backfillJob(id: $id, from: $from, to: $to, reason: "x") { id } }', { id: v1.id, from: past(3), to: past(1) }],
    ] as const) {
      const answer = await call(who, query, vars);
      expect(codesOf(answer), query).toEqual(['NOT_FOUND']);
      expect(answer.errors?.[0].message).toBe(`no job with id ${vars.id}`);
    }
    expect(await state()).toBe(before);
  });
});
