import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { RunStore } from '../../src/db/run-store.js';
import { FIRE_PARTS, primeFire } from '../../src/db/runs/fire.js';
import { OverlapPolicy } from '../../src/domain/enums.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * A process that fires slots primes every connection its pool opens with the fire statement,
 * recording nothing, so that no fire pays for a backend's cold caches (fire.ts, `primeFire`).
 */
describe('connections primed for the fire statement', () => {
  let db: TestDatabase;
  let pool: Pool;
  const now = new Date('2026-11-27T12:00:00.000Z');
  /** The statements each connection of the pool ran, in order, by backend. */
  const sent = new Map<number, string[]>();
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    // Registered first: sees the primer's statement too.
    pool.on('connect', (client: pg.PoolClient) => {
      const texts: string[] = [];
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: typeof query }).query = (...args) => {
        if (typeof args[0] === 'string') texts.push(args[0]);
        return query(...args);
      };
      sent.set(sent.size, texts);
    });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('each new connection runs the statement a co-due fire sends, first, and it records nothing', async () => {
    const store = new RunStore({ pool, instanceId: 'prime', now: () => now, publish: () => {} });
    store.primeConnections();
    const jobs = (
      await pool.query(
        `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
         SELECT gen_random_uuid(), 'prime-' || i, 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $1, $1 FROM generate_series(1, 3) AS i RETURNING id`,
        [now],
      )
    ).rows.map((r) => r.id as string);
    expect((await pool.query('SELECT count(*)::int AS n FROM cron_job_runs')).rows[0].n).toBe(0);
    // Three connections at once: each is new, and primed before its first statement.
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    await Promise.all(clients.map((c) => c.query('SELECT 1')));
    for (const c of clients) c.release();
    const primers = [...sent.values()].map((texts) => texts[0]);
    expect(primers.length).toBeGreaterThanOrEqual(3);
    expect(new Set(primers).size).toBe(1);
    expect((await pool.query('SELECT count(*)::int AS n FROM cron_job_runs')).rows[0].n).toBe(0);

    // What a fire of co-due slots sends is that statement.
    const job = { jobKey: 'k', version: 1, target: 'log', payload: null, overlap: OverlapPolicy.SKIP };
    const outcomes = await Promise.all(jobs.map((jobId) => store.fire({ jobId, slot: now, job })));
    expect(outcomes.map((o) => o.kind)).toEqual(['claimed', 'claimed', 'claimed']);
    const fired = [...sent.values()].flatMap((texts) => texts.slice(1)).filter((t) => t.trimStart().startsWith('INSERT INTO cron_job_runs'));
    expect(fired).toEqual([primers[0]]);
  });

  it('opens, primed, the connections a co-due batch is recorded on, and keeps that many while idle', async () => {
    // Without them, a batch's second part waited at its slot for a connection to be opened,
    // authenticated and primed (run-store.ts, `openFireConnections`).
    const own = createPool(db.url);
    try {
      const primed: string[] = [];
      own.on('connect', (client: pg.PoolClient) => {
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as unknown as { query: typeof query }).query = (...args) => {
          if (typeof args[0] === 'string' && primed.length < 10) primed.push(args[0]);
          return query(...args);
        };
      });
      own.options.idleTimeoutMillis = 1_000;
      const store = new RunStore({ pool: own, instanceId: 'prime', now: () => now, publish: () => {} });
      store.primeConnections();
      expect(own.totalCount).toBe(0);
      await store.openFireConnections();
      expect(FIRE_PARTS).toBeGreaterThanOrEqual(2);
      expect([own.totalCount, own.idleCount]).toEqual([FIRE_PARTS, FIRE_PARTS]);
      expect(primed.length).toBe(FIRE_PARTS);
      expect(primed.every((t) => t.trimStart().startsWith('INSERT INTO cron_job_runs'))).toBe(true);

      // One more connection for a while (a busier moment), then every one of them idle past the
      // timeout: the pool closes the extra one only.
      const clients = await Promise.all(Array.from({ length: FIRE_PARTS + 1 }, () => own.connect()));
      expect(own.totalCount).toBe(FIRE_PARTS + 1);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        for (const c of clients) c.release();
        vi.advanceTimersByTime(3 * 1_000);
      } finally {
        vi.useRealTimers();
      }
      expect(own.totalCount).toBe(FIRE_PARTS);
      // Still usable: the kept connections answer.
      expect((await own.query('SELECT 1 AS one')).rows[0].one).toBe(1);
      expect(own.totalCount).toBe(FIRE_PARTS);
    } finally {
      await own.end();
    }
  });

  it('opening them never fails a start: a database that cannot be reached leaves them to the first statements', async () => {
    const unreachable = createPool('postgres://nobody:nothing@127.0.0.1:1/none', { connectTimeoutMs: 1_000, queryTimeoutMs: 1_000 });
    try {
      const store = new RunStore({ pool: unreachable, instanceId: 'prime', now: () => now, publish: () => {} });
      store.primeConnections();
      await expect(store.openFireConnections()).resolves.toBeUndefined();
      expect(unreachable.totalCount).toBe(0);
    } finally {
      await unreachable.end();
    }
  });

  it('never fails: a connection whose statement fails (tables not migrated yet) leaves it to the first fire', async () => {
    const failing = { query: () => Promise.reject(Object.assign(new Error('relation "cron_job_runs" does not exist'), { code: '42P01' })) };
    await expect(primeFire(failing, 'prime', now)).resolves.toBeUndefined();
  });
});

describe('a connection that fails while it is prepared', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('is dropped and its borrower told, the process unharmed; the next connection is prepared and lent', async () => {
    const { prepareNewConnections } = await import('../../src/db/pool.js');
    const pool = createPool(db.url);
    const admin = createPool(db.url);
    try {
      let prepared = 0;
      prepareNewConnections(pool, async (connection) => {
        // The first connection's backend is ended while it is being prepared (a reset, a restart).
        if (prepared++ === 0) {
          const ended = new Promise((resolve) => connection.once('end', resolve));
          await admin.query('SELECT pg_terminate_backend($1)', [(connection as unknown as { processID: number }).processID]);
          await ended; // its 'error' comes first, with no statement of its own in flight
        }
        await connection.query('SELECT 1').catch(() => undefined);
      });
      const first = await pool.query('SELECT 1 AS one').then(() => 'answered', (err: { code?: string; message: string }) => err.code ?? err.message);
      expect(first).not.toBe('answered');
      expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
      expect(prepared).toBe(2);
    } finally {
      await pool.end();
      await admin.end();
    }
  });
});
