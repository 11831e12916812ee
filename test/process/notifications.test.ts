import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { createJob, runs, useProcessTest } from './support.js';

/**
 * The outbox survives `kill -9`: an alert whose delivery is being retried when its process dies
 * is delivered once by the next start, with the same `webhook-id` on every attempt.
 */
interface Hit {
  id: string;
  status: number;
  raw: string;
  legacy: string | undefined;
}

const hits: Hit[] = [];
let accept = false;
let server: Server;
let base = '';
const SECRET = 'crash-test-shared-secret';

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      if (req.url === '/fail') {
        res.statusCode = 500;
        res.end('no');
        return;
      }
      const status = accept ? 200 : 503;
      hits.push({ id: req.headers['webhook-id'] as string, status, raw, legacy: req.headers['x-cronql-signature'] as string | undefined });
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('an alert being retried when its process is killed with SIGKILL', () => {
  const t = useProcessTest();

  it('is delivered once after the restart, with the same webhook-id', async () => {
    const env = {
      CRONQL_ALERT_WEBHOOK_URL: `${base}/hook`,
      CRONQL_ALERT_WEBHOOK_SECRET: SECRET,
      CRONQL_HTTP_ALLOW_PRIVATE: 'true',
      // The one slot must run, however late: on a loaded machine a 10 s database stall right at it
      // (seen: "Query read timeout", then "the database answers again") would leave it MISSED past
      // the default 10 s grace, and no run would fail, so no alert.
      CRONQL_MISFIRE_GRACE_MS: '300000',
      // No CRONQL_SECRETS_KEY, and each process its own data dir: the env channel's URL and secret
      // stay in the environment, so a deployment that had the variable keeps starting without a key.
    };
    const first = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'outbox-first' } });
    await createJob(first, { key: 'fails-once', target: 'http', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 1_000).toISOString(), payload: { url: `${base}/fail` } });
    // Two attempts refused, both recorded (the log line follows the record): the alert waits for its next retry.
    // About 3 s on an idle machine (a fire, a failed run, an attempt, a retry 1 s later); the
    // deadlines are generous for a loaded one, where each step is many times slower.
    await eventually(() => first.logs.filter((l) => /delivery attempt failed/.test(l.line)).length >= 2, 60_000).catch(async (err: Error) => {
      const seen = await runs(first).catch((e: Error) => e.message);
      throw new Error(`${err.message}; runs ${JSON.stringify(seen)}; the first process's last log lines: ${JSON.stringify(first.logs.map((l) => l.line).slice(-15))}`);
    });
    first.kill('SIGKILL');
    await first.exited;
    expect(hits.every((h) => h.status === 503)).toBe(true);

    accept = true;
    const second = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'outbox-second' } });
    await eventually(() => hits.some((h) => h.status === 200), 60_000);
    // Nothing left to send: the outbox is empty, then nothing more arrives.
    await eventually(async () => /^cronql_notifications_pending 0$/m.test((await second.get('/metrics')).body), 30_000);
    expect(hits.filter((h) => h.status === 200)).toHaveLength(1);
    expect(new Set(hits.map((h) => h.id)).size).toBe(1);
    expect(hits.length).toBeGreaterThanOrEqual(3);
    const delivered = hits.find((h) => h.status === 200)!;
    expect(JSON.parse(delivered.raw)).toMatchObject({ kind: 'run.failed', event: 'RUN_FAILED', job: { key: 'fails-once' }, run: { failureCode: 'HTTP_STATUS' } });
    // The env channel keeps the signature existing receivers verify.
    expect(delivered.legacy).toBe(`sha256=${createHmac('sha256', SECRET).update(delivered.raw).digest('hex')}`);
    const metrics = (await second.get('/metrics')).body;
    expect(metrics).toMatch(/^cronql_notifications_delivered_total\{event="RUN_FAILED"\} 1$/m);
  }, 240_000);
});
