import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Deliverer } from '../../src/alerts/deliverer.js';
import { NOTIFICATIONS } from '../../src/config.js';
import { OutboxStore } from '../../src/db/notification-outbox.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually } from '../support/cronql.js';
import { codes, gql, startApi, type Api } from '../graphql/support.js';

/**
 * Notification channels end to end, through the GraphQL API of one cronql on a manual clock:
 * routing by `notify` (one alert per transition), the Standard Webhooks signature checked with
 * the spec's reference library, the Slack body, JOB_LATE, channel input validation, and a
 * channel's URL (a credential) in no answer and no log.
 */

interface Hit {
  channel: string;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Record<string, unknown>;
  status: number;
}

/** Every channel's path carries this token: it must appear in no answer and no log. */
const TOKEN = `tok${randomBytes(12).toString('hex')}`;
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const hits: Hit[] = [];
/** Channels whose receiver answers 503. */
const down = new Set(['down']);
let server: Server;
let base = '';
const urlOf = (channel: string) => `${base}/${TOKEN}/${channel}`;

const lines: string[] = [];
const log = pino({ level: 'debug' }, { write: (s: string) => void lines.push(s) });
/** Every GraphQL answer's text. */
const answers: string[] = [];

const clock = new ManualClock('2026-06-01T12:00:00.500Z');
const failing = new Set<string>();
let api: Api;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const channel = (req.url ?? '').split('/').pop()!;
      const status = down.has(channel) ? 503 : 200;
      hits.push({ channel, headers: req.headers, raw, body: JSON.parse(raw), status });
      res.statusCode = status;
      res.end(status === 200 ? 'ok' : 'not now');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = await startApi({
    clock,
    instanceId: 'notify',
    httpAllowPrivate: true,
    publicUrl: 'https://cron.example.com',
    log,
    targets: {
      flaky: async (ctx) => {
        if (failing.has(ctx.run.jobKey)) throw Object.assign(new Error('upstream down'), { code: 'UPSTREAM_DOWN' });
        return { ok: true };
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function admin<R = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, token = api.adminToken) {
  const res = await gql<R, Record<string, unknown>>(api.url, query, variables, token);
  answers.push(JSON.stringify(res));
  return res;
}

const SET = `mutation($input: NotificationChannelInput!) { setNotificationChannel(input: $input) { name kind urlHost events default lastDeliveryAt lastError } }`;
const CHANNELS = `{ notificationChannels { name kind urlHost events default lastDeliveryAt lastError } }`;
const CREATE = `mutation($input: CreateJobInput!) { createJob(input: $input) { id key notify expectSuccessWithinSeconds } }`;

async function createJob(input: Record<string, unknown>): Promise<string> {
  const res = await admin<{ createJob: { id: string } }>(CREATE, { input: { target: 'flaky', scheduleType: 'RECURRING', cronExpression: '*/10 * * * * *', ...input } });
  if (!res.data) throw new Error(JSON.stringify(res.errors));
  return res.data.createJob.id;
}

/** Moves the clock to each 10-second slot up to `to` (ISO time of day), the runs of each ended; with `sweep`, a maintenance pass after each. */
async function stepTo(time: string, sweep = false): Promise<void> {
  const target = new Date(`2026-06-01T${time}Z`).getTime();
  for (let t = Math.floor(clock.now().getTime() / 10_000) * 10_000 + 10_000; t <= target; t += 10_000) {
    clock.set(new Date(t).toISOString());
    await api.cronql.runtime!.whenIdle();
    if (sweep) await api.cronql.runtime!.sweep();
  }
}

/** The events a channel received (2xx answered), in order. */
const received = (channel: string) => hits.filter((h) => h.channel === channel && h.status === 200).map((h) => h.body.event);

async function drained(): Promise<void> {
  await eventually(async () => (await api.cronql.notifications.pending()) === 0, 15_000);
  await api.cronql.notifications.idle();
}

describe('notification channels', () => {
  it('validates a channel with every form of each argument, refuses a VIEWER, and changes nothing on bad input', async () => {
    const good = { name: 'team-a', kind: 'WEBHOOK', url: urlOf('team-a'), secret: SECRET };
    const bad: [string, Record<string, unknown>, string][] = [
      ['name', { name: '' }, 'BAD_USER_INPUT'],
      ['name', { name: 'with space' }, 'BAD_USER_INPUT'],
      ['name', { name: '-dash' }, 'BAD_USER_INPUT'],
      ['name', { name: 'x'.repeat(65) }, 'BAD_USER_INPUT'],
      ['name', { name: null }, 'BAD_USER_INPUT'],
      ['name', { name: undefined }, 'BAD_USER_INPUT'],
      ['kind', { kind: 'EMAIL' }, 'BAD_USER_INPUT'],
      ['url', { url: '' }, 'BAD_USER_INPUT'],
      ['url', { url: 'ftp://127.0.0.1/x' }, 'BAD_USER_INPUT'],
      ['url', { url: 'not a url' }, 'BAD_USER_INPUT'],
      ['url', { url: `http://user:pw@127.0.0.1/${TOKEN}` }, 'BAD_USER_INPUT'],
      ['url', { url: `${base}/${'a'.repeat(2_100)}` }, 'BAD_USER_INPUT'],
      ['url', { url: `${base}/\u0000` }, 'BAD_USER_INPUT'],
      ['url', { url: null }, 'BAD_USER_INPUT'],
      ['secret', { secret: 'short' }, 'BAD_USER_INPUT'],
      ['secret', { secret: 'whsec_!!!not-base64!!!' }, 'BAD_USER_INPUT'],
      ['secret', { secret: `whsec_${randomBytes(8).toString('base64')}` }, 'BAD_USER_INPUT'],
      ['secret', { secret: 'x'.repeat(1_025) }, 'BAD_USER_INPUT'],
      ['secret', { kind: 'SLACK', secret: 'a-long-enough-plain-secret' }, 'BAD_USER_INPUT'],
      ['events', { events: [] }, 'BAD_USER_INPUT'],
      ['events', { events: ['RUN_EXPLODED'] }, 'BAD_USER_INPUT'],
    ];
    for (const [field, change, code] of bad) {
      const res = await admin(SET, { input: { ...good, ...change } });
      expect(codes(res), `${field} ${JSON.stringify(change).slice(0, 80)}`).toEqual([code]);
      if (res.errors![0].extensions?.field !== undefined) expect(res.errors![0].extensions?.field).toBe(field);
    }
    // Literals: the same rules.
    const literal = await admin(`mutation { setNotificationChannel(input: { name: "lit", kind: WEBHOOK, url: "ftp://x/y" }) { name } }`);
    expect(codes(literal)).toEqual(['BAD_USER_INPUT']);
    const literalKind = await admin(`mutation { setNotificationChannel(input: { name: "lit", kind: EMAIL, url: "${base}/x" }) { name } }`);
    expect(codes(literalKind)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    expect((await admin<{ notificationChannels: unknown[] }>(CHANNELS)).data!.notificationChannels).toEqual([]);

    // VIEWER: neither way.
    expect(codes(await admin(CHANNELS, undefined, api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(codes(await admin(SET, { input: good }, api.viewerToken))).toEqual(['FORBIDDEN']);
    expect(codes(await admin(`mutation { testNotificationChannel(name: "team-a") }`, undefined, api.viewerToken))).toEqual(['FORBIDDEN']);

    // Valid: a WEBHOOK with a whsec_ secret, one without, a default one, a SLACK one, one that fails.
    const set = await admin<{ setNotificationChannel: Record<string, unknown> }>(SET, { input: good });
    expect(set.data!.setNotificationChannel).toEqual({
      name: 'team-a', kind: 'WEBHOOK', urlHost: new URL(base).host, default: false, lastDeliveryAt: null, lastError: null,
      events: ['RUN_FAILED', 'JOB_RECOVERED', 'JOB_AUTO_PAUSED', 'RUNS_LOST', 'SLOTS_MISSED', 'JOB_LATE'],
    });
    for (const input of [
      { name: 'team-b', kind: 'WEBHOOK', url: urlOf('team-b'), secret: 'a-plain-shared-secret-of-some-length' },
      { name: 'fallback', kind: 'WEBHOOK', url: urlOf('fallback'), default: true },
      { name: 'slack', kind: 'SLACK', url: urlOf('slack'), events: ['RUN_FAILED', 'RUN_FAILED', 'JOB_LATE'] },
      { name: 'down', kind: 'WEBHOOK', url: urlOf('down') },
    ]) {
      expect(codes(await admin(SET, { input }))).toEqual([]);
    }
    const listed = (await admin<{ notificationChannels: { name: string; events: string[] }[] }>(CHANNELS)).data!.notificationChannels;
    expect(listed.map((c) => c.name)).toEqual(['down', 'fallback', 'slack', 'team-a', 'team-b']);
    expect(listed.find((c) => c.name === 'slack')!.events).toEqual(['RUN_FAILED', 'JOB_LATE']);

    // A job's notify: names that exist, at most 10, each a name.
    const notifyCases: [unknown, string][] = [
      [['nope'], 'UNKNOWN_CHANNEL'],
      [['team-a', 'nope'], 'UNKNOWN_CHANNEL'],
      [Array.from({ length: 11 }, (_, i) => `c${i}`), 'BAD_USER_INPUT'],
      [['bad name'], 'BAD_USER_INPUT'],
      [[''], 'BAD_USER_INPUT'],
    ];
    for (const [notify, code] of notifyCases) {
      expect(codes(await admin(CREATE, { input: { key: 'refused', target: 'flaky', scheduleType: 'RECURRING', cronExpression: '0 0 * * *', notify } })), JSON.stringify(notify)).toEqual([code]);
    }
    for (const expectSuccessWithinSeconds of [0, -1, 2_678_401]) {
      expect(codes(await admin(CREATE, { input: { key: 'refused', target: 'flaky', scheduleType: 'RECURRING', cronExpression: '0 0 * * *', expectSuccessWithinSeconds } }))).toEqual(['BAD_USER_INPUT']);
    }
    const plain = await admin<{ createJob: { notify: string[]; expectSuccessWithinSeconds: number | null } }>(CREATE, {
      input: { key: 'plain', target: 'flaky', scheduleType: 'RECURRING', cronExpression: '0 0 * * *', notify: null },
    });
    expect(plain.data!.createJob).toMatchObject({ notify: [], expectSuccessWithinSeconds: null });
    const literalNotify = await admin<{ createJob: { notify: string[] } }>(
      `mutation { createJob(input: { key: "literal", target: "flaky", scheduleType: RECURRING, cronExpression: "0 0 * * *", notify: ["team-b", "team-b"], expectSuccessWithinSeconds: 60 }) { notify expectSuccessWithinSeconds } }`,
    );
    expect(literalNotify.data!.createJob).toEqual({ notify: ['team-b'], expectSuccessWithinSeconds: 60 });
    // A channel live jobs name is not deleted; an unknown one is not there to delete.
    expect(codes(await admin(`mutation { deleteNotificationChannel(name: "team-b") }`))).toEqual(['CHANNEL_IN_USE']);
    expect((await admin<{ deleteNotificationChannel: boolean }>(`mutation { deleteNotificationChannel(name: "ghost") }`)).data!.deleteNotificationChannel).toBe(false);
    for (const key of ['plain', 'literal']) {
      const job = await api.cronql.jobs.list({ key }, 1);
      await api.cronql.jobs.retire(job.nodes[0]!.id);
    }
  });

  it('a job failing twice then succeeding sends RUN_FAILED once and JOB_RECOVERED once to its channel and nothing to others; signed as Standard Webhooks say', async () => {
    const id = await createJob({ key: 'routed', notify: ['team-a'] });
    failing.add('routed');
    await stepTo('12:00:20');
    failing.delete('routed');
    await stepTo('12:00:30');
    await api.cronql.jobs.pause(id, 'done');
    await eventually(() => received('team-a').length >= 2, 15_000);
    await drained();
    expect(received('team-a')).toEqual(['RUN_FAILED', 'JOB_RECOVERED']);
    for (const other of ['team-b', 'fallback', 'slack', 'down']) expect(hits.filter((h) => h.channel === other)).toEqual([]);

    const [failed, recovered] = hits.filter((h) => h.channel === 'team-a');
    expect(failed!.body).toMatchObject({
      kind: 'run.failed', event: 'RUN_FAILED', instanceId: 'notify', consecutiveFailures: 1,
      job: { id, key: 'routed', version: 1, target: 'flaky' },
      run: { status: 'FAILED', failureCode: 'UPSTREAM_DOWN', failureMessage: 'upstream down', scheduledAt: '2026-06-01T12:00:10.000Z', trigger: 'SCHEDULED' },
    });
    expect(recovered!.body).toMatchObject({ kind: 'job.recovered', event: 'JOB_RECOVERED', run: { status: 'SUCCEEDED', scheduledAt: '2026-06-01T12:00:30.000Z' } });
    expect(failed!.headers['x-cronql-signature']).toBeUndefined(); // only the env channel keeps it

    // The reference implementation verifies every delivery; a replay later than its tolerance is refused.
    const wh = new Webhook(SECRET);
    for (const h of [failed!, recovered!]) {
      expect(h.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(wh.verify(h.raw, h.headers as Record<string, string>)).toMatchObject({ event: h.body.event });
    }
    expect(failed!.headers['webhook-id']).not.toBe(recovered!.headers['webhook-id']);
    const headers = failed!.headers as Record<string, string>;
    // The same request replayed ten minutes later: too old.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 10 * 60_000);
      expect(() => wh.verify(failed!.raw, headers)).toThrow(/too old/i);
    } finally {
      vi.useRealTimers();
    }
    // Its timestamp made fresh by hand: the signature no longer matches.
    const fresh = { ...headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 1) };
    expect(() => wh.verify(failed!.raw, fresh)).toThrow();
    // Another secret does not verify it either.
    expect(() => new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(failed!.raw, headers)).toThrow();
  });

  it('a SLACK channel gets a readable message with a link to the run in the dashboard; a default channel hears jobs that name none', async () => {
    const slacked = await createJob({ key: 'slacked', notify: ['slack'] });
    const unnamed = await createJob({ key: 'unnamed' });
    failing.add('slacked');
    failing.add('unnamed');
    await stepTo('12:00:40');
    await api.cronql.jobs.pause(slacked, 'done');
    await api.cronql.jobs.pause(unnamed, 'done');
    await eventually(() => received('slack').length >= 1 && received('fallback').length >= 1, 15_000);
    await drained();
    const slack = hits.filter((h) => h.channel === 'slack');
    expect(slack).toHaveLength(1);
    const run = (await api.cronql.runs.list({ jobId: slacked }, 5)).nodes.find((r) => r.status === 'FAILED')!;
    expect(slack[0]!.body).toEqual({
      text: `:red_circle: Job \`slacked\` v1 failed (UPSTREAM_DOWN: upstream down). <https://cron.example.com/dashboard/#/runs/${run.id}|Open the run>`,
    });
    expect(slack[0]!.headers['content-type']).toBe('application/json');
    expect(slack[0]!.headers['webhook-signature']).toBeUndefined();
    expect(hits.filter((h) => h.channel === 'fallback').map((h) => [h.body.event, (h.body.job as { key: string }).key])).toEqual([['RUN_FAILED', 'unnamed']]);
  });

  it('JOB_LATE fires once when a job is still failing past its deadline, and again only after it has recovered', async () => {
    const id = await createJob({ key: 'late', notify: ['team-b'], expectSuccessWithinSeconds: 25 });
    failing.add('late');
    await stepTo('12:01:20', true); // slots 12:00:50 … 12:01:20 fail: 12:00:50 + 25 s has passed without a success
    await eventually(() => received('team-b').includes('JOB_LATE'), 15_000);
    await stepTo('12:01:40', true); // still failing: no second JOB_LATE
    failing.delete('late');
    await stepTo('12:02:20', true); // recovered
    await api.cronql.jobs.pause(id, 'done');
    await eventually(() => received('team-b').includes('JOB_RECOVERED'), 15_000);
    await drained();
    expect(received('team-b')).toEqual(['RUN_FAILED', 'JOB_LATE', 'JOB_RECOVERED']);
    const late = hits.find((h) => h.channel === 'team-b' && h.body.event === 'JOB_LATE')!;
    expect(late.body).toMatchObject({
      kind: 'job.late', job: { id, key: 'late' }, slot: '2026-06-01T12:00:50.000Z', deadline: '2026-06-01T12:01:15.000Z', expectSuccessWithinSeconds: 25,
    });
    expect(new Webhook(Buffer.from('a-plain-shared-secret-of-some-length').toString('base64')).verify(late.raw, late.headers as Record<string, string>)).toBeTruthy();
  });

  it('a test delivery is written already claimed: no other instance\'s deliverer can take it before its attempt', async () => {
    // Another instance's deliverer polls the outbox the instant the row is written.
    const mine = new OutboxStore(api.cronql.pool);
    const theirs = new OutboxStore(api.cronql.pool);
    const claimed = await mine.insertClaimed('team-a', 'TEST', { channel: 'team-a' }, new Date(), 30_000);
    expect(claimed).toMatchObject({ event: 'TEST', attempt: 1, channel: { name: 'team-a' } });
    const taken = await theirs.claimHeads(30_000, 100, true);
    expect(taken.map((c) => c.id)).not.toContain(claimed!.id);
    await mine.delivered(claimed!.id, new Date());
  });

  it('testNotificationChannel sends now; a failure is the channel’s lastError; the URL is in no answer and no log, only its host', async () => {
    const test = `mutation($name: String!) { testNotificationChannel(name: $name) }`;
    expect((await admin<{ testNotificationChannel: boolean }>(test, { name: 'team-a' })).data!.testNotificationChannel).toBe(true);
    const tests = hits.filter((h) => h.body.event === 'TEST' && h.channel === 'team-a');
    expect(tests).toHaveLength(1);
    expect(tests[0]!.body).toMatchObject({ kind: 'test', channel: 'team-a' });
    const failedTests = async () => Number((await api.cronql.metrics.text()).match(/^cronql_notifications_failed_total\{event="TEST",final="true"\} (\d+)$/m)?.[1] ?? 0);
    const failedBefore = await failedTests();
    expect((await admin<{ testNotificationChannel: boolean }>(test, { name: 'down' })).data!.testNotificationChannel).toBe(false);
    expect((await failedTests()) - failedBefore).toBe(1);
    expect(codes(await admin(test, { name: 'ghost' }))).toEqual(['NOT_FOUND']);
    expect(codes(await admin(test, { name: 'bad name' }))).toEqual(['BAD_USER_INPUT']);
    const listed = (await admin<{ notificationChannels: { name: string; lastError: string | null; lastDeliveryAt: string | null }[] }>(CHANNELS)).data!.notificationChannels;
    const byName = Object.fromEntries(listed.map((c) => [c.name, c]));
    expect(byName.down!.lastError).toBe(`HTTP_STATUS: http: POST ${new URL(base).host} answered 503`);
    expect(byName['team-a']).toMatchObject({ lastError: null, lastDeliveryAt: expect.any(String) });
    expect(lines.some((l) => l.includes('delivery attempt failed'))).toBe(true);

    // (An answer refusing a request's variables may quote them back — the caller's own text — as graphql-js does; only answers that are not such refusals count.)
    const own = (a: string) => a.includes('got invalid value');
    const everything = [...answers.filter((a) => !own(a)), ...lines];
    expect(everything.filter((t) => t.includes(TOKEN) || t.includes(SECRET.slice(6)))).toEqual([]);
    expect(everything.some((t) => t.includes(new URL(base).host))).toBe(true);
  });

  it('a channel\'s URL and secret are stored sealed: no row of channels, outbox or audit log holds them, only the host', async () => {
    const { pool } = api.cronql;
    const rows = await pool.query(`SELECT name, url_host, url_ciphertext, secret_ciphertext, t::text AS whole FROM cron_notification_channels t WHERE name IN ('team-a', 'slack') ORDER BY name`);
    expect(rows.rows.map((r) => [r.name, r.url_host])).toEqual([['slack', new URL(base).host], ['team-a', new URL(base).host]]);
    const plain = [TOKEN, SECRET, SECRET.slice(6), urlOf('team-a'), urlOf('slack')];
    for (const r of rows.rows) {
      expect(Buffer.isBuffer(r.url_ciphertext) && r.url_ciphertext.length > 0).toBe(true);
      for (const text of plain) {
        expect(r.whole.includes(text)).toBe(false);
        expect((r.url_ciphertext as Buffer).includes(Buffer.from(text))).toBe(false);
      }
    }
    expect(rows.rows.find((r) => r.name === 'team-a')!.secret_ciphertext).toBeInstanceOf(Buffer);
    const elsewhere = await pool.query(`SELECT t::text AS whole FROM cron_notification_outbox t UNION ALL SELECT a::text FROM cron_audit_log a`);
    expect(elsewhere.rows.length).toBeGreaterThan(0);
    expect(elsewhere.rows.filter((r) => plain.some((text) => (r.whole as string).includes(text)))).toEqual([]);
    // Opened with the secrets key, it is the URL given.
    expect((await api.cronql.channels.open('team-a'))!.url).toBe(urlOf('team-a'));
  });

  it('deliveries pass the http target\'s address guard: without CRONQL_HTTP_ALLOW_PRIVATE a loopback channel is refused, nothing sent', async () => {
    const guarded = new Deliverer({ pool: api.cronql.pool, channels: api.cronql.channels, log, instanceId: 'guarded', now: () => clock.now(), allowPrivate: false, bounds: NOTIFICATIONS });
    const before = hits.length;
    expect(await guarded.test('team-a')).toBe(false);
    expect(hits.length).toBe(before);
    const listed = (await admin<{ notificationChannels: { name: string; lastError: string | null }[] }>(CHANNELS)).data!.notificationChannels;
    expect(listed.find((c) => c.name === 'team-a')!.lastError).toBe(
      `HTTP_BLOCKED: http: 127.0.0.1 is not a public address (loopback); set CRONQL_HTTP_ALLOW_PRIVATE=true to allow it`,
    );
    // The same channel through the instance that may call private addresses: delivered.
    expect((await admin<{ testNotificationChannel: boolean }>(`mutation { testNotificationChannel(name: "team-a") }`)).data!.testNotificationChannel).toBe(true);
    expect(hits.length).toBe(before + 1);
    await guarded.stop();
  });
});
