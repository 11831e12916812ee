import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from '../support/db.js';
import { spawnCronql, type CronqlProcess, type SpawnOptions } from '../support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

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

/**
 * Resolves once each of `instanceIds` has run a whole maintenance round from now: each round
 * begins with its beat and rounds never overlap, so the second beat seen after the call closes a
 * round that began after it. What a test waits on instead of sleeping "a sweep or so".
 */
export async function aFullSweep(p: CronqlProcess, instanceIds: string[], timeoutMs = 30_000): Promise<void> {
  const beats = async () => {
    const res = await p.graphql<{ instances: { id: string; heartbeatAt: string }[] }>('{ instances { id heartbeatAt } }');
    if (!res.data) throw new Error(`instances failed: ${JSON.stringify(res.errors)}`);
    return new Map(res.data.instances.map((i) => [i.id, Date.parse(i.heartbeatAt)]));
  };
  const deadline = Date.now() + timeoutMs;
  let last = await beats();
  const seen = new Map(instanceIds.map((id) => [id, 0]));
  while ([...seen.values()].some((n) => n < 2)) {
    if (Date.now() > deadline) throw new Error(`no full sweep of ${instanceIds.join(', ')} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50)); // a poll's pace, not a guess at how long a sweep takes
    const now = await beats();
    for (const id of instanceIds) if ((now.get(id) ?? 0) > (last.get(id) ?? 0)) seen.set(id, seen.get(id)! + 1);
    last = now;
  }
}
