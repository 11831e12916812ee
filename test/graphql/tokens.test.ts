import { createHash, randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  ApiTokensDocument,
  CreateApiTokenDocument,
  CreateJobDocument,
  PauseJobDocument,
  ResumeJobDocument,
  RevokeApiTokenDocument,
  RunChangedDocument,
  WhoamiDocument,
  type RunChangedSubscription,
} from '../../src/client/generated/graphql.js';
import { createCronql, type Cronql } from '../../src/app.js';
import type { Pool } from '../../src/db/pool.js';
import { TokenRole } from '../../src/domain/token-role.js';
import { startHttpServer, type HttpServer } from '../../src/http/server.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { LOOKUPS_PER_SECOND, MAX_UNKNOWN_DIGESTS, TOKEN_CACHE_MS, TokenService } from '../../src/services/token.service.js';
import { Feed, codes, connected, gql, ok, snapshot, startApi, wsClient, wsOnce, type Api } from './support.js';
import { eventually } from '../support/cronql.js';

/**
 * Named tokens (docs/security.md, "Named tokens"): created with their secret shown once, used over
 * HTTP and WebSocket, revoked on one instance and refused — open subscriptions closed — on
 * another; expiry; the cache in front of the database, and its bounds under a flood of wrong tokens.
 */
const logged: string[] = [];
let a: Api;
/** A second instance (role api) on the same database, with a clock the expiry test moves. */
let b: { cronql: Cronql; http: HttpServer; url: string; wsUrl: string; clock: ManualClock };
let jobId: string;

beforeAll(async () => {
  // Everything instance A logs, at every level: the secrets must appear nowhere in it.
  const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
  a = await startApi({ log: pino({ level: 'trace' }, sink) });
  const clock = new ManualClock(new Date());
  const cronql = createCronql({ databaseUrl: a.cronql.databaseUrl, role: 'api', instanceId: 'tokens-b', clock });
  await cronql.start();
  const http = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: 'api', adminToken: a.adminToken, viewerToken: a.viewerToken });
  b = { cronql, http, url: `${http.url}/graphql`, wsUrl: `${http.url.replace(/^http/, 'ws')}/graphql`, clock };
  jobId = (
    await ok(a.url, CreateJobDocument, {
      input: { key: 'tokens', target: 'log', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 86_400_000).toISOString() },
    }, a.adminToken)
  ).createJob.id;
});
afterAll(async () => {
  await b?.http.close();
  await b?.cronql.stop();
  await a?.close();
});

const create = (name: string, role: TokenRole, extra: { labelSelector?: string | null; expiresAt?: string | null } = {}) =>
  ok(a.url, CreateApiTokenDocument, { name, role, ...extra }, a.adminToken).then((d) => d.createApiToken);

/** The text of a whole response, to look for a secret in. */
async function raw(url: string, query: string, token: string): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query }) });
  return res.text();
}

/** Resolves with the close event of the client's socket. */
const closedOf = (client: ReturnType<typeof wsClient>) =>
  new Promise<{ code: number; reason: string }>((resolve) => client.on('closed', (e) => resolve(e as { code: number; reason: string })));

describe('a named token', () => {
  test('is shown once, stored as a digest, acts under its own name and role, and its use is recorded', async () => {
    const { token, secret } = await create('ops-bot', TokenRole.OPERATOR);
    expect(secret).toMatch(/^cq_[A-Za-z0-9_-]{43}$/);
    expect(token).toMatchObject({ name: 'ops-bot', role: 'OPERATOR', labelSelector: null, revokedAt: null, lastUsedAt: null });

    expect((await ok(a.url, WhoamiDocument, {}, secret)).whoami).toMatchObject({ id: token.id, name: 'ops-bot', role: 'OPERATOR' });
    // An OPERATOR pauses and resumes, under its own name; it may not create jobs.
    expect((await ok(a.url, PauseJobDocument, { id: jobId, reason: 'maintenance' }, secret)).pauseJob).toMatchObject({ status: 'PAUSED', updatedBy: 'ops-bot' });
    expect((await ok(a.url, ResumeJobDocument, { id: jobId }, secret)).resumeJob.status).toBe('ACTIVE');
    const before = await snapshot(a.cronql);
    const refused = await gql(a.url, CreateJobDocument, { input: { key: 'by-operator', target: 'log', scheduleType: 'ONE_TIME', runAt: new Date(Date.now() + 86_400_000).toISOString() } }, secret);
    expect(codes(refused)).toEqual(['FORBIDDEN']);
    expect(await snapshot(a.cronql)).toBe(before);

    // Only the digest is stored; no answer but the creation's carries the secret.
    const row = (await a.cronql.pool.query('SELECT t::text AS text, secret_sha256 FROM cron_api_tokens t WHERE id = $1', [token.id])).rows[0];
    expect(row.secret_sha256).toEqual(createHash('sha256').update(secret).digest());
    expect(row.text).not.toContain(secret.slice(3));
    for (const [query, bearer] of [
      ['{ apiTokens { id name role labelSelector createdAt expiresAt lastUsedAt revokedAt } }', a.adminToken],
      ['{ whoami { id name role labelSelector createdAt expiresAt lastUsedAt revokedAt } }', secret],
    ] as const) {
      expect(await raw(a.url, query, bearer)).not.toContain(secret.slice(3));
    }
    // lastUsedAt is written off the request path, within a couple of seconds.
    const used = await eventually(async () => (await ok(a.url, ApiTokensDocument, {}, a.adminToken)).apiTokens.find((t) => t.id === token.id && t.lastUsedAt));
    expect(Date.parse(used.lastUsedAt!)).toBeGreaterThan(Date.parse(token.createdAt) - 1);

    const revoked = (await ok(a.url, RevokeApiTokenDocument, { id: token.id }, a.adminToken)).revokeApiToken;
    expect(revoked.revokedAt).not.toBeNull();
    // Revoking it again changes nothing.
    expect((await ok(a.url, RevokeApiTokenDocument, { id: token.id }, a.adminToken)).revokeApiToken.revokedAt).toBe(revoked.revokedAt);
    const after = await gql(a.url, WhoamiDocument, {}, secret);
    expect(after.status).toBe(401);
    expect(codes(after)).toEqual(['TOKEN_REVOKED']);
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('')).not.toContain(secret.slice(3));
  });

  test('the environment tokens answer whoami with their names, and no named token may take them', async () => {
    expect((await ok(a.url, WhoamiDocument, {}, a.adminToken)).whoami).toMatchObject({ id: 'env:admin', name: 'admin', role: 'ADMIN', labelSelector: null });
    expect((await ok(a.url, WhoamiDocument, {}, a.viewerToken)).whoami).toMatchObject({ id: 'env:viewer', name: 'viewer', role: 'VIEWER' });
  });

  test.each([
    ['an ADMIN with a labelSelector', { name: 'scoped-admin', role: TokenRole.ADMIN, labelSelector: 'team=billing' }, 'labelSelector'],
    ['the name of an environment token', { name: 'admin', role: TokenRole.VIEWER }, 'name'],
    ['the name of an environment token, in capitals', { name: 'Viewer', role: TokenRole.VIEWER }, 'name'],
    ['an empty name', { name: '', role: TokenRole.VIEWER }, 'name'],
    ['a name over 64 characters', { name: 'n'.repeat(65), role: TokenRole.VIEWER }, 'name'],
    ['a name with a space', { name: 'two words', role: TokenRole.VIEWER }, 'name'],
    ['an empty labelSelector', { name: 'empty-scope', role: TokenRole.VIEWER, labelSelector: ' ' }, 'labelSelector'],
    ['an expiresAt in the past', { name: 'expired', role: TokenRole.VIEWER, expiresAt: new Date(Date.now() - 1_000).toISOString() }, 'expiresAt'],
  ])('creation with %s is refused (BAD_USER_INPUT) and changes nothing', async (_, variables, field) => {
    const before = await a.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens');
    const res = await gql(a.url, CreateApiTokenDocument, variables, a.adminToken);
    expect(codes(res)).toEqual(['BAD_USER_INPUT']);
    expect(res.errors![0].extensions?.details).toEqual({ field });
    expect((await a.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens')).rows[0].n).toBe(before.rows[0].n);
  });

  test.each([
    ['does not parse', 'team=billing,,env'],
    ['uses an operator of no grammar', 'team>=3'],
    ['is over the length cap', `team in (${Array.from({ length: 300 }, (_, i) => `t${i}`).join(',')})`],
  ])('creation with a labelSelector that %s is refused (INVALID_SELECTOR) and changes nothing', async (_, labelSelector) => {
    const before = await a.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens');
    expect(codes(await gql(a.url, CreateApiTokenDocument, { name: 'bad-scope', role: 'VIEWER', labelSelector }, a.adminToken))).toEqual(['INVALID_SELECTOR']);
    expect((await a.cronql.pool.query('SELECT count(*)::int AS n FROM cron_api_tokens')).rows[0].n).toBe(before.rows[0].n);
  });

  test('a scoped OPERATOR token keeps its selector; an unscoped one has none (null and omitted alike)', async () => {
    const scoped = await create('billing-ops', TokenRole.OPERATOR, { labelSelector: 'team=billing, env in (prod,staging)' });
    expect(scoped.token.labelSelector).toBe('team=billing, env in (prod,staging)');
    expect((await ok(a.url, WhoamiDocument, {}, scoped.secret)).whoami).toMatchObject({ name: 'billing-ops', labelSelector: 'team=billing, env in (prod,staging)' });
    expect((await create('unscoped-null', TokenRole.VIEWER, { labelSelector: null })).token.labelSelector).toBeNull();
  });

  test('a name is unique among unrevoked tokens: taken while live, free once revoked (rotation)', async () => {
    const first = await create('rotating', TokenRole.VIEWER);
    expect(codes(await gql(a.url, CreateApiTokenDocument, { name: 'rotating', role: 'VIEWER' }, a.adminToken))).toEqual(['BAD_USER_INPUT']);
    await ok(a.url, RevokeApiTokenDocument, { id: first.token.id }, a.adminToken);
    expect((await create('rotating', TokenRole.VIEWER)).token.id).not.toBe(first.token.id);
    expect(codes(await gql(a.url, RevokeApiTokenDocument, { id: '00000000-0000-4000-8000-000000000000' }, a.adminToken))).toEqual(['NOT_FOUND']);
    expect(codes(await gql(a.url, RevokeApiTokenDocument, { id: 'env:admin' }, a.adminToken))).toEqual(['NOT_FOUND']);
  });
});

describe('revocation on every instance', () => {
  test('a revoked token is refused on the other instance at once, not from its cache, and its open subscriptions there are closed (4403)', async () => {
    const { token, secret } = await create('feed-reader', TokenRole.VIEWER);
    // B knows the token (its verdict cached) and holds a subscription of it; A too.
    expect((await ok(b.url, WhoamiDocument, {}, secret)).whoami?.name).toBe('feed-reader');
    const onB = wsClient(b.wsUrl, secret);
    const onA = wsClient(a.wsUrl, secret);
    const feeds: Feed<RunChangedSubscription>[] = [];
    try {
      const closedB = closedOf(onB);
      const closedA = closedOf(onA);
      const upB = connected(onB);
      const upA = connected(onA);
      feeds.push(new Feed(onB, RunChangedDocument, { filter: { jobId } }), new Feed(onA, RunChangedDocument, { filter: { jobId } }));
      await Promise.all([upB, upA]);

      const t0 = performance.now();
      await ok(a.url, RevokeApiTokenDocument, { id: token.id }, a.adminToken);
      const [onBClosed, onAClosed] = await Promise.all([closedB, closedA]);
      const closedAfterMs = performance.now() - t0;
      expect(onBClosed).toMatchObject({ code: 4403, reason: 'TOKEN_REVOKED' });
      expect(onAClosed).toMatchObject({ code: 4403, reason: 'TOKEN_REVOKED' });
      const refused = await gql(b.url, WhoamiDocument, {}, secret);
      const refusedAfterMs = performance.now() - t0;
      expect(refused.status).toBe(401);
      expect(codes(refused)).toEqual(['TOKEN_REVOKED']);
      // Within the cache's lifetime: the NOTIFY did it, not the cache running out.
      expect(refusedAfterMs).toBeLessThan(TOKEN_CACHE_MS);
      console.info(`revocation: other instance's socket closed ${closedAfterMs.toFixed(0)} ms, its next request refused ${refusedAfterMs.toFixed(0)} ms after revokeApiToken was sent`);

      // A new socket of the token is refused at connect.
      const again = wsClient(b.wsUrl, secret);
      try {
        await expect(wsOnce(again, WhoamiDocument)).rejects.toMatchObject({ code: 4401, reason: 'TOKEN_REVOKED' });
      } finally {
        await again.dispose();
      }
    } finally {
      feeds.forEach((f) => f.close());
      await onB.dispose();
      await onA.dispose();
    }
  });

  test('an expired token is refused (TOKEN_EXPIRED), by the instance\'s clock', async () => {
    const expiresAt = new Date(Date.now() + 3_600_000);
    const { secret } = await create('short-lived', TokenRole.VIEWER, { expiresAt: expiresAt.toISOString() });
    b.clock.set(new Date(Date.now()));
    expect((await ok(b.url, WhoamiDocument, {}, secret)).whoami?.name).toBe('short-lived');
    b.clock.set(new Date(expiresAt.getTime() + 1_000));
    const res = await gql(b.url, WhoamiDocument, {}, secret);
    expect(res.status).toBe(401);
    expect(codes(res)).toEqual(['TOKEN_EXPIRED']);
  });
});

test('an open socket of a token is closed (4403 TOKEN_EXPIRED) when the token expires', async () => {
  const { secret } = await create('expiring-feed', TokenRole.VIEWER, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
  const client = wsClient(a.wsUrl, secret);
  try {
    const closed = closedOf(client);
    const up = connected(client);
    const feed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobId } });
    await up;
    expect(await closed).toMatchObject({ code: 4403, reason: 'TOKEN_EXPIRED' });
    feed.close();
  } finally {
    await client.dispose();
  }
});

test('after a lost notification connection, the watched tokens are read again: one revoked meanwhile ends its sockets', async () => {
  // Two services on one database, with no notifications between them: a lost LISTEN connection.
  const here = new TokenService({ pool: a.cronql.pool, clock: a.cronql.clock, log: a.cronql.log });
  const there = new TokenService({ pool: a.cronql.pool, clock: a.cronql.clock, log: a.cronql.log });
  const { token, secret } = await here.create({ name: 'missed-revocation', role: TokenRole.VIEWER }, 'admin');
  expect((await here.check(secret)).ok).toBe(true);
  let ended = 0;
  here.watch(token.id, () => ended++);
  await there.revoke(token.id, 'admin');
  // Not heard here: the cached verdict still stands, until the resynchronisation.
  expect(ended).toBe(0);
  await here.resync();
  expect(ended).toBe(1);
  expect(await here.check(secret)).toEqual({ ok: false, code: 'TOKEN_REVOKED' });
  await Promise.all([here.stop(), there.stop()]);
});

describe('the cache in front of the database', () => {
  /** A pool that counts the statements sent through it. */
  function counting(pool: Pool): { pool: Pool; count: () => number } {
    let n = 0;
    const proxy = new Proxy(pool, {
      get(target, prop, receiver) {
        if (prop === 'query') return (...args: unknown[]) => (n++, (target.query as (...a: unknown[]) => unknown)(...args));
        return Reflect.get(target, prop, receiver);
      },
    });
    return { pool: proxy, count: () => n };
  }
  const wellShaped = () => `cq_${randomBytes(32).toString('base64url')}`;

  test('a known token costs one look-up; wrong tokens in a flood cost a bounded number, and bounded memory', async () => {
    const { pool, count } = counting(a.cronql.pool);
    let mono = 0;
    const service = new TokenService({ pool, clock: a.cronql.clock, log: a.cronql.log, monotonicMs: () => mono });
    const { secret } = await service.create({ name: 'cached', role: TokenRole.VIEWER }, 'admin');
    const sent = count();
    for (let i = 0; i < 20; i++) expect((await service.check(secret)).ok).toBe(true);
    expect(count() - sent).toBe(1);

    // Junk is refused by its shape, without a query.
    const beforeJunk = count();
    for (let i = 0; i < 1_000; i++) expect(await service.check(`junk-${i}-${'x'.repeat(40)}`)).toEqual({ ok: false, code: 'UNKNOWN' });
    expect(count()).toBe(beforeJunk);

    // Well-shaped wrong tokens, all at one instant: at most the look-up budget reaches the database.
    const beforeFlood = count();
    const flood = await Promise.all(Array.from({ length: 500 }, () => service.check(wellShaped())));
    expect(flood.every((v) => !v.ok)).toBe(true);
    expect(count() - beforeFlood).toBeLessThanOrEqual(LOOKUPS_PER_SECOND);

    // Spread over time (the budget refilled), the remembered unknown digests stay bounded.
    for (let i = 0; i < MAX_UNKNOWN_DIGESTS + 50; i++) {
      mono += 1_000 / LOOKUPS_PER_SECOND;
      await service.check(wellShaped());
    }
    expect(service.cacheSizes.unknown).toBeLessThanOrEqual(MAX_UNKNOWN_DIGESTS);
    expect(service.cacheSizes.known).toBe(1);
    // The known token is still answered (from the cache until it runs out, then once more from the database).
    expect((await service.check(secret)).ok).toBe(true);
    await service.stop();
  });
});
