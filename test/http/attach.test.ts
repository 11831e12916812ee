import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { createCronql, type Cronql } from '../../src/app.js';
import { attachCronql, type AttachedCronql } from '../../src/http/attach.js';
import { OptionsError } from '../../src/options.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { Feed, connected, startApi, wsClient, wsOnce } from '../graphql/support.js';

/** A WebSocket to `url` that says what became of it: opened (then echoes one message), or refused with a status. */
async function tryWebSocket(url: string): Promise<{ opened: true; echo: string } | { opened: false; status: number | undefined }> {
  const socket = new WebSocket(url);
  return new Promise((resolve) => {
    socket.once('open', () => {
      socket.once('message', (data) => {
        socket.close();
        resolve({ opened: true, echo: String(data) });
      });
      socket.send('ping');
    });
    socket.once('unexpected-response', (_req, res) => {
      socket.terminate();
      resolve({ opened: false, status: res.statusCode });
    });
    socket.once('error', () => resolve({ opened: false, status: undefined }));
  });
}

/** The same-origin URLs a page loads (`src=` and `href=`). */
const urlsOf = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);

/**
 * An Express application on its own http.Server, with its own route and its own WebSocket route,
 * and cronql attached under `/cronql`: everything cronql serves answers under the prefix, the
 * pages call the API there, the host's routes keep answering, and close() leaves the host running.
 */
describe('attachCronql on a host Express app', () => {
  let db: TestDatabase;
  let cronql: Cronql;
  let server: Server;
  let attached: AttachedCronql;
  let origin: string;
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  let hostSockets: WebSocketServer;

  beforeAll(async () => {
    db = await createTestDatabase();
    cronql = createCronql({ databaseUrl: db.url, instanceId: 'attach' });
    await cronql.start();
    const app = express();
    app.get('/hello', (_req, res) => {
      res.json({ host: 'hello' });
    });
    server = createServer(app);
    // The host's own WebSocket route, routed the way ws recommends beside other servers: by path,
    // leaving every other upgrade alone.
    hostSockets = new WebSocketServer({ noServer: true });
    hostSockets.on('connection', (socket) => socket.on('message', (data) => socket.send(`host:${String(data)}`)));
    server.on('upgrade', (req, socket, head) => {
      if (req.url === '/host-ws') hostSockets.handleUpgrade(req, socket, head, (s) => hostSockets.emit('connection', s, req));
    });
    attached = await attachCronql(server, app, { cronql, path: '/cronql', adminToken });
    // A route the host adds after attaching still answers.
    app.get('/after', (_req, res) => {
      res.type('text/plain').send('after');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await attached?.close();
    hostSockets?.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    await cronql?.stop();
    await db?.drop();
  });

  const graphql = (query: string, variables?: Record<string, unknown>, token: string | null = adminToken) =>
    fetch(`${origin}/cronql/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query, variables }),
    });

  it('answers GraphQL under the prefix, with the token, and the API\'s own errors there', async () => {
    expect(attached.graphqlPath).toBe('/cronql/graphql');
    const res = await graphql('{ targets { name } }');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { targets: { name: string }[] } };
    expect(body.data.targets.map((t) => t.name)).toContain('log');
    const anonymous = await graphql('{ targets { name } }', undefined, null);
    expect(anonymous.status).toBe(401);
    // An error Express raises (an unknown body encoding) is shaped as a GraphQL error under the prefix too.
    const encoded = await fetch(`${origin}/cronql/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'zzz', authorization: `Bearer ${adminToken}` },
      body: '{"query":"{ targets { name } }"}',
    });
    expect(encoded.status).toBe(415);
    expect(await encoded.json()).toEqual({ errors: [{ message: 'Unsupported request encoding or media type', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] });
    const health = await fetch(`${origin}/cronql/readyz`);
    expect(health.status).toBe(200);
  });

  it('streams a subscription over graphql-ws on the host\'s server, beside the host\'s own WebSocket route', async () => {
    const client = wsClient(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/cronql/graphql`, adminToken);
    try {
      const feed = new Feed<{ runChanged: { run: { jobKey: string; status: string } } }>(
        client,
        parse('subscription { runChanged { run { jobKey status } } }'),
      );
      await connected(client);
      const created = (await (await graphql('mutation { createJob(input: { key: "attached", target: "log", scheduleType: RECURRING, cronExpression: "0 3 * * *" }) { id } }')).json()) as {
        data: { createJob: { id: string } };
      };
      await graphql('mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: created.data.createJob.id });
      const done = await feed.waitFor((e) => e.runChanged.run.jobKey === 'attached' && e.runChanged.run.status === 'SUCCEEDED', 30_000);
      expect(done.runChanged.run.status).toBe('SUCCEEDED');
      feed.close();
      // The host's WebSocket route works alongside; cronql's own path on the host's server is cronql's.
      expect(await tryWebSocket(`${origin.replace('http', 'ws')}/host-ws`)).toEqual({ opened: true, echo: 'host:ping' });
    } finally {
      await client.dispose();
    }
  });

  it('serves the dashboard under the prefix, calling the API there, with its files', async () => {
    const page = await fetch(`${origin}/cronql/dashboard`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-endpoint="/cronql/graphql"');
    const urls = urlsOf(html);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(url.startsWith('/cronql/dashboard/assets/')).toBe(true);
      expect((await fetch(`${origin}${url}`)).status).toBe(200);
    }
  });

  it('serves GraphiQL under the prefix, calling the API there, with its files', async () => {
    const page = await fetch(`${origin}/cronql/graphiql`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const urls = urlsOf(html);
    expect(urls.length).toBeGreaterThan(0);
    // cronql's own code of the page (the page and its small scripts, not GraphiQL's library bundle,
    // which mentions "/graphql" in its own defaults) names the API under the prefix, never at the root.
    let own = html;
    for (const url of urls) {
      expect(url.startsWith('/cronql/graphiql/')).toBe(true);
      const res = await fetch(`${origin}${url}`);
      expect(res.status).toBe(200);
      const text = await res.text();
      if (url.endsWith('.js') && text.length < 64 * 1024) own += text;
    }
    expect(own).toContain('"/cronql/graphql"');
    expect(own.includes('"/graphql"')).toBe(false);
  });

  it('leaves the host\'s routes to the host, and answers its own unknown paths itself', async () => {
    expect(await (await fetch(`${origin}/hello`)).json()).toEqual({ host: 'hello' });
    expect(await (await fetch(`${origin}/after`)).text()).toBe('after');
    const unknown = await fetch(`${origin}/cronql/nope`, { headers: { accept: 'application/json' } });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Not found' } });
    // The root's /graphql, /dashboard and /healthz are not cronql's here: the host's 404 (Express's page).
    for (const path of ['/graphql', '/dashboard', '/healthz']) {
      const res = await fetch(`${origin}${path}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('Cannot GET');
    }
  });

  it('close() detaches cronql and leaves the host server, its routes and its WebSockets running', async () => {
    const client = wsClient(`${origin.replace('http', 'ws')}/cronql/graphql`, adminToken);
    const closed = new Promise<number>((resolve) => client.on('closed', (e) => resolve((e as { code: number }).code)));
    const feed = new Feed(client, parse('subscription { runChanged { run { id } } }'));
    await connected(client);
    await attached.close();
    expect(await closed).toBe(1001);
    feed.close();
    await client.dispose();
    expect(server.listening).toBe(true);
    expect(await (await fetch(`${origin}/hello`)).json()).toEqual({ host: 'hello' });
    expect(await tryWebSocket(`${origin.replace('http', 'ws')}/host-ws`)).toEqual({ opened: true, echo: 'host:ping' });
    // cronql's paths are the host's now (nothing answers them but its 404).
    expect((await graphql('{ targets { name } }')).status).toBe(404);
    expect((await fetch(`${origin}/cronql/dashboard`)).status).toBe(404);
    // The cronql itself runs on: stopping it is the host's call.
    expect((await cronql.readiness()).checks.database).toBe('ok');
  });
});

describe('attachCronql path', () => {
  /** Every way a path may be wrong, generated: each bad character at each place, and malformed prefixes. */
  const bad = [
    '',
    '/',
    'cronql',
    '/cronql/',
    '//cronql',
    '/cronql//x',
    '/.',
    '/..',
    '/a/../b',
    ...[' ', '?', '#', '%', '/', '\\', '"', '<', '\u00e9', '\n', '*', ':', ';'].flatMap((c) => [`/${c}cronql`, `/cron${c}ql`, `/cronql${c}`]),
  ].filter((p) => p !== '/cron/ql');

  it('refuses a bad path with OptionsError naming it, before touching the host', async () => {
    const db = await createTestDatabase();
    const cronql = createCronql({ databaseUrl: db.url, instanceId: 'attach-path' });
    const uses: unknown[] = [];
    const app = { use: (m: unknown) => uses.push(m) };
    const server = createServer();
    try {
      for (const path of [...bad, 42, undefined] as string[]) {
        const thrown = await attachCronql(server, app, { cronql, path, adminToken: 'x'.repeat(32) }).catch((e: unknown) => e);
        expect(thrown, JSON.stringify(path)).toBeInstanceOf(OptionsError);
        expect((thrown as OptionsError).option).toBe('path');
        expect((thrown as OptionsError).message).toMatch(/^attachCronql: path must be a path such as "\/cronql"/);
      }
      expect(uses).toEqual([]);
      expect(server.listenerCount('upgrade')).toBe(0);
      // Nested prefixes are fine.
      const ok = await attachCronql(server, app, { cronql, path: '/internal/cron-ql_v1.0~x', adminToken: 'x'.repeat(32) });
      expect(ok.graphqlPath).toBe('/internal/cron-ql_v1.0~x/graphql');
      await ok.close();
    } finally {
      await db.drop();
    }
  });
});

describe('cronql\'s own server (startHttpServer) after the refactor', () => {
  it('still refuses a WebSocket on any path but /graphql with 400, and serves the API\'s', async () => {
    const api = await startApi({ instanceId: 'own-server-upgrade' });
    try {
      const ws = api.http.url.replace('http', 'ws');
      expect(await tryWebSocket(`${ws}/elsewhere`)).toEqual({ opened: false, status: 400 });
      const client = wsClient(api.wsUrl, api.adminToken);
      const answer = await wsOnce<{ targets: { name: string }[] }, undefined>(client, '{ targets { name } }');
      expect(answer.data?.targets.map((t) => t.name)).toContain('log');
      await client.dispose();
    } finally {
      await api.close();
    }
  });
});
