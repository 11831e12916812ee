import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { RunStore } from '../../src/db/run-store.js';
import { FIRE_PARTS, PRIME_PLANS, primeFire } from '../../src/db/runs/fire.js';
import { OverlapPolicy } from '../../src/domain/enums.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/** A statement as a connection was asked to run it: text, and name if named. */
interface Statement {
  text: string;
  name?: string;
}
const statementOf = (arg: unknown): Statement | undefined =>
  typeof arg === 'string' ? { text: arg } : typeof (arg as Statement | undefined)?.text === 'string' ? { text: (arg as Statement).text, name: (arg as Statement).name } : undefined;

/** `n` ACTIVE jobs; their ids. */
async function insertJobs(pool: Pool, n: number): Promise<string[]> {
  const rows = await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
     SELECT gen_random_uuid(), 'prime-' || gen_random_uuid(), 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', now(), now() FROM generate_series(1, $1) AS i RETURNING id`,
    [n],
  );
  return rows.rows.map((r) => r.id as string);
}

/**
 * A process that fires slots primes every connection its pool opens with the fire statement,
 * recording nothing, so that no fire pays for a backend's cold caches (fire.ts, `primeFire`).
 */
describe('connections primed for the fire statement', () => {
  let db: TestDatabase;
  let pool: Pool;
  const now = new Date('2026-11-27T12:00:00.000Z');
  /** The statements each connection of the pool ran, in order, by backend. */
  const sent = new Map<number, Statement[]>();
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    // Registered first: sees the primer's statement too.
    pool.on('connect', (client: pg.PoolClient) => {
      const statements: Statement[] = [];
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: typeof query }).query = (...args) => {
        const st = statementOf(args[0]);
        if (st) statements.push(st);
        return query(...args);
      };
      sent.set(sent.size, statements);
    });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it('each new connection runs, first, the statements a co-due fire sends, named; they record nothing', async () => {
    const store = new RunStore({ pool, instanceId: 'prime', now: () => now, publish: () => {} });
    store.primeConnections();
    const jobs = await insertJobs(pool, 3);
    expect((await pool.query('SELECT count(*)::int AS n FROM cron_job_runs')).rows[0].n).toBe(0);
    // Three connections at once: each is new, and primed before its first statement.
    const clients = await Promise.all([pool.connect(), pool.connect(), pool.connect()]);
    await Promise.all(clients.map((c) => c.query('SELECT 1')));
    for (const c of clients) c.release();
    const primers = [...sent.values()].map((statements) => statements.slice(0, PRIME_PLANS));
    expect(primers.length).toBeGreaterThanOrEqual(3);
    // Each connection: the one statement, named, PRIME_PLANS times; the same on every connection.
    for (const statements of primers) expect(statements.every((st) => st.text.trimStart().startsWith('INSERT INTO cron_job_runs') && st.name?.startsWith('cronql_fire_'))).toBe(true);
    expect(new Set(primers.flatMap((statements) => statements.map((st) => `${st.name} ${st.text}`))).size).toBe(1);
    expect((await pool.query('SELECT count(*)::int AS n FROM cron_job_runs')).rows[0].n).toBe(0);

    // What a fire of co-due slots sends is one of those statements, by the same name.
    const job = { jobKey: 'k', version: 1, target: 'log', payload: null, overlap: OverlapPolicy.SKIP };
    const outcomes = await Promise.all(jobs.map((jobId) => store.fire({ jobId, slot: now, job })));
    expect(outcomes.map((o) => o.kind)).toEqual(['claimed', 'claimed', 'claimed']);
    const fired = [...sent.values()].flatMap((statements) => statements.slice(PRIME_PLANS)).filter((st) => st.text.trimStart().startsWith('INSERT INTO cron_job_runs'));
    expect(fired).toEqual([primers[0][0]]);
  });

  it('a fire runs on the plan PostgreSQL kept for the statement: it plans nothing', async () => {
    // One connection, so that its prepared statements are the ones the fire used.
    const own = createPool(db.url);
    own.options.max = 1;
    try {
      const store = new RunStore({ pool: own, instanceId: 'plans', now: () => now, publish: () => {} });
      store.primeConnections();
      const jobs = await insertJobs(own, 3);
      const plans = async () =>
        (await own.query(`SELECT name, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'cronql_fire_%' ORDER BY name`))
          .rows as { name: string; generic: number; custom: number }[];
      const primed = await plans();
      // The prime: planned with its values five times, as PostgreSQL does before it weighs a generic
      // plan, then once on the generic plan, built and kept: the first fire finds it.
      expect(primed.map((p) => [p.generic, p.custom])).toEqual([[1, 5]]);
      const job = { jobKey: 'k', version: 1, target: 'log', payload: null, overlap: OverlapPolicy.SKIP };
      const later = new Date(now.getTime() + 60_000);
      for (const slot of [now, later]) {
        const outcomes = await Promise.all(jobs.map((jobId) => store.fire({ jobId, slot, job })));
        expect(outcomes.map((o) => o.kind)).toEqual(['claimed', 'claimed', 'claimed']);
        await own.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE status = 'RUNNING'`, [slot]);
      }
      const after = await plans();
      // Two fires, each on the kept generic plan; nothing planned with its values since the prime.
      expect(after).toEqual([{ name: primed[0].name, generic: 3, custom: 5 }]);
      expect((await own.query('SELECT count(*)::int AS n FROM cron_job_runs WHERE runner_instance_id = $1', ['plans'])).rows[0].n).toBe(6);
    } finally {
      await own.end();
    }
  });

  it('an instance that meets other writers of its slots primes the statement that skips conflicts', async () => {
    const own = createPool(db.url);
    own.options.max = 1;
    try {
      const client = await own.connect();
      try {
        await primeFire(client, 'plans', now, true);
        const kept = (await client.query(`SELECT statement, custom_plans::int AS custom FROM pg_prepared_statements WHERE name LIKE 'cronql_fire_%'`)).rows;
        expect(kept).toHaveLength(1);
        expect(kept[0].custom).toBe(5);
        expect(kept[0].statement).toContain('ON CONFLICT');
      } finally {
        client.release();
      }
    } finally {
      await own.end();
    }
  });

  it('opens, primed, the connections a co-due batch is recorded on, and keeps that many while idle', async () => {
    // Without them, a batch's second part waited at its slot for a connection to be opened,
    // authenticated and primed (run-store.ts, `openFireConnections`).
    const own = createPool(db.url);
    try {
      /** The first statements of each connection the pool opened. */
      const primed: string[][] = [];
      own.on('connect', (client: pg.PoolClient) => {
        const texts: string[] = [];
        primed.push(texts);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as unknown as { query: typeof query }).query = (...args) => {
          const st = statementOf(args[0]);
          if (st && texts.length < PRIME_PLANS) texts.push(st.text);
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
      expect(primed.map((texts) => texts.length)).toEqual(Array.from({ length: FIRE_PARTS }, () => PRIME_PLANS));
      expect(primed.flat().every((t) => t.trimStart().startsWith('INSERT INTO cron_job_runs'))).toBe(true);

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
