import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import type { Logger } from '../src/logger.js';

/** The benchmarks' PostgreSQL: DATABASE_URL if set, else an embedded one in a temporary directory. */
export async function benchServer(log: Logger): Promise<{ url: string; stop: () => Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'cronql-bench-'));
  const db = await startEmbeddedPostgres({ dataDir: dir, log, ephemeral: true, database: 'postgres' });
  return {
    url: db.url,
    stop: async () => {
      await db.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
