import { parse } from 'graphql';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ScheduleType } from '../../src/domain/enums.js';
import { moved, type RunRecord } from '../../src/domain/run.js';
import { connected, Feed, startApi, wsClient, wsOnce, type Api } from './support.js';
import { eventually } from '../support/cronql.js';

/**
 * Subscriptions are bounded: per connection, per process, per event, and a reader that stops
 * reading is closed (4429) instead of making the server queue for it.
 */
describe('subscription limits', () => {
  let api: Api;
  let run: RunRecord;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'subscription-limits' }, { maxSubscriptionsPerConnection: 5, maxConnections: 8 });
    const job = await api.cronql.jobs.create({ key: 'sub-limits', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *' });
    run = await api.cronql.runs.runNow(job.id);
  });
  afterAll(async () => {
    await api.close();
  });

  const doc = parse('subscription { runChanged { run { id } } }');
  /** Emits a change of the run until the feed has it: the subscription is then live. */
  async function live(feed: Feed<{ runChanged: { run: { id: string } } }>, r: RunRecord = run) {
    for (let i = 0; i < 100 && !feed.events.some((e) => e.runChanged.run.id === r.id); i++) {
      api.cronql.events.emit(moved(r, r.status));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await feed.waitFor((e) => e.runChanged.run.id === r.id, 1_000);
  }

  it('refuses a subscription past the per-connection cap, and accepts it again once one ends', async () => {
    const client = wsClient(api.wsUrl, api.viewerToken);
    const feeds: Feed<{ runChanged: { run: { id: string } } }>[] = [];
    try {
      await Promise.all([connected(client), Promise.resolve(client.subscribe({ query: '{ targets { name } }' }, { next() {}, error() {}, complete() {} }))]);
      for (let i = 0; i < 5; i++) feeds.push(new Feed(client, doc));
      await live(feeds[4]);
      const refused = await wsOnce(client, 'subscription { runChanged { run { id } } }');
      expect(refused.errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
      expect(refused.errors?.[0]?.message).toMatch(/limit \(CRONQL_MAX_SUBSCRIPTIONS_PER_CONNECTION\)/);
      // Queries on the same connection are not subscriptions: still answered.
      expect((await wsOnce(client, '{ targets { name } }')).errors).toBeUndefined();
      feeds.pop()!.close();
      const again = new Feed<{ runChanged: { run: { id: string } } }>(client, doc);
      feeds.push(again);
      await live(again);
    } finally {
      for (const f of feeds) f.close();
      await client.dispose();
    }
  });

  it('closes connections past the per-process cap with 1013', async () => {
    const sockets = Array.from({ length: 8 }, () => new WebSocket(api.wsUrl, 'graphql-transport-ws'));
    await Promise.all(sockets.map((s) => new Promise((r) => s.once('open', r))));
    const extra = new WebSocket(api.wsUrl, 'graphql-transport-ws');
    const code = await new Promise<number>((resolve) => extra.once('close', (c) => resolve(c)));
    expect(code).toBe(1013);
    for (const s of sockets) s.close();
    await Promise.all(sockets.map((s) => new Promise((r) => (s.readyState === WebSocket.CLOSED ? r(null) : s.once('close', r)))));
  });

  it('refuses a subscription whose selection costs too much per event', async () => {
    const client = wsClient(api.wsUrl, api.viewerToken);
    try {
      const res = await wsOnce(client, 'subscription { runChanged { run { id job { runs(first: 300) { nodes { id } } } } } }');
      expect(res.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      expect(res.errors?.[0]?.message).toMatch(/cost \d+ exceeds the limit of 500/);
    } finally {
      await client.dispose();
    }
  });

  it('closes a reader that stopped reading with 4429, instead of queueing for it', async () => {
    const raw: WebSocket[] = [];
    class Captured extends WebSocket {
      constructor(...args: ConstructorParameters<typeof WebSocket>) {
        super(...args);
        raw.push(this);
      }
    }
    const client = createClient({ url: api.wsUrl, webSocketImpl: Captured, connectionParams: { authorization: `Bearer ${api.viewerToken}` }, retryAttempts: 0, lazy: true });
    const closed = new Promise<number>((resolve) => client.on('closed', (e) => resolve((e as { code: number }).code)));
    const doc = parse('subscription { runChanged { run { id payloadSnapshot } } }');
    const feed = new Feed<{ runChanged: { run: { id: string } } }>(client, doc);
    // A reader of the same subscription (same channel) that keeps reading.
    const reader = wsClient(api.wsUrl, api.viewerToken);
    let steadyClosed = false;
    reader.on('closed', () => (steadyClosed = true));
    const steady = new Feed<{ runChanged: { run: { id: string } } }>(reader, doc);
    try {
      await live(feed);
      await live(steady);
      const before = steady.events.length;
      // The reader stops reading from its socket; the server keeps producing big events.
      (raw[0] as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const big = { ...run, payloadSnapshot: { blob: 'x'.repeat(20_000) } };
      for (let i = 0; i < 3_000; i++) {
        api.cronql.events.emit(moved(big, run.status));
        // Paced by the reader that does read (the other subscriber below): it never has more than
        // 50 events (1 MB) unread, however slow the machine, so only the stalled one runs into the
        // limit (4 MB). A fixed pace let a loaded machine's steady reader fall behind too.
        if (i % 50 === 49) await eventually(() => steady.events.length - before >= i + 1, 30_000);
      }
      // Give the channel a moment to run into the stalled reader's limit (this is not the wait for
      // delivery: the steady reader's, below, is; waiting for it *before* the resume could stall).
      await new Promise((r) => setTimeout(r, 200));
      (raw[0] as unknown as { _socket: { resume(): void } })._socket.resume();
      expect(await closed).toBe(4429);
      // 3,000 events of 20 KB (60 MB) were not all queued for it.
      expect(feed.events.length).toBeLessThan(3_000);
      // The other subscriber of the same subscription got every one, and is still connected.
      await eventually(() => steady.events.length - before >= 3_000, 100_000);
      expect(steadyClosed).toBe(false);
    } finally {
      feed.close();
      steady.close();
      await client.dispose();
      await reader.dispose();
    }
  }, 120_000);
});
