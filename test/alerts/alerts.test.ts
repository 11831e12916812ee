import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissedReason, ScheduleType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, useCronql } from '../support/cronql.js';

interface Received {
  body: Record<string, unknown>;
  raw: string;
  signature: string | undefined;
  event: string | undefined;
  headers: Record<string, string>;
}

/** A webhook receiver that fails its first request, then accepts (the alerter retries). */
let server: Server;
let url = '';
const received: Received[] = [];
let failuresLeft = 1;
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (failuresLeft > 0) {
        failuresLeft--;
        res.statusCode = 503;
        res.end('not yet');
        return;
      }
      received.push({
        body: JSON.parse(raw),
        raw,
        signature: req.headers['x-cronql-signature'] as string,
        event: req.headers['x-cronql-event'] as string,
        headers: req.headers as Record<string, string>,
      });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/cronql`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('failure alerts', () => {
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  let fail = true;
  const t = useCronql({
    clock,
    instanceId: 'alerts',
    httpAllowPrivate: true,
    get alertWebhookUrl() {
      return url;
    },
    alertWebhookSecret: 'hook-secret',
    targets: {
      flaky: async () => {
        if (fail) throw Object.assign(new Error('upstream down'), { code: 'UPSTREAM_DOWN' });
        return { ok: true };
      },
    },
  });

  const kinds = () => received.map((r) => r.body.kind);

  it('sends one alert when a job starts failing and one when it is auto-paused, signed, retried after a failure', async () => {
    const job = await t.cronql.jobs.create({ key: 'alerting', target: 'flaky', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', pauseAfterFailures: 3 });
    for (const at of ['12:00:10', '12:00:20', '12:00:30']) {
      clock.set(`2026-06-01T${at}.000Z`);
      await t.cronql.runtime!.whenIdle();
    }
    await eventually(() => received.length >= 2, 15_000);
    expect(kinds()).toEqual(['run.failed', 'job.auto_paused']);
    const [failed, paused] = received;
    expect(failed.body).toMatchObject({
      kind: 'run.failed',
      instanceId: 'alerts',
      job: { id: job.id, key: 'alerting', version: 1, target: 'flaky' },
      run: { status: 'FAILED', failureCode: 'UPSTREAM_DOWN', failureMessage: 'upstream down', scheduledAt: '2026-06-01T12:00:10.000Z' },
      consecutiveFailures: 1,
    });
    expect(paused.body).toMatchObject({ kind: 'job.auto_paused', consecutiveFailures: 3, reason: 'auto-paused after 3 consecutive failures; last: UPSTREAM_DOWN upstream down' });
    for (const r of received) {
      expect(r.signature).toBe(`sha256=${createHmac('sha256', 'hook-secret').update(r.raw).digest('hex')}`);
      expect(r.event).toBe(r.body.kind);
      expect(r.raw).not.toMatch(/payload/i);
      // Besides its own signature, the env channel sends the Standard Webhooks headers, keyed by the
      // secret's UTF-8 bytes: the reference library verifies them with that key (base64).
      expect(new Webhook(Buffer.from('hook-secret').toString('base64')).verify(r.raw, r.headers)).toEqual(r.body);
    }
    // The body receivers of the env webhook always parsed: `kind`, `at`, `instanceId`, the job, the run, … (with `event` added).
    expect(Object.keys(failed.body).sort()).toEqual(['at', 'consecutiveFailures', 'event', 'instanceId', 'job', 'kind', 'run']);
    expect(failuresLeft).toBe(0); // the first delivery failed and was retried
    // Resumed and succeeding: no alert; failing again: one more run.failed.
    fail = false;
    await t.cronql.jobs.resume(job.id);
    clock.set('2026-06-01T12:00:40.000Z');
    await t.cronql.runtime!.whenIdle();
    fail = true;
    clock.set('2026-06-01T12:00:50.000Z');
    await t.cronql.runtime!.whenIdle();
    await eventually(() => received.length >= 3, 15_000);
    expect(kinds()).toEqual(['run.failed', 'job.auto_paused', 'run.failed']);
    await t.cronql.jobs.pause(job.id, 'done');
  });

  it('sends one alert for a burst of missed slots and one for runs lost', async () => {
    received.length = 0;
    const job = await t.cronql.jobs.create({ key: 'missing', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '* * * * * *' });
    clock.jump('2026-06-01T12:05:00.000Z', MissedReason.CLOCK_JUMP);
    await t.cronql.runtime!.whenIdle();
    const sql = new pg.Client({ connectionString: t.url });
    await sql.connect();
    try {
      await sql.query(`INSERT INTO cron_instances (id, role, started_at, heartbeat_at) VALUES ('gone', 'all', now() - interval '1 hour', now() - interval '1 hour')`);
      await sql.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'missing', 1, 'log', 'MANUAL', now(), 'RUNNING', now(), 'gone', now(), now())`,
        [job.id],
      );
    } finally {
      await sql.end();
    }
    await t.cronql.runtime!.sweep();
    await eventually(() => received.length >= 2, 15_000);
    const byKind = Object.fromEntries(received.map((r) => [r.body.kind as string, r.body]));
    expect(Object.keys(byKind).sort()).toEqual(['runs.lost', 'slots.missed']);
    expect(byKind['slots.missed']).toMatchObject({ missedReason: 'CLOCK_JUMP', count: expect.any(Number) });
    expect((byKind['slots.missed'].count as number)).toBeGreaterThan(100); // ~270 slots: 100 rows and a summary
    expect(byKind['runs.lost']).toMatchObject({ count: 1, runIds: [expect.any(String)] });
    await t.cronql.jobs.pause(job.id, 'done');
  });
});
