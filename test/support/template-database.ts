import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrateDatabase } from '../../src/db/orm.js';

/**
 * The migrated schema, built once per test run: global setup migrates a template database, and
 * each test file's database is a copy of it (`CREATE DATABASE … TEMPLATE`, test/support/db.ts)
 * rather than an empty database that runs every migration again (about 0.5 s a file).
 *
 * PostgreSQL copies a template only while nobody is connected to it: once migrated it is closed
 * to connections (ALLOW_CONNECTIONS false), so a stray client cannot make the copies fail.
 * The migrations themselves are still tested from an empty database (test/db/migrations.test.ts).
 */
export interface TemplateDatabase {
  name: string;
  drop(): Promise<void>;
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withAdmin<T>(serverUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

export async function createTemplateDatabase(serverUrl: string): Promise<TemplateDatabase> {
  // A name of its own: two test runs may share one DATABASE_URL.
  const name = `cronql_template_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`));
  await migrateDatabase(databaseUrl(serverUrl, name));
  await withAdmin(serverUrl, async (c) => {
    await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await c.query(`ALTER DATABASE ${name} IS_TEMPLATE true`);
  });
  return {
    name,
    drop: () =>
      withAdmin(serverUrl, async (c) => {
        await c.query(`ALTER DATABASE ${name} IS_TEMPLATE false`);
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
