import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, endPool, type Pool } from '../../src/db/pool.js';
import { inTransaction } from '../../src/db/runs/context.js';
import { openOrm, type MikroORM } from '../../src/db/orm.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * A connection borrowed from the pool has no 'error' listener of the pool's. When its backend is
 * ended between two statements (a database restart, an administrator: 57P01), node-postgres
 * emits 'error' on it; with nobody listening that is an uncaught exception, which kills a
 * process (vitest fails the run on it). Both borrowers — the run store's transactions and
 * MikroORM's dialect — must take it, fail the work, and drop the connection.
 */
describe('a borrowed connection whose backend ends between two statements', () => {
  let db: TestDatabase;
  let pool: Pool;
  let orm: MikroORM;
  const admin = () => new pg.Client({ connectionString: db.url });
  const terminate = async (pid: number) => {
    const c = admin();
    await c.connect();
    try {
      await c.query('SELECT pg_terminate_backend($1)', [pid]);
    } finally {
      await c.end();
    }
  };
  // The pool hands out the connection: its 'end' event comes after the 'error' it emitted. (Not
  // `events.once`: that listens for 'error' itself, and would hide the very fault tested.)
  let lastBorrowed: pg.PoolClient | undefined;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    pool.on('acquire', (client) => {
      lastBorrowed = client;
    });
    orm = await openOrm({ databaseUrl: db.url, pool });
  });
  afterAll(async () => {
    await orm?.close();
    await endPool(pool, 5_000);
    await db.drop();
  });

  it('in a run-store transaction: the work fails, nothing is uncaught, the pool lends a sound connection next', async () => {
    const work = inTransaction(pool, async (q) => {
      const { rows } = await q('SELECT pg_backend_pid() AS pid', []);
      const client = lastBorrowed!;
      const ended = new Promise((resolve) => client.once('end', resolve));
      await terminate(rows[0].pid as number);
      await ended;
      return q('SELECT 1', []);
    });
    await expect(work).rejects.toThrow();
    const { rows } = await pool.query('SELECT 1 AS one');
    expect(rows[0].one).toBe(1);
  });

  it('in a MikroORM transaction: the same', async () => {
    const em = orm.em.fork();
    const work = em.transactional(async (tx) => {
      const [row] = await tx.execute<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
      const client = lastBorrowed!;
      const ended = new Promise((resolve) => client.once('end', resolve));
      await terminate(row.pid);
      await ended;
      return tx.execute('SELECT 1');
    });
    await expect(work).rejects.toThrow();
    const [row] = await orm.em.fork().execute<{ one: number }[]>('SELECT 1 AS one');
    expect(row.one).toBe(1);
  });
});
