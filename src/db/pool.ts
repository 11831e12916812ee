import pg from 'pg';
import { PG_TYPES } from './timestamps.js';

export type Pool = pg.Pool;

/**
 * How long cronql waits for PostgreSQL. Without bounds, a network that silently drops packets
 * (failover, lost NAT entry) makes every wait last until the kernel gives up, about 15 minutes:
 * requests hang, probes never answer, shutdown never ends.
 */
export interface DbBounds {
  /** For a new connection, and for a free connection of a full pool. @default 5000 */
  connectTimeoutMs: number;
  /** Client-side bound on one statement; the server's `statement_timeout` is set to match. @default 10000 */
  queryTimeoutMs: number;
}

export const DEFAULT_DB_BOUNDS: DbBounds = { connectTimeoutMs: 5_000, queryTimeoutMs: 10_000 };

/** Connections of the process's one pool: every statement of the process, the ORM's included. */
export const DEFAULT_POOL_SIZE = 10;

/** PostgreSQL's unique_violation (SQLSTATE): a statement met a row of a unique index. */
export const UNIQUE_VIOLATION = '23505';

/** How long the pool keeps a connection no one uses. */
export const IDLE_CONNECTION_MS = 10 * 60_000;

/**
 * node-postgres connection options that bound every wait: connect timeout, a client-side query
 * timeout (a statement whose answer never arrives fails, and the pool then drops its connection),
 * the same bound server-side (the server stops work nobody waits for), and TCP keep-alive so a
 * half-open connection is eventually noticed even when idle.
 */
export function connectionOptions(databaseUrl: string, bounds: DbBounds = DEFAULT_DB_BOUNDS): pg.ClientConfig {
  return {
    connectionString: databaseUrl,
    connectionTimeoutMillis: bounds.connectTimeoutMs,
    query_timeout: bounds.queryTimeoutMs,
    statement_timeout: bounds.queryTimeoutMs,
    // A transaction left open by a client that vanished must not hold its locks for long.
    idle_in_transaction_session_timeout: Math.max(bounds.queryTimeoutMs * 3, 30_000),
    keepAlive: true,
    keepAliveInitialDelayMillis: 5_000,
    // node-postgres's parsers, with a faster one for timestamptz (same values).
    types: PG_TYPES,
  };
}

/**
 * The process's one connection pool, whatever its role. The fire path speaks plain SQL through
 * it: it passes whole arrays as single parameters (`unnest($1::uuid[], …)`), which is what lets
 * one statement record thousands of co-due slots. MikroORM (job definitions) borrows its
 * connections from it too (orm-dialect.ts), so every statement has the same bounds and one size
 * caps them all. Beside it a process holds only the LISTEN connection (notifier.ts) and the
 * readiness probe's one connection; at startup, before the pool opens, migrations use a small
 * pool of their own (orm.ts, `migrateDatabase`) that is closed when they are applied.
 * A caller waiting for a free connection waits at most `connectTimeoutMs` (pg-pool applies the
 * connection timeout to its waiters too), so the queue of waiters cannot grow without bound.
 */
export function createPool(databaseUrl: string, bounds: DbBounds = DEFAULT_DB_BOUNDS, max = DEFAULT_POOL_SIZE): Pool {
  // Idle connections are kept 10 minutes: slots come due every minute or every few, and a
  // connection opened at the slot costs the fire path ~5 ms to connect and a backend's cold
  // caches (BENCHMARKS.md, "2026-11-26 (s9, lead)"); the pool's size still bounds them.
  const pool = new pg.Pool({ ...connectionOptions(databaseUrl, bounds), max, idleTimeoutMillis: IDLE_CONNECTION_MS });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/**
 * Runs `prepare` on each connection the pool opens from now on, before the connection is lent
 * (pg-pool's `verify`): a statement queued as it opens would run beside its borrower's, which pg
 * deprecates. A failing `prepare` does not fail the connection; the connection failing meanwhile
 * (reset, the server restarting) does: the pool drops it and its borrower is told, as if its own
 * statement had met it. Until lent, the connection has no other listener of its 'error' event,
 * which would otherwise be thrown.
 */
export function prepareNewConnections(pool: Pool, prepare: (connection: pg.PoolClient) => Promise<void>): void {
  pool.options.verify = (connection, done) => {
    let lost: Error | undefined;
    const onError = (err: Error) => void (lost ??= err);
    connection.on('error', onError);
    const settle = () => {
      connection.off('error', onError);
      done(lost);
    };
    void prepare(connection).then(settle, settle);
  };
}

/**
 * Closes a pool without waiting forever: `pool.end()` waits for checked-out clients, and a client
 * stuck on a dead network may never come back. Resolves after `ms` either way.
 */
export async function endPool(pool: Pool, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pool.end().catch(() => {}), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * True for errors that mean "the database did not answer in time or is unreachable", as opposed
 * to errors about the statement or its data: connection refused/reset/closed, a connect or query
 * timeout, a server shutting down, too many connections, a statement canceled by its timeout.
 * The one definition: the API answers these DATABASE_UNAVAILABLE, the runtime defers or retries
 * on them, whichever layer (plain SQL or MikroORM, which keeps the driver's error as `cause` or
 * copies its code and message) sent the statement.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (/^(08|53|57)/.test(code) && code.length === 5) return true; // connection, resources, operator intervention (incl. 57014 canceled)
      if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
    }
    const message = String((e as { message?: unknown }).message ?? '');
    if (
      /timeout exceeded when trying to connect|Query read timeout|Connection terminated|connection timeout|Knex: Timeout acquiring a connection|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end|terminating connection/i.test(
        message,
      )
    ) {
      return true;
    }
  }
  return false;
}

/**
 * Worth trying again as is: the database is unavailable (above), or it rolled the transaction
 * back for a conflict with another one (SQLSTATE class 40: serialization failure, deadlock).
 * Anything else is about the statement or its data and fails the same way every time.
 */
export function isRetryable(err: unknown): boolean {
  if (isDatabaseUnavailable(err)) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^40[0-9A-Z]{3}$/.test(code);
}

/** jsonb parameters: undefined/null become SQL NULL, anything else JSON text. */
export const jsonParam = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
