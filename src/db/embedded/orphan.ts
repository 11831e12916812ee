import { existsSync } from 'node:fs';
import { readFile, readlink, realpath, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../logger.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is the postmaster of `clusterDir`. A PostgreSQL server works in its data
 * directory: its `/proc/<pid>/cwd` is the cluster, and it was started as `postgres -D <cluster>`.
 * Both must hold — a name or an argument alone proves nothing. 'unknown' without /proc.
 */
async function isOurPostmaster(pid: number, clusterDir: string): Promise<boolean | 'unknown'> {
  if (!existsSync('/proc/self')) return 'unknown';
  const ours = await realpath(clusterDir).catch(() => clusterDir);
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => null);
  if (cwd === null || cmdline === null) return false;
  const args = cmdline.split('\0');
  const d = args.indexOf('-D');
  const dataArg = d >= 0 && args[d + 1] ? await realpath(args[d + 1]).catch(() => args[d + 1]) : null;
  return cwd === ours && dataArg === ours && /(^|\/)postgres$/.test(args[0]);
}

/**
 * Before starting, a `postmaster.pid` left in the cluster is dealt with:
 * - no such process, or a process that is not the postmaster of this cluster (the pid was
 *   reused after a reboot — the system's own PostgreSQL included): the file is stale, removed;
 * - the postmaster of this cluster, left running by a cronql killed with SIGKILL: asked to stop
 *   (SIGINT, PostgreSQL's fast shutdown) and waited for; never killed with SIGKILL;
 * - anything that cannot be told apart, or a postmaster that will not stop: the start fails with
 *   one line saying what blocks it.
 */
export async function clearOrphan(clusterDir: string, log: Logger, waitMs = 30_000): Promise<void> {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) {
    log.warn({ pidFile }, 'removing a stale postmaster.pid');
    await rm(pidFile, { force: true });
    return;
  }
  const ours = await isOurPostmaster(pid, clusterDir);
  if (ours === 'unknown') {
    throw new Error(`${pidFile} names process ${pid}, which is running: stop it if it is a PostgreSQL of this data directory, or remove the file`);
  }
  if (!ours) {
    log.warn({ pidFile, pid }, 'postmaster.pid names a process that is not this cluster\'s server (pid reused): removing the stale file');
    await rm(pidFile, { force: true });
    return;
  }
  log.warn({ pid }, 'stopping the embedded PostgreSQL left running by a previous process');
  process.kill(pid, 'SIGINT'); // fast shutdown: roll back open transactions, checkpoint, exit
  const deadline = Date.now() + waitMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  if (isAlive(pid)) {
    throw new Error(`the embedded PostgreSQL left running by a previous process (pid ${pid}) did not stop within ${waitMs / 1000} s: stop it, then start again`);
  }
}
