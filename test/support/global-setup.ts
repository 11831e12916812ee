import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';

/**
 * One PostgreSQL server for the whole run: `DATABASE_URL` if set, else an embedded one in a
 * temporary directory. Each test file then creates a database of its own (test/support/db.ts).
 */
let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.DATABASE_URL;
  if (!url) {
    dir = await mkdtemp(join(tmpdir(), 'cronql-test-'));
    const { chmod } = await import('node:fs/promises');
    await chmod(dir, 0o755); // the embedded server may run as the `postgres` user
    embedded = await startEmbeddedPostgres({ dataDir: dir, log: createLogger(), ephemeral: true, database: 'cronql_test' });
    url = embedded.url;
  }
  project.provide('databaseUrl', url);
}

export async function teardown(): Promise<void> {
  await embedded?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}
