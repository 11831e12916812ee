import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Client } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCronql, type Cronql } from '../../src/app.js';
import { RunStore } from '../../src/db/run-store.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { RUN_LOG_BOUNDS } from '../../src/domain/run-log.js';
import { createLogger } from '../../src/logger.js';
import { Outage } from '../../src/maintenance/outage.js';
import { Retention } from '../../src/maintenance/retention.js';
import { RunLogRetentionDuty } from '../../src/maintenance/run-log-retention.js';
import { REDACTED } from '../../src/services/redaction.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import type { TargetContext } from '../../src/runtime/targets/target.js';
import { eventually, nextChange, terminal } from '../support/cronql.js';
import { codes, gql, ok, startApi, wsClient, type Api } from './support.js';

/**
 * Run logs (docs/run-logs.md): a handler's ctx.log lines are kept with its run, bounded, paged
 * by Run.logs and streamed by runLogs — on this instance and from another — as a user sees them.
 */

/** What the `gated` handler waits for between the lines it writes before and after. */
let gate: { open: () => void; opened: Promise<void> } = newGate();
function newGate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

const targets = {
  /** Writes `payload.count` lines: "line 1", "line 2", … with their number as a field. */
  chatty: (ctx: TargetContext<{ count: number }>) => {
    for (let i = 1; i <= ctx.payload.count; i++) ctx.log.info({ i }, `line ${i}`);
    return { wrote: ctx.payload.count };
  },
  /** Writes a line per `[character, count]` of `payload.lines`: the character repeated (payloads are smaller than a log). */
  sized: (ctx: TargetContext<{ lines: [string, number][] }>) => {
    for (const [char, count] of ctx.payload.lines) ctx.log.info(char.repeat(count));
  },
  /** Three lines, then waits for the test's gate, then 200 lines with a credential-looking field. */
  gated: async (ctx: TargetContext) => {
    for (let i = 1; i <= 3; i++) ctx.log.info(`before ${i}`);
    await gate.opened;
    const step = ctx.log.child({ step: 'after' });
    for (let i = 1; i <= 200; i++) step.warn({ n: i, apiToken: `S3CRET-${i}` }, 'after %d', i);
  },
  /** Logs a payload secret's value (redacted for everyone) and credential-looking fields (for VIEWERs). */
  secretive: (ctx: TargetContext<{ key: string }>) => {
    ctx.log.info({ user: 'ann', password: 'S3CRET-A', headers: { 'X-Trace': 'S3CRET-B' }, nested: [{ api_key: 'S3CRET-C' }] }, 'calling with %s', ctx.payload.key);
    ctx.log.error(new Error(`refused ${ctx.payload.key}`));
  },
};

type Line = { sequence: number; level: string; message: string; fields: unknown; at: string };
type Page = { nodes: Line[]; pageInfo: { hasNextPage: boolean; endCursor: string | null }; truncated: boolean };

const LOGS = `query($id: ID!, $first: Int, $after: String) { run(id: $id) { logs(first: $first, after: $after) {
  nodes { sequence level message fields at } pageInfo { hasNextPage endCursor } truncated } } }`;

describe('run logs', () => {
  let api: Api;
  /** A second instance on the same database: API only, with its own HTTP server. */
  let other: { cronql: Cronql; http: HttpServer; wsUrl: string; adminToken: string; viewerToken: string };
  const jobs: Record<string, string> = {};

  beforeAll(async () => {
    api = await startApi({ instanceId: 'logs-a', targets });
    for (const target of Object.keys(targets)) {
      const job = await api.cronql.jobs.create({ key: `logs-${target}`, target, scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 1 1 *' });
      jobs[target] = job.id;
    }
    const cronql = createCronql({ databaseUrl: api.cronql.databaseUrl, role: 'api', instanceId: 'logs-b' });
    await cronql.start();
    const adminToken = `admin-${randomBytes(16).toString('hex')}`;
    const viewerToken = `viewer-${randomBytes(16).toString('hex')}`;
    const http = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'api', adminToken, viewerToken });
    other = { cronql, http, wsUrl: `${http.url.replace(/^http/, 'ws')}/graphql`, adminToken, viewerToken };
  });
  afterAll(async () => {
    await other?.http.close();
    await other?.cronql.stop();
    await api?.close();
  });

  /** Runs the job now with `payload` and resolves with its run id once its end is published. */
  async function runToEnd(target: keyof typeof targets, payload: unknown): Promise<string> {
    const ended = nextChange(api.cronql, (c) => c.run.jobId === jobs[target] && terminal(c), 60_000);
    await ok(api.url, 'mutation($id: ID!, $p: JSON) { runJobNow(id: $id, payload: $p) { id } }' as never, { id: jobs[target], p: payload }, api.adminToken);
    return (await ended).run.id;
  }

  /** Every line of the run, paged 500 at a time, as `token` reads them. */
  async function allLines(runId: string, token = api.adminToken): Promise<{ lines: Line[]; truncated: boolean }> {
    const lines: Line[] = [];
    let after: string | null = null;
    let truncated = false;
    for (;;) {
      const page: Page = (await ok(api.url, LOGS as never, { id: runId, first: 500, after }, token) as { run: { logs: Page } }).run.logs;
      lines.push(...page.nodes);
      truncated = page.truncated;
      if (!page.pageInfo.hasNextPage) return { lines, truncated };
      after = page.pageInfo.endCursor;
    }
  }

  const metric = async (name: string) => {
    const line = (await api.cronql.metrics.text()).split('\n').find((l) => l.startsWith(name));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  let manyLinesRun: string;

  it('a handler writing 5,000 lines keeps 1,000 and one line saying how many were dropped, all readable once the run has ended', async () => {
    const droppedBefore = await metric('cronql_run_log_lines_dropped_total{reason="bound"}');
    manyLinesRun = await runToEnd('chatty', { count: 5_000 });
    // Read as soon as the end is published: the lines were stored before it.
    const { lines, truncated } = await allLines(manyLinesRun);
    expect(lines).toHaveLength(RUN_LOG_BOUNDS.maxLines + 1);
    expect(lines.slice(0, 1_000).map((l) => l.message)).toEqual(Array.from({ length: 1_000 }, (_, i) => `line ${i + 1}`));
    expect(lines.slice(0, 1_000).map((l) => l.sequence)).toEqual(Array.from({ length: 1_000 }, (_, i) => i + 1));
    expect(lines[0]).toMatchObject({ level: 'info', fields: { i: 1 } });
    expect(lines[1_000]).toMatchObject({ sequence: 1_001, level: 'warn', fields: { dropped: 4_000 } });
    expect(lines[1_000].message).toMatch(/^4000 more log lines were not kept/);
    expect(truncated).toBe(true);
    expect((await metric('cronql_run_log_lines_dropped_total{reason="bound"}')) - droppedBefore).toBe(4_000);
    expect(await metric('cronql_run_log_lines_total')).toBeGreaterThanOrEqual(1_001);
  });

  it('Run.logs: `first` in every form (literal, variable, null, omitted, zero, over the cap, negative) and `after`', async () => {
    const size = async (args: string, variables: Record<string, unknown> = {}) => {
      const declared = [args.includes('$n') ? ', $n: Int' : '', args.includes('$after') ? ', $after: String' : ''].join('');
      const res = await gql<{ run: { logs: Page } }, unknown>(
        api.url,
        `query($id: ID!${declared}) { run(id: $id) { logs${args} { nodes { sequence } pageInfo { hasNextPage endCursor } } } }`,
        { id: manyLinesRun, ...variables },
        api.adminToken,
      );
      return res.errors ? codes(res) : res.data!.run.logs.nodes.length;
    };
    expect(await size('')).toBe(100);
    expect(await size('(first: null)')).toBe(100);
    expect(await size('(first: $n)')).toBe(100);
    expect(await size('(first: $n)', { n: null })).toBe(100);
    expect(await size('(first: 0)')).toBe(0);
    expect(await size('(first: $n)', { n: 0 })).toBe(0);
    for (const n of [1, 7, 499, 500]) {
      expect(await size(`(first: ${n})`)).toBe(n);
      expect(await size('(first: $n)', { n })).toBe(n);
    }
    for (const n of [501, 1_001, 2_147_483_647]) {
      expect(await size(`(first: ${n})`)).toBe(500);
      expect(await size('(first: $n)', { n })).toBe(500);
    }
    expect(await size('(first: -1)')).toEqual(['BAD_USER_INPUT']);
    expect(await size('(first: $n)', { n: -5 })).toEqual(['BAD_USER_INPUT']);
    expect(await size('(first: 3, after: $after)', { after: 'nope' })).toEqual(['BAD_USER_INPUT']);
    expect(await size('(first: 3, after: $after)', { after: '-1' })).toEqual(['BAD_USER_INPUT']);
    // `after` is a line's sequence: the page after line 998 is 999, 1000 and the drop line.
    const tail = (await ok(api.url, LOGS as never, { id: manyLinesRun, first: 10, after: '998' }, api.adminToken) as { run: { logs: Page } }).run.logs;
    expect(tail.nodes.map((l) => l.sequence)).toEqual([999, 1_000, 1_001]);
    expect(tail.pageInfo).toEqual({ hasNextPage: false, endCursor: '1001' });
    const zero = (await ok(api.url, LOGS as never, { id: manyLinesRun, first: 0 }, api.adminToken) as { run: { logs: Page } }).run.logs;
    expect(zero.pageInfo).toEqual({ hasNextPage: true, endCursor: null });
    // The cost limit prices a page of logs as the resolver fetches it: 500 runs × 500 lines is refused.
    const costly = await gql(api.url, '{ runs(first: 500) { nodes { logs(first: 500) { nodes { message } } } } }', {}, api.adminToken);
    expect(codes(costly)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  it('the 256 KiB bound, with generated line sizes (UTF-8 bytes, a line that does not fit ends the log)', async () => {
    let seed = 27;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const kib = RUN_LOG_BOUNDS.maxBytes;
    const cases: [string, number][][] = [
      // Exactly the bound: all kept, nothing dropped.
      Array.from({ length: 4 }, () => ['x', kib / 4]),
      // One byte over: the last line is dropped.
      [...Array.from({ length: 4 }, (): [string, number] => ['x', kib / 4]), ['y', 1]],
      // Two-byte characters count twice: 'ab' is one byte too many, 'c' would fit but comes after.
      [['é', kib / 2 - 1], ['a', 3], ['c', 1]],
      // Many small lines: the line bound comes first.
      Array.from({ length: 1_200 }, () => ['s', 10]),
    ];
    for (let c = 0; c < 4; c++) {
      cases.push(Array.from({ length: 20 + Math.floor(random() * 40) }, () => [random() < 0.3 ? 'ü' : 'z', 1 + Math.floor(random() * 15_000)]));
    }
    for (const spec of cases) {
      const sent = spec.map(([char, count]) => char.repeat(count));
      const runId = await runToEnd('sized', { lines: spec });
      // The longest prefix that fits, then the drop line.
      let bytes = 0;
      let kept = 0;
      while (kept < sent.length && kept < RUN_LOG_BOUNDS.maxLines && bytes + Buffer.byteLength(sent[kept]) <= kib) bytes += Buffer.byteLength(sent[kept++]);
      const { lines, truncated } = await allLines(runId);
      expect(lines.slice(0, kept).map((l) => l.message)).toEqual(sent.slice(0, kept));
      const dropped = sent.length - kept;
      expect(truncated).toBe(dropped > 0);
      expect(lines).toHaveLength(kept + (dropped > 0 ? 1 : 0));
      if (dropped > 0) expect(lines[kept].fields).toEqual({ dropped });
      expect(lines.slice(0, kept).reduce((n, l) => n + Buffer.byteLength(l.message), 0)).toBeLessThanOrEqual(kib);
    }
  });

  it("secrets' values are never kept; a VIEWER reads credential-looking fields redacted", async () => {
    await api.cronql.secrets.set('LOG_KEY', 'S3CRET-KEY-VALUE');
    const runId = await runToEnd('secretive', { key: '${secrets.LOG_KEY}' });
    const admin = (await allLines(runId)).lines;
    const viewer = (await allLines(runId, api.viewerToken)).lines;
    expect(admin.map((l) => [l.level, l.message])).toEqual([
      ['info', 'calling with [secret:LOG_KEY]'],
      ['error', 'refused [secret:LOG_KEY]'],
    ]);
    expect(admin[0].fields).toEqual({ user: 'ann', password: 'S3CRET-A', headers: { 'X-Trace': 'S3CRET-B' }, nested: [{ api_key: 'S3CRET-C' }] });
    expect(admin[1].fields).toMatchObject({ err: { type: 'Error', message: 'refused [secret:LOG_KEY]' } });
    expect(viewer[0].fields).toEqual({ user: 'ann', password: REDACTED, headers: { 'X-Trace': REDACTED }, nested: [{ api_key: REDACTED }] });
    expect(JSON.stringify([admin, viewer])).not.toMatch(/S3CRET-KEY-VALUE/);
    expect(JSON.stringify(viewer)).not.toMatch(/S3CRET/);
    const stored = await api.cronql.pool.query('SELECT message, fields FROM cron_run_logs WHERE run_id = $1', [runId]);
    expect(JSON.stringify(stored.rows)).not.toMatch(/S3CRET-KEY-VALUE/);
  });

  it('subscribers attached mid-run, here and on another instance, get the rest live, in order, then completion', async () => {
    gate = newGate();
    const started = nextChange(api.cronql, (c) => c.run.jobId === jobs.gated && c.run.status === 'RUNNING', 30_000);
    await ok(api.url, 'mutation($id: ID!) { runJobNow(id: $id) { id } }' as never, { id: jobs.gated }, api.adminToken);
    const runId = (await started).run.id;
    // Its first three lines are stored before anyone follows it.
    await eventually(async () => (await allLines(runId)).lines.length === 3, 30_000);

    const adminHere = wsClient(api.wsUrl, api.adminToken);
    const viewerThere = wsClient(other.wsUrl, other.viewerToken);
    const here = follow(adminHere, runId);
    const there = follow(viewerThere, runId);
    try {
      // Both subscriptions are live once each server holds their channel.
      await eventually(() => api.http.subscriptions!.channelCount === 1 && other.http.subscriptions!.channelCount === 1, 30_000);
      gate.open();
      await Promise.all([here.done, there.done]);
      const expected = Array.from({ length: 200 }, (_, i) => ({ sequence: i + 4, message: `after ${i + 1}` }));
      expect(here.lines.map((l) => ({ sequence: l.sequence, message: l.message }))).toEqual(expected);
      expect(there.lines.map((l) => ({ sequence: l.sequence, message: l.message }))).toEqual(expected);
      expect(here.lines[0]).toMatchObject({ level: 'warn', fields: { step: 'after', n: 1, apiToken: 'S3CRET-1' } });
      // The other instance's subscriber is a VIEWER: the field is redacted there.
      expect(there.lines[0]).toMatchObject({ level: 'warn', fields: { step: 'after', n: 1, apiToken: REDACTED } });
      expect(here.errors).toEqual([]);
      expect(there.errors).toEqual([]);
      // The whole log: the three lines before, then the 200 streamed.
      expect((await allLines(runId)).lines.map((l) => l.sequence)).toEqual(Array.from({ length: 203 }, (_, i) => i + 1));
      // A subscription to a run that has ended completes at once, without lines.
      const late = follow(adminHere, runId);
      await late.done;
      expect(late.lines).toEqual([]);
      const missing = follow(adminHere, '00000000-0000-4000-8000-000000000000');
      await missing.done;
      expect(missing.errors.flat().map((e) => (e as { extensions?: { code?: string } }).extensions?.code)).toEqual(['NOT_FOUND']);
    } finally {
      gate.open();
      await adminHere.dispose();
      await viewerThere.dispose();
    }
  });

  it('a page of runs asking for their logs costs one statement for all of their logs', async () => {
    const query = (first: number) =>
      countStatements(() => ok(api.url, `{ runs(first: ${first}) { nodes { id logs(first: 3) { nodes { message } truncated } } } }` as never, {}, api.adminToken));
    const few = await query(1);
    const many = await query(50);
    const logStatements = (s: string[]) => s.filter((t) => t.includes('cron_run_logs')).length;
    expect(logStatements(few.statements)).toBe(1);
    expect(logStatements(many.statements)).toBe(1);
    const runs = (many.result as { runs: { nodes: { logs: { nodes: unknown[] } }[] } }).runs.nodes;
    expect(runs.filter((r) => r.logs.nodes.length > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('retention deletes logs with their runs, and by their own retention', async () => {
    const { pool } = api.cronql;
    const first = await runToEnd('chatty', { count: 3 });
    const second = await runToEnd('chatty', { count: 3 });
    const linesOf = async (id: string) => (await pool.query('SELECT count(*)::int AS n FROM cron_run_logs WHERE run_id = $1', [id])).rows[0].n as number;
    expect([await linesOf(first), await linesOf(second)]).toEqual([3, 3]);
    // The first run expires (runs' retention: 180 days); the job's latest one stays, with its lines.
    await pool.query(`UPDATE cron_job_runs SET scheduled_at = now() - interval '400 days', finished_at = now() - interval '400 days' WHERE id = $1`, [first]);
    const store = new RunStore({ pool, instanceId: 'logs-retention', now: () => new Date(), publish: () => {} });
    expect(await new Retention({ store, log: createLogger(), days: 180, now: () => new Date() }).prune()).toBeGreaterThanOrEqual(1);
    expect(await api.cronql.runs.get(first)).toBeNull();
    expect([await linesOf(first), await linesOf(second)]).toEqual([0, 3]);

    // Their own retention (30 days by default): lines older than it go, their run stays.
    await pool.query(`UPDATE cron_run_logs SET at = now() - interval '31 days' WHERE run_id = $1 AND sequence <= 2`, [second]);
    const log = createLogger();
    const duty = new RunLogRetentionDuty({ log, instanceId: 'logs-retention', outage: new Outage(log, () => {}), leaseHeld: () => true, passed: () => {} }, 60_000, {
      pool,
      log,
      days: 30,
      now: () => new Date(),
      batchSize: 1,
    });
    expect(await duty.round()).toBeGreaterThanOrEqual(2);
    expect((await pool.query('SELECT sequence FROM cron_run_logs WHERE run_id = $1', [second])).rows).toEqual([{ sequence: 3 }]);
    expect(await api.cronql.runs.get(second)).not.toBeNull();
  });
});

/** A runLogs subscription: its lines, its errors, and when it completes. */
function follow(client: Client, runId: string): { lines: Line[]; errors: unknown[]; done: Promise<void> } {
  const lines: Line[] = [];
  const errors: unknown[] = [];
  const done = new Promise<void>((resolve) => {
    client.subscribe<{ runLogs: Line }>(
      { query: 'subscription($id: ID!) { runLogs(runId: $id) { sequence level message fields at } }', variables: { id: runId } },
      {
        next: (value) => {
          if (value.errors) errors.push(value.errors);
          if (value.data) lines.push(value.data.runLogs);
        },
        error: (err) => {
          errors.push(err);
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return { lines, errors, done };
}

/** The statements sent while `fn` runs (every statement goes through pg.Client#query). */
async function countStatements<T>(fn: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
  const statements: string[] = [];
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    statements.push(typeof first === 'string' ? first : (first?.text ?? String(first)));
    return original.apply(this, args);
  };
  try {
    return { result: await fn(), statements };
  } finally {
    proto.query = original;
  }
}
