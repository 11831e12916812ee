import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * Real cronql processes for the tests about processes (crash, restart, partitions, signals):
 *
 *   const p = await spawnCronql({ databaseUrl, env: { CRONQL_HEARTBEAT_MS: '500' } });
 *   await p.graphql('{ instances { id } }');
 *   p.kill('SIGKILL'); await p.exited;
 *
 * Each runs `node main.js` of the build made once per test run (test/support/global-setup.ts),
 * the way `npm start` runs it, on port 0, with JSON logs collected from stdout. Every process
 * started here is killed when the test file's worker exits, whatever happened.
 */
export interface CronqlProcess {
  pid: number;
  baseUrl: string;
  adminToken: string;
  /** Every line the process wrote (stdout and stderr), parsed when it is JSON. */
  logs: { line: string; json: Record<string, unknown> | null }[];
  /** Resolves with the first log line matching, or rejects after `ms`. */
  waitForLog(pattern: RegExp, ms?: number): Promise<string>;
  /** POSTs a GraphQL operation with the admin token; rejects after `timeoutMs`. */
  graphql<T = Record<string, unknown>>(query: string, variables?: Record<string, unknown>, timeoutMs?: number): Promise<{ status: number; data?: T; errors?: { message: string; extensions?: { code?: string } }[] }>;
  /** GET of a path, bounded; `{ status: 0 }` when no answer came in time. */
  get(path: string, timeoutMs?: number): Promise<{ status: number; body: string; ms: number }>;
  kill(signal?: NodeJS.Signals): void;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface SpawnOptions {
  /** Unset: the process starts its embedded PostgreSQL in its data directory. */
  databaseUrl?: string;
  /** @default a fresh temporary directory, removed when the process exits */
  dataDir?: string;
  env?: Record<string, string>;
  /** How long to wait for "cronql is listening" (generous: a loaded machine can take many seconds to start Node). @default 45000 */
  startTimeoutMs?: number;
  /**
   * A shell command line to run instead of `node main.js` (a Procfile entry); `dist/src/main.js`
   * in it stands for the test run's build.
   */
  shell?: string;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of live) signal(c, 'SIGKILL');
});

/**
 * Signals a child; a shell-started one is its own process group (`detached`), and the whole
 * group is signalled: killing only `/bin/sh` would leave cronql running, orphaned.
 */
function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    if (child.spawnargs[0] === '/bin/sh' && child.pid) process.kill(-child.pid, sig);
    else child.kill(sig);
  } catch {
    // gone already
  }
}

export async function spawnCronql(o: SpawnOptions): Promise<CronqlProcess> {
  const main = inject('cronqlMain');
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'cronql-proc-')));
  const adminToken = `admin-${randomBytes(12).toString('hex')}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    ...(o.databaseUrl ? { DATABASE_URL: o.databaseUrl } : {}),
    PORT: '0',
    HOST: '127.0.0.1',
    CRONQL_DATA_DIR: dataDir,
    CRONQL_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'info',
    ...o.env,
  };
  const child = o.shell
    ? spawn('/bin/sh', ['-c', o.shell.replaceAll('dist/src/main.js', main).replace(/^node /, `${process.execPath} `)], {
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      })
    : spawn(process.execPath, [main], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  const logs: CronqlProcess['logs'] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: (l: string) => void }>();
  const onLine = (line: string) => {
    if (!line) return;
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(line);
    } catch {
      // a plain line (startup banner, a one-line failure)
    }
    logs.push({ line, json });
    for (const w of waiters) {
      if (w.pattern.test(line)) {
        waiters.delete(w);
        w.resolve(line);
      }
    }
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let buffered = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      lines.forEach(onLine);
    });
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      live.delete(child);
      if (!o.dataDir) void rm(dataDir, { recursive: true, force: true });
      resolve({ code, signal });
    });
  });
  const waitForLog = (pattern: RegExp, ms = 10_000) => {
    const seen = logs.find((l) => pattern.test(l.line));
    if (seen) return Promise.resolve(seen.line);
    return new Promise<string>((resolve, reject) => {
      const w = { pattern, resolve: (l: string) => (clearTimeout(timer), resolve(l)) };
      const timer = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`no log line matching ${pattern} within ${ms} ms; last lines:\n${logs.slice(-10).map((l) => l.line).join('\n')}`));
      }, ms);
      waiters.add(w);
    });
  };

  let banner: string;
  try {
    banner = await Promise.race([
      waitForLog(/cronql listening on http/, o.startTimeoutMs ?? 45_000),
      exited.then((e) => Promise.reject(new Error(`cronql exited (${e.code ?? e.signal}) before listening:\n${logs.map((l) => l.line).join('\n')}`))),
    ]);
  } catch (err) {
    signal(child, 'SIGKILL');
    throw err;
  }
  const baseUrl = /(http:\/\/[^\s]+?) /.exec(banner)![1];

  return {
    pid: child.pid!,
    baseUrl,
    adminToken,
    logs,
    waitForLog,
    async graphql(query, variables, timeoutMs = 15_000) {
      const res = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: res.status, ...((await res.json()) as object) };
    },
    async get(path, timeoutMs = 5_000) {
      const t0 = Date.now();
      try {
        const res = await fetch(`${baseUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
        return { status: res.status, body: await res.text(), ms: Date.now() - t0 };
      } catch {
        return { status: 0, body: '', ms: Date.now() - t0 };
      }
    },
    kill(sig = 'SIGTERM') {
      signal(child, sig);
    },
    exited,
  };
}
