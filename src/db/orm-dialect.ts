import { PostgreSqlKnexDialect } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { isDatabaseUnavailable, type Pool } from './pool.js';

/** What knex's PostgreSQL client reads of a query it sends (its `_query` argument). */
interface KnexQuery {
  sql: string;
  bindings?: unknown[];
  options?: Record<string, unknown>;
}

/** Set on a borrowed connection whose statement failed because the database did not answer. */
const BROKEN = Symbol('cronql.brokenConnection');
const LOST = Symbol('cronql.lostConnection');
type Borrowed = pg.PoolClient & { [BROKEN]?: Error; [LOST]?: Error };

/** The 'error' listener of a borrowed connection (`this` is the connection). */
function markLost(this: Borrowed, err: Error): void {
  this[LOST] = err;
}

/**
 * A knex PostgreSQL client (the one MikroORM drives) that has no pool of its own: every
 * connection it uses is borrowed from the process's one `pg.Pool` and given back to it. So the
 * ORM's statements and the fire path's plain SQL share one set of connections, one size, and the
 * same bounds — a connection or a statement that does not answer in time fails the same way
 * (see DbBounds), whichever layer sent it.
 *
 * knex's own pool (tarn) is never created; what knex did when it opened a connection (reading the
 * server version, for its feature checks) is done on the first one borrowed.
 */
export function dialectOver(pool: Pool): typeof PostgreSqlKnexDialect {
  class PooledDialect extends PostgreSqlKnexDialect {
    initializePool(): void {
      // No pool of knex's own: `pool` is the process's.
    }

    async acquireConnection(): Promise<Borrowed> {
      const client: Borrowed = await pool.connect();
      // While borrowed the pool listens for nothing: a backend ended between two statements
      // would be an uncaught 'error' event. Noted here, the connection is dropped on release.
      client[LOST] = undefined;
      client.on('error', markLost);
      const self = this as unknown as { version?: string; checkVersion(c: pg.PoolClient): Promise<string> };
      if (!self.version) {
        try {
          self.version = await self.checkVersion(client);
        } catch (err) {
          client.off('error', markLost);
          client.release(err as Error);
          throw err;
        }
      }
      return client;
    }

    async releaseConnection(client: Borrowed): Promise<void> {
      // A connection whose statement timed out may still owe that statement's answer: the pool
      // drops it rather than lend it again (what `pool.query` does on an error).
      const broken = client[BROKEN] ?? client[LOST];
      delete client[BROKEN];
      delete client[LOST];
      client.off('error', markLost);
      client.release(broken);
    }

    /**
     * The statement with MikroORM's type parsers (dates as text, which MikroORM reads itself):
     * they are per statement, so the pool's connections keep node-postgres's defaults for the
     * plain SQL beside.
     */
    _query(client: Borrowed, obj: KnexQuery): Promise<unknown> {
      const types = (this as unknown as { connectionSettings?: { types?: unknown } }).connectionSettings?.types;
      if (types) obj.options = { ...obj.options, types };
      const query = (PostgreSqlKnexDialect.prototype as unknown as { _query(c: Borrowed, o: KnexQuery): Promise<unknown> })._query;
      return query.call(this, client, obj).catch((err: Error) => {
        if (isDatabaseUnavailable(err)) client[BROKEN] = err;
        throw err;
      });
    }

    async destroy(callback?: (err?: unknown) => void): Promise<void> {
      // The pool belongs to its owner, who ends it (endPool).
      callback?.();
    }
  }
  return PooledDialect;
}
