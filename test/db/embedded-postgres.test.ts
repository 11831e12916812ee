import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';

const orphanScript = fileURLToPath(new URL('../fixtures/orphan-postgres.mjs', import.meta.url));

async function select1(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT 1 AS one')).rows[0].one;
  } finally {
    await c.end();
  }
}

describe('embedded PostgreSQL', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('is reused across restarts and survives a SIGKILLed previous process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cronql-embedded-'));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const log = createLogger();

    // First start initialises the cluster; data written then is there after a restart.
    const first = await startEmbeddedPostgres({ dataDir: dir, log });
    const c = new pg.Client({ connectionString: first.url });
    await c.connect();
    await c.query('CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
    await c.end();
    await first.stop();

    // A process starts the cluster and is killed with SIGKILL: its postmaster lives on.
    const child = spawn(process.execPath, [orphanScript, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d) => String(d).includes('up') && resolve());
      child.on('exit', (code) => reject(new Error(`orphan script exited with ${code}`)));
    });
    child.kill('SIGKILL');
    const orphanPid = Number((await readFile(join(dir, 'pg', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    expect(() => process.kill(orphanPid, 0)).not.toThrow();

    const second = await startEmbeddedPostgres({ dataDir: dir, log });
    try {
      expect(() => process.kill(orphanPid, 0)).toThrow();
      const c2 = new pg.Client({ connectionString: second.url });
      await c2.connect();
      expect((await c2.query('SELECT v FROM kept')).rows).toEqual([{ v: 42 }]);
      await c2.end();
    } finally {
      await second.stop();
    }

    // A stale pid file (its process long gone) is removed rather than blocking the start.
    await writeFile(join(dir, 'pg', 'postmaster.pid'), '999999\n/x\n0\n5432\n');
    const third = await startEmbeddedPostgres({ dataDir: dir, log });
    try {
      expect(await select1(third.url)).toBe(1);
    } finally {
      await third.stop();
    }
  }, 60_000);
});
