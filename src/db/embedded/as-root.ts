import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, lstat, mkdir, readlink, realpath, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from '../../logger.js';
import { binariesUnder, type PostgresBinaries } from './binaries.js';

/**
 * PostgreSQL refuses to run as root. When cronql runs as root (the usual container case) the
 * embedded server runs as the `postgres` system user (created if missing), which must be able to
 * reach the binaries and the cluster directory. A project cloned under /root, or any 0700
 * directory, hides both from it; then:
 * - the binaries are copied once to a shared place it can read (per PostgreSQL version);
 * - the cluster is kept in a place of its own under that shared place, and `<dataDir>/pg` becomes
 *   a symbolic link to it, so the data is still found through the directory the user chose.
 */
export interface RunAs {
  uid: number;
  gid: number;
}

/** Shared place for relocated binaries and clusters (only root gets here). */
const SHARED = '/var/lib/cronql';

export async function postgresUser(log: Logger): Promise<RunAs> {
  const found = lookup();
  if (found) return found;
  log.info('creating the system user "postgres" for the embedded PostgreSQL (it refuses to run as root)');
  const run = promisify(execFile);
  try {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
  } catch (err) {
    throw new Error(`cannot create the system user "postgres" (${(err as Error).message.split('\n')[0]}): create it, or set DATABASE_URL`);
  }
  const created = lookup();
  if (!created) throw new Error('the system user "postgres" was created but cannot be found: set DATABASE_URL');
  return created;
}

function lookup(): RunAs | null {
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Whether `as` may do `test <flag> path` (`-x`: traverse or execute, `-w`: write). */
export function allowed(as: RunAs, flag: '-x' | '-w' | '-r', path: string): boolean {
  return spawnSync('test', [flag, path], { uid: as.uid, gid: as.gid }).status === 0;
}

/** Binaries the postgres user can execute: the installed ones, or a copy it can reach. */
export async function reachableBinaries(bin: PostgresBinaries, as: RunAs, version: string, log: Logger): Promise<PostgresBinaries> {
  if (allowed(as, '-x', bin.postgres) && allowed(as, '-x', bin.initdb)) return bin;
  const target = join(SHARED, `postgresql-${version}`);
  const copy = binariesUnder(target);
  if (!(existsSync(copy.postgres) && allowed(as, '-x', copy.postgres))) {
    log.info({ from: bin.root, to: target }, 'the postgres user cannot reach the PostgreSQL binaries here (a 0700 directory); copying them once');
    const temp = `${target}.${process.pid}.tmp`;
    await mkdir(SHARED, { recursive: true, mode: 0o755 });
    await chmod(SHARED, 0o755);
    await rm(temp, { recursive: true, force: true });
    await cp(bin.root, temp, { recursive: true, verbatimSymlinks: true });
    await chmod(temp, 0o755);
    await rm(target, { recursive: true, force: true });
    await rename(temp, target);
  }
  return copy;
}

/**
 * The cluster directory the postgres user can own: `<dataDir>/pg` when it can reach `dataDir`,
 * else a place of its own, linked from `<dataDir>/pg`.
 */
export async function reachableCluster(dataDir: string, as: RunAs, log: Logger): Promise<string> {
  const wanted = join(dataDir, 'pg');
  const link = await lstat(wanted).catch(() => null);
  if (link?.isSymbolicLink()) {
    const real = await readlink(wanted);
    await mkdir(real, { recursive: true, mode: 0o700 });
    await chown(real, as.uid, as.gid);
    log.info({ dataDir, cluster: real }, 'embedded PostgreSQL data is kept outside the data directory (linked from it)');
    return real;
  }
  if (allowed(as, '-x', dataDir)) {
    await mkdir(wanted, { recursive: true, mode: 0o700 });
    await chown(wanted, as.uid, as.gid);
    return wanted;
  }
  if (link?.isDirectory()) {
    throw new Error(
      `the postgres user cannot reach ${wanted} (a parent directory is private): run "chmod o+x" on its parents, or set DATABASE_URL`,
    );
  }
  const id = createHash('sha256').update(await realpath(dataDir)).digest('hex').slice(0, 16);
  const real = join(SHARED, 'clusters', id);
  await mkdir(join(SHARED, 'clusters'), { recursive: true, mode: 0o755 });
  await chmod(SHARED, 0o755);
  await chmod(join(SHARED, 'clusters'), 0o755);
  await mkdir(real, { recursive: true, mode: 0o700 });
  await chown(real, as.uid, as.gid);
  await symlink(real, wanted);
  log.info({ dataDir, cluster: real }, 'the postgres user cannot reach the data directory (a 0700 parent): embedded PostgreSQL data is kept here, linked from <dataDir>/pg');
  return real;
}
