import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { databaseUrl, withAdmin } from './template-database.js';

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/**
 * A fresh database for one test file on the shared test server; dropped by `drop()`.
 * Test files run in parallel, so each gets its own database rather than truncating a shared one.
 *
 * It is a copy of the template migrated once in global setup (test/support/template-database.ts):
 * every migration already applied, so a cronql started on it has none left to run. `empty: true`
 * gives a database with no schema at all, for the tests of the migrations themselves.
 */
export async function createTestDatabase(o: { empty?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = inject('databaseUrl');
  const name = `cronql_t_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (c) => c.query(o.empty ? `CREATE DATABASE ${name}` : `CREATE DATABASE ${name} TEMPLATE ${inject('templateDatabase')}`));
  return {
    url: databaseUrl(serverUrl, name),
    async drop() {
      await withAdmin(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
