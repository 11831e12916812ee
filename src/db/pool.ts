import pg from 'pg';

export type Pool = pg.Pool;

/**
 * The runtime's connection pool. The fire path speaks plain SQL through node-postgres: it
 * passes whole arrays as single parameters (`unnest($1::uuid[], …)`), which is what lets one
 * statement record thousands of co-due slots. Services and migrations go through MikroORM.
 */
export function createPool(databaseUrl: string, max = 10): Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return pool;
}

/** jsonb parameters: undefined/null become SQL NULL, anything else JSON text. */
export const jsonParam = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
