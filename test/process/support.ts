import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '../support/db.js';
import { spawnCronql, type CronqlProcess, type SpawnOptions } from '../support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { eventually } from '../support/cronql.js';
import { MAINTENANCE } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { Maintenance, type MaintenanceOptions } from '../../src/maintenance/maintenance.js';

/** GraphQL steps the process tests share (through a real process's HTTP API). */
export interface RunRow {
  id: string;
  status: string;
  scheduledAt: string;
  failureCode: string | null;
  failureDetails: Record<string, unknown> | null;
  runnerInstanceId: string | null;
  jobKey: string;
}

/**
 * The JSON lines the fixture targets append to `file` (test/fixtures/policy-targets.mjs), from every
 * process. Only whole lines: a line another process is appending as the file is read is left for
 * the next read (its end has not reached the file yet).
 */
export function jsonLines<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  return text.slice(0, text.lastIndexOf('\n') + 1).split('\n').filter(Boolean).map((l) => JSON.parse(l) as T);
}

export async function createJob(p: CronqlProcess, input: Record<string, unknown>): Promise<string> {
  const res = await p.graphql<{ createJob: { id: string } }>('mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', {
    input: { target: 'log', scheduleType: 'RECURRING', ...input },
  });
  if (!res.data) throw new Error(`createJob failed: ${JSON.stringify(res.errors)}`);
  return res.data.createJob.id;
}

/** Every run (up to 500), oldest slot first; optionally of one job. */
export async function runs(p: CronqlProcess, filter: Record<string, unknown> = {}): Promise<RunRow[]> {
  const res = await p.graphql<{ runs: { nodes: RunRow[] } }>(
    `query($filter: RunFilter) { runs(filter: $filter, first: 500) { nodes { id status scheduledAt failureCode failureDetails runnerInstanceId jobKey } } }`,
    { filter },
  );
  if (!res.data) throw new Error(`runs failed: ${JSON.stringify(res.errors)}`);
  return res.data.runs.nodes.slice().reverse();
}

/** (job, slot) pairs recorded more than once: always [] — the slot key guarantees it. */
export function duplicates(rows: RunRow[]): string[] {
  const seen = new Map<string, number>();
  for (const r of rows) seen.set(`${r.jobKey}@${r.scheduledAt}`, (seen.get(`${r.jobKey}@${r.scheduledAt}`) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([k]) => k);
}

/**
 * A database of its own (and, with `proxy`, a TCP proxy in front of it) for the tests of one
 * `describe`, and every process they spawn: killed, and the database dropped, after them.
 */
export function useProcessTest(o: { proxy?: boolean } = {}) {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let proxy: TcpProxy | undefined;
  const procs: CronqlProcess[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    if (o.proxy) proxy = await startTcpProxy(db.url);
  });
  afterAll(async () => {
    for (const p of procs) p.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await proxy?.close();
    await db?.drop();
  });
  return {
    /** The database's URL. */
    get url(): string {
      return db!.url;
    },
    get proxy(): TcpProxy {
      return proxy!;
    },
    /** Spawns a process (see spawnCronql), cleaned up after the tests. */
    async spawn(options: SpawnOptions): Promise<CronqlProcess> {
      const p = await spawnCronql(options);
      procs.push(p);
      return p;
    },
  };
}

/** Each maintenance duty's passes so far on `p`, from its /metrics (cronql_maintenance_passes_total). */
async function passes(p: CronqlProcess): Promise<Map<string, number>> {
  const res = await p.get('/metrics', 10_000);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const counts = new Map<string, number>();
  for (const m of res.body.matchAll(/^cronql_maintenance_passes_total\{([^}]*)\} (\d+)/gm)) {
    const duty = /duty="([^"]+)"/.exec(m[1])?.[1];
    if (duty) counts.set(duty, (counts.get(duty) ?? 0) + Number(m[2]));
  }
  return counts;
}

/**
 * The per-heartbeat duties only the lease holder runs (scope `cluster`), read from a maintenance
 * built with placeholder options (its constructor only builds its duties; nothing starts).
 */
function clusterDuties(): Set<string> {
  const placeholder = new Maintenance({ log: createLogger(), identity: { id: 'scopes' }, heartbeatMs: 1_000, lostAfterMs: 3_000, retentionDays: 0, runLogRetentionDays: 0, auditRetentionDays: 0 } as unknown as MaintenanceOptions);
  const duties = (placeholder as unknown as { duties: { name: string; scope: string }[] }).duties;
  return new Set(duties.filter((d) => d.scope === 'cluster').map((d) => d.name));
}

/**
 * Resolves once every per-heartbeat maintenance duty has run a whole pass that began after the
 * call: each instance duty on each process (two more passes counted there: the first may have
 * been under way), each cluster duty on whichever process held the lease. The lease can move
 * meanwhile (a loaded machine stalls its holder past it), and the process that gave it up counts
 * no more passes of those duties: so they are counted over all the processes, one more than the
 * passes that can have been under way at the call (one per process).
 * What a test waits on instead of sleeping "a sweep or so".
 */
export async function aFullSweep(procs: CronqlProcess[], timeoutMs = 30_000): Promise<void> {
  const everyBeat = Object.entries(MAINTENANCE.everyHeartbeats).filter(([, n]) => n === 1).map(([duty]) => duty);
  const cluster = clusterDuties();
  const total = (counts: Map<string, number>[], duty: string) => counts.reduce((sum, c) => sum + (c.get(duty) ?? 0), 0);
  // Not vacuous: each process has counted a heartbeat pass. The beat that registers it at start is
  // not a pass of the duty, whose first comes a heartbeat later: a process that has just started
  // (more so on a loaded machine) has none yet, so wait for it rather than fail.
  let before: Map<string, number>[] = [];
  await eventually(async () => (before = await Promise.all(procs.map(passes))).every((counts) => counts.has('heartbeat')), timeoutMs).catch(() => {
    throw new Error('aFullSweep: a process counts no maintenance pass');
  });
  let now: Map<string, number>[] = [];
  const waiting = () =>
    everyBeat.filter((duty) =>
      cluster.has(duty)
        ? before.some((counts) => counts.has(duty)) && total(now, duty) < total(before, duty) + procs.length + 1
        : now.some((counts, i) => before[i].has(duty) && (counts.get(duty) ?? 0) < before[i].get(duty)! + 2),
    );
  await eventually(async () => {
    now = await Promise.all(procs.map(passes));
    return waiting().length === 0;
  }, timeoutMs).catch(() => {
    throw new Error(`aFullSweep: no whole pass of ${waiting().join(', ')} within ${timeoutMs} ms`);
  });
}
