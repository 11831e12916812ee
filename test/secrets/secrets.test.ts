import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeError } from '../../src/logger.js';
import { eventually } from '../support/cronql.js';
import { gql, startApi, wsClient, wsOnce, type Api } from '../graphql/support.js';

/**
 * Secrets through the public API: a value set with setSecret is referenced as ${secrets.NAME},
 * stored as the reference, resolved only in the handler's copy, and never found again — not in
 * any API answer, run row, event, log line — even when the handler echoes it back in its output,
 * in a thrown message, in error details and in its logs. Rotation, deletion, unknown names, names
 * out of shape, the VIEWER, and the table at rest.
 */
const VALUE = 'sk_live_9f8e7d6c5b4a-THE-SECRET';
const ROTATED = 'sk_live_rotated-0123456789';

describe('secrets', () => {
  let api: Api;
  const lines: string[] = [];
  const changes: string[] = [];
  const seen: { token?: string }[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const log = pino({ level: 'trace', serializers: { err: serializeError } }, sink);
    api = await startApi({
      log,
      targets: {
        // Echoes what it got every way a handler can.
        echo: async (ctx: { payload: { headers: { authorization: string } }; log: { info: (o: unknown, m: string) => void } }) => {
          seen.push({ token: ctx.payload.headers.authorization });
          ctx.log.info({ got: ctx.payload }, `calling with ${ctx.payload.headers.authorization}`);
          return { echoed: ctx.payload, note: `token was ${ctx.payload.headers.authorization}` };
        },
        leak: async (ctx: { payload: { headers: { authorization: string } } }) => {
          throw Object.assign(new Error(`upstream refused ${ctx.payload.headers.authorization}`), {
            code: 'UPSTREAM_REFUSED',
            details: { sent: ctx.payload.headers.authorization, nested: [{ value: ctx.payload.headers.authorization }] },
          });
        },
      },
    });
    api.cronql.events.on((c) => changes.push(JSON.stringify(c)));
  });
  afterAll(() => api.close());

  const admin = <R>(query: string, variables?: Record<string, unknown>) => gql<R, unknown>(api.url, query, variables, api.adminToken);
  const payload = { url: 'https://api.example.com', headers: { authorization: 'Bearer ${secrets.API_KEY}' } };
  const runNow = async (jobId: string) => {
    const res = await admin<{ runJobNow: { id: string } }>(`mutation($id: ID!) { runJobNow(id: $id) { id } }`, { id: jobId });
    const id = res.data!.runJobNow.id;
    return eventually(async () => {
      const r = await admin<{ run: Record<string, unknown> }>(
        `query($id: ID!) { run(id: $id) { id status payloadSnapshot output failureCode failureMessage failureDetails } }`,
        { id },
      );
      return ['SUCCEEDED', 'FAILED'].includes(r.data!.run.status as string) ? r.data!.run : null;
    });
  };
  let echoJob = '';

  it('setSecret stores it; a job references it; the run’s handler gets the value; nothing shows it again', async () => {
    const set = await admin<{ setSecret: { name: string; createdAt: string } }>(`mutation { setSecret(name: "API_KEY", value: "${VALUE}") { name createdAt } }`);
    expect(set.data!.setSecret.name).toBe('API_KEY');
    const made = await admin<{ createJob: { id: string; payload: unknown } }>(
      `mutation($input: CreateJobInput!) { createJob(input: $input) { id payload } }`,
      { input: { key: 'webhook', target: 'echo', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', payload } },
    );
    echoJob = made.data!.createJob.id;
    expect(made.data!.createJob.payload).toEqual(payload); // the reference is what is stored
    const leakJob = (await admin<{ createJob: { id: string } }>(
      `mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`,
      { input: { key: 'leaky', target: 'leak', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', payload } },
    )).data!.createJob.id;

    const ok = await runNow(echoJob);
    expect(seen.at(-1)!.token).toBe(`Bearer ${VALUE}`); // the handler had the value
    expect(ok.status).toBe('SUCCEEDED');
    expect(ok.payloadSnapshot).toEqual(payload);
    expect(ok.output).toEqual({ echoed: { ...payload, headers: { authorization: 'Bearer [secret:API_KEY]' } }, note: 'token was Bearer [secret:API_KEY]' });
    const failed = await runNow(leakJob);
    expect(failed).toMatchObject({ status: 'FAILED', failureCode: 'UPSTREAM_REFUSED', failureMessage: 'upstream refused Bearer [secret:API_KEY]' });
    expect(failed.failureDetails).toEqual({ sent: 'Bearer [secret:API_KEY]', nested: [{ value: 'Bearer [secret:API_KEY]' }] });
    await api.cronql.runtime!.whenIdle();

    // Scan everything: every API answer, every row of every table, every event, every log line.
    const answers = [
      await admin(`{ runs(first: 100) { nodes { id payloadSnapshot output failureCode failureMessage failureDetails job { payload } } } }`),
      await admin(`{ jobs(first: 100) { nodes { id payload runs(first: 50) { nodes { output failureMessage failureDetails } } } } }`),
      await admin(`{ secrets { name createdAt updatedAt usedBy { key } } }`),
      await admin(`{ stats { byTarget { target runs } } }`).catch(() => ({})),
    ];
    const tables = await api.cronql.pool.query(
      `SELECT (SELECT json_agg(r)::text FROM cron_job_runs r) AS runs, (SELECT json_agg(j)::text FROM cron_job_definitions j) AS jobs,
              (SELECT json_agg(s)::text FROM cron_secrets s) AS secrets`,
    );
    const everything = [JSON.stringify(answers), JSON.stringify(tables.rows), ...changes, ...lines].join('\n');
    expect(everything).not.toContain(VALUE);
    expect(lines.join('')).toContain('calling with Bearer [secret:API_KEY]'); // the handler's log line, redacted
    expect(answers[2]).toMatchObject({ data: { secrets: [{ name: 'API_KEY', usedBy: [{ key: 'leaky' }, { key: 'webhook' }] }] } });
  });

  it('at rest: the table holds no plaintext (not as text, not as bytes)', async () => {
    const rows = await api.cronql.pool.query('SELECT name, iv, ciphertext, tag, row_to_json(s)::text AS text FROM cron_secrets s');
    for (const r of rows.rows) {
      expect(r.text).not.toContain(VALUE);
      expect((r.ciphertext as Buffer).indexOf(Buffer.from(VALUE))).toBe(-1);
      expect((r.ciphertext as Buffer).indexOf(Buffer.from(VALUE.slice(0, 8)))).toBe(-1);
      expect((r.iv as Buffer).length).toBe(12);
      expect((r.tag as Buffer).length).toBe(16);
    }
  });

  it('rotation takes effect at the next run, without a new version', async () => {
    await admin(`mutation { setSecret(name: "API_KEY", value: "${ROTATED}") { updatedAt } }`);
    await runNow(echoJob);
    expect(seen.at(-1)!.token).toBe(`Bearer ${ROTATED}`);
    const versions = await admin<{ job: { version: number } }>(`query($id: ID!) { job(id: $id) { version } }`, { id: echoJob });
    expect(versions.data!.job.version).toBe(1);
  });

  it('a job naming an unknown secret is refused (create and version); a run whose secret was deleted fails UNKNOWN_SECRET', async () => {
    const bad = { ...payload, headers: { authorization: '${secrets.NOPE}' } };
    const created = await admin(`mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, {
      input: { key: 'nope', target: 'echo', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', payload: bad },
    });
    expect(created.errors?.[0]?.extensions?.code).toBe('UNKNOWN_SECRET');
    const versioned = await admin(`mutation($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { id } }`, { id: echoJob, input: { payload: bad } });
    expect(versioned.errors?.[0]?.extensions?.code).toBe('UNKNOWN_SECRET');

    await admin(`mutation { setSecret(name: "SHORT_LIVED", value: "temporary-value") { name } }`);
    const job = (await admin<{ createJob: { id: string } }>(`mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, {
      input: { key: 'orphan', target: 'echo', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', payload: { headers: { authorization: '${secrets.SHORT_LIVED}' } } },
    })).data!.createJob.id;
    expect((await admin<{ deleteSecret: boolean }>(`mutation { deleteSecret(name: "SHORT_LIVED") }`)).data!.deleteSecret).toBe(true);
    expect((await admin<{ deleteSecret: boolean }>(`mutation { deleteSecret(name: "SHORT_LIVED") }`)).data!.deleteSecret).toBe(false);
    const run = await runNow(job);
    expect(run).toMatchObject({ status: 'FAILED', failureCode: 'UNKNOWN_SECRET' });
    expect(String(run.failureMessage)).toContain('${secrets.SHORT_LIVED}');
  });

  const badNames: unknown[] = ['', 'lower', 'A'.repeat(65), '1ABC', 'ÄBC', 'A-B', 'A B', ' API', 'API\u0000', '${secrets.X}'];
  for (const name of badNames) {
    for (const form of ['variables', 'literal'] as const) {
      it(`refuses the name ${JSON.stringify(name)} (${form}) with INVALID_SECRET_NAME, changing nothing`, async () => {
        const before = (await api.cronql.pool.query('SELECT count(*)::int AS n FROM cron_secrets')).rows[0].n;
        const set =
          form === 'variables'
            ? await admin(`mutation($name: String!) { setSecret(name: $name, value: "some-value") { name } }`, { name })
            : await admin(`mutation { setSecret(name: ${JSON.stringify(name)}, value: "some-value") { name } }`);
        const code = set.errors?.[0]?.extensions?.code;
        // A NUL never reaches the rules (the input layer refuses it first).
        expect(code === 'INVALID_SECRET_NAME' || (String(name).includes('\u0000') && code === 'BAD_USER_INPUT'), JSON.stringify(set.errors)).toBe(true);
        const del = await admin(`mutation($name: String!) { deleteSecret(name: $name) }`, { name });
        expect(['INVALID_SECRET_NAME', 'BAD_USER_INPUT']).toContain(del.errors?.[0]?.extensions?.code);
        expect((await api.cronql.pool.query('SELECT count(*)::int AS n FROM cron_secrets')).rows[0].n).toBe(before);
      });
    }
  }

  it('null and omitted names are refused by the schema; a value too short to redact is refused', async () => {
    expect((await admin(`mutation($name: String!) { setSecret(name: $name, value: "some-value") { name } }`, { name: null })).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect((await admin(`mutation { setSecret(value: "some-value") { name } }`)).errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await admin(`mutation { setSecret(name: "TINY", value: "abc") { name } }`)).errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('a VIEWER can neither list nor set secrets, over HTTP or WebSocket', async () => {
    expect((await gql(api.url, `{ secrets { name } }`, undefined, api.viewerToken)).errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const client = wsClient(api.wsUrl, api.viewerToken);
    try {
      const res = await wsOnce(client, `{ secrets { name } }`);
      expect(JSON.stringify(res)).toContain('FORBIDDEN');
    } finally {
      await client.dispose();
    }
  });
});
