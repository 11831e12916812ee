/**
 * cronql as a user runs it: the built `dist/src/main.js` (what `npm start` runs) in a process of
 * its own, on a database given by URL, timed from spawn to `/readyz` answering 200. Clients of
 * the benchmarks run in the bench process, so their work is not counted against the server's
 * event loop.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

/** The build under test; BENCH_MAIN: another build's dist/src/main.js (a before/after comparison). */
const MAIN = process.env.BENCH_MAIN ?? fileURLToPath(new URL('../../src/main.js', import.meta.url));
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface ServerProcess {
  url: string;
  /** Spawn → `/readyz` 200, in ms. */
  readyMs: number;
  /** CPU time the process had used when `/readyz` first answered 200, in ms (Linux only). */
  readyCpuMs?: number;
  /** The startup phases the process logged with "cronql is listening" (ms since its start), if any. */
  phases?: Record<string, number>;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** A port free now (other processes on the machine take ports too). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts `node dist/src/main.js` on `databaseUrl` and waits until `/readyz` says ready. */
export async function startServer(databaseUrl: string, env: Record<string, string> = {}, main = MAIN): Promise<ServerProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []), main], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      CRONQL_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      CRONQL_RETENTION_DAYS: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let phases: Record<string, number> | undefined;
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const line = out.split('\n').find((l) => l.includes('"msg":"cronql is listening"'));
    if (line && !phases) phases = (JSON.parse(line) as { startup?: Record<string, number> }).startup;
    if (out.length > 1_000_000) out = out.slice(-10_000);
  });
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const agent = new Agent({ connections: 1 });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`cronql exited (${child.exitCode}) before it was ready:\n${out.slice(-2_000)}`);
      try {
        const res = await request(`${url}/readyz`, { dispatcher: agent });
        await res.body.text();
        if (res.statusCode === 200) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    await agent.close();
  }
  const readyMs = performance.now() - t0;
  const readyCpuMs = await cpuMsOf(child.pid);
  // The log line is written before the first /readyz can answer; give the pipe a moment.
  for (let i = 0; i < 100 && !phases; i++) await new Promise((r) => setTimeout(r, 10));
  return {
    url,
    readyMs,
    readyCpuMs,
    phases,
    child,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux; undefined elsewhere).
 * On a machine shared with other work, throughput moves with the load while the server's CPU per
 * request hardly does: the figure that compares two builds run minutes apart.
 */
export async function cpuMsOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces), from its closing parenthesis: utime is the 14th, stime the 15th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** CPU time a process has used so far, split: user space and kernel (ms; undefined off Linux). */
export async function cpuSplitOf(pid: number | undefined): Promise<{ user: number; kernel: number } | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(fields[11]) * 1000) / CLOCK_TICKS, kernel: (Number(fields[12]) * 1000) / CLOCK_TICKS };
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, what /proc counts CPU time in (100 on every mainstream kernel). */
const CLOCK_TICKS = 100;

/** A GraphQL client over HTTP with keep-alive: `connections` sockets shared by the callers. */
export function graphqlClient(url: string, connections: number) {
  const agent = new Agent({ connections, pipelining: 1 });
  return {
    async post<T = unknown>(query: string, variables?: Record<string, unknown>): Promise<{ data?: T; errors?: { message: string; extensions?: { code?: string } }[] }> {
      const res = await request(`${url}/graphql`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_ADMIN_TOKEN}` },
        body: JSON.stringify({ query, variables }),
      });
      return (await res.body.json()) as never;
    },
    close: () => agent.close(),
  };
}
