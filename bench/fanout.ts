/**
 * Subscription fan-out.
 * 1. The API under a busy feed: 300 jobs firing every 2 s (~450 changes/s), `runs(first: 50)`
 *    queries four at a time for 10 s — p50/p99 and queries/s with 100 `runChanged` subscribers,
 *    beside the same without subscribers (same run); and every subscriber got every change.
 * 2. Delivery: 1,000 subscribers (200 connections × 5), 10 changes/s for 10 s: publish → receive
 *    p99, beside one subscriber (same run).
 *
 *   node dist/bench/fanout.js
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createCronql, type Cronql } from '../src/app.js';
import { moved } from '../src/domain/run.js';
import { startHttpServer, type HttpServer } from '../src/http/server.js';
import { freshDatabase, log, pct, report, until } from './lib/bench.js';
import { benchServer } from './server.js';

const TOKEN = 'bench-admin-token-0123456789abcdef';
const DOC = 'subscription { runChanged { run { id jobKey status scheduledAt } previousStatus } }';

function clients(http: HttpServer, n: number): Client[] {
  return Array.from({ length: n }, () =>
    createClient({ url: http.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${TOKEN}` }, retryAttempts: 0 }),
  );
}

async function queries(http: HttpServer, seconds: number): Promise<{ p50: number; p99: number; qps: number }> {
  const lat: number[] = [];
  const end = Date.now() + seconds * 1000;
  const body = JSON.stringify({ query: '{ runs(first: 50) { nodes { id status jobKey scheduledAt } } }' });
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < end) {
        const t = performance.now();
        const res = await fetch(`${http.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body });
        await res.text();
        lat.push(performance.now() - t);
      }
    }),
  );
  return { p50: pct(lat, 0.5), p99: pct(lat, 0.99), qps: lat.length / seconds };
}

async function underLoad(serverUrl: string): Promise<void> {
  const db = await freshDatabase(serverUrl, 'cronql_bench_fanout');
  const setup = createCronql({ databaseUrl: db.url, log, listen: false, role: 'api' });
  await setup.start();
  await setup.pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status)
     SELECT gen_random_uuid(), 'fan-' || i, 1, 'log', 'RECURRING', '*/2 * * * * *', 'ACTIVE' FROM generate_series(1, 300) AS i`,
  );
  await setup.stop();
  const cronql = createCronql({ databaseUrl: db.url, log, role: 'all', retentionDays: 0 });
  await cronql.start();
  const http = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'all', adminToken: TOKEN });
  await until(Date.now() + 3_000); // warm up: a few slots fired, history to page through
  const without = await queries(http, 10);

  // The subscribers live in another process: their parsing is not the server's work.
  const subs = fork(fileURLToPath(new URL('./lib/subscribers.js', import.meta.url)), [`${http.url.replace('http', 'ws')}/graphql`, TOKEN, '100', DOC]);
  const ask = <T>(m: string) => new Promise<T>((resolve) => (subs.once('message', (r) => resolve(r as T)), subs.send(m)));
  await new Promise((r) => subs.once('message', r)); // ready
  await until(Date.now() + 2_000);
  await ask('reset'); // counted from here: every change published from now on must arrive
  let published = 0;
  const off = cronql.events.on(() => void published++);
  const withSubs = await queries(http, 10);
  off();
  const sent = published;
  // Let the last changes arrive: until the counts stop moving (at most 30 s).
  let received = await ask<number[]>('count');
  for (let i = 0; i < 60; i++) {
    await until(Date.now() + 500);
    const now = await ask<number[]>('count');
    const moved = now.some((n, k) => n !== received[k]);
    received = now;
    if (!moved && received.every((n) => n >= sent)) break;
  }
  const complete = received.filter((n) => n >= sent).length;
  subs.send('exit');
  await new Promise((r) => subs.once('exit', r));
  await http.close();
  await cronql.stop();
  await db.drop();
  report({ scenario: 'API under fan-out (100 subscribers, 300 jobs every 2 s)', figure: 'runs(first: 50) p99', value: withSubs.p99, baselineName: 'no subscribers p99', baseline: without.p99, goal: '≤ 2× no subscribers', met: withSubs.p99 <= 2 * without.p99 });
  console.log(
    `API under fan-out | p50 ${withSubs.p50.toFixed(1)} ms, ${withSubs.qps.toFixed(0)} q/s (no subscribers: p50 ${without.p50.toFixed(1)} ms, ${without.qps.toFixed(0)} q/s); ` +
      `${sent} changes (${(sent / 10).toFixed(0)}/s) × 100 subscribers; ${complete} of 100 got every one`,
  );
}

async function delivery(cronql: Cronql, http: HttpServer, subscribers: number): Promise<number> {
  const conns = clients(http, Math.max(1, Math.ceil(subscribers / 5)));
  const lat: number[] = [];
  let sentAt = new Map<string, number>();
  for (let i = 0; i < subscribers; i++) {
    conns[i % conns.length].subscribe<{ runChanged: { run: { id: string } } }>({ query: 'subscription { runChanged { run { id failureMessage } } }' }, {
      next: (m) => {
        const at = sentAt.get((m.data?.runChanged.run as { failureMessage?: string } | undefined)?.failureMessage ?? '');
        if (at !== undefined) lat.push(performance.now() - at);
      },
      error: () => {},
      complete: () => {},
    });
  }
  await until(Date.now() + 2_000);
  const run = await cronql.runs.runNow((await cronql.jobs.list({}, 1)).nodes[0].id);
  sentAt = new Map();
  for (let i = 0; i < 100; i++) {
    const tag = `change-${i}`;
    sentAt.set(tag, performance.now());
    cronql.events.emit(moved({ ...run, failureMessage: tag }, run.status));
    await until(Date.now() + 100);
  }
  await until(Date.now() + 2_000);
  for (const c of conns) await c.dispose();
  if (lat.length < 100 * subscribers) console.log(`delivery: ${lat.length} of ${100 * subscribers} deliveries arrived`);
  return pct(lat, 0.99);
}

async function deliveryBench(serverUrl: string): Promise<void> {
  const db = await freshDatabase(serverUrl, 'cronql_bench_delivery');
  const cronql = createCronql({ databaseUrl: db.url, log, role: 'api', listen: false });
  await cronql.start();
  await cronql.jobs.create({ key: 'delivery', target: 'log', scheduleType: 'RECURRING' as never, cronExpression: '0 3 * * *' });
  const http = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'api', adminToken: TOKEN });
  const one = await delivery(cronql, http, 1);
  const many = await delivery(cronql, http, 1_000);
  await http.close();
  await cronql.stop();
  await db.drop();
  report({ scenario: 'delivery (1,000 subscribers, 10 changes/s)', figure: 'publish → receive p99', value: many, baselineName: 'one subscriber p99', baseline: one });
}

const server = await benchServer(log);
try {
  await underLoad(server.url);
  await deliveryBench(server.url);
} catch (err) {
  console.error('bench failed:', err);
  process.exitCode = 1;
} finally {
  await server.stop();
}
