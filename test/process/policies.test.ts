import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import type { CronqlProcess } from '../support/processes.js';
import { aFullSweep, jsonLines, useProcessTest } from './support.js';

/**
 * Job policies with real processes on one database: a retry waiting when its runner is killed,
 * and each overlap policy with a slow handler on two instances. The handlers (fixtures/
 * policy-targets.mjs) log what they saw to a file, so executions are counted whatever the runs
 * table says.
 */
const TARGETS = fileURLToPath(new URL('../fixtures/policy-targets.mjs', import.meta.url));

interface Event {
  event: 'run' | 'start' | 'abort' | 'end';
  runId: string;
  jobKey: string;
  pid: number;
  at: number;
  reason?: string;
}

const events = (file: string): Event[] => jsonLines<Event>(file);

interface AttemptRow {
  id: string;
  status: string;
  attempt: number;
  scheduledAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  failureCode: string | null;
  nextAttemptAt: string | null;
  runnerInstanceId: string | null;
  retryOf: { id: string } | null;
  jobKey: string;
}

async function attempts(p: CronqlProcess, filter: Record<string, unknown>): Promise<AttemptRow[]> {
  const res = await p.graphql<{ runs: { nodes: AttemptRow[] } }>(
    `query($filter: RunFilter) { runs(filter: $filter, first: 500) { nodes {
       id status attempt scheduledAt startedAt finishedAt failureCode nextAttemptAt runnerInstanceId retryOf { id } jobKey } } }`,
    { filter },
  );
  if (!res.data) throw new Error(JSON.stringify(res.errors));
  return res.data.runs.nodes.slice().reverse();
}

async function create(p: CronqlProcess, input: Record<string, unknown>): Promise<string> {
  const res = await p.graphql<{ createJob: { id: string } }>(`mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, { input });
  if (!res.data) throw new Error(`createJob failed: ${JSON.stringify(res.errors)}`);
  return res.data.createJob.id;
}

describe('a retry waiting when its runner is killed', () => {
  const t = useProcessTest();
  const log = join(mkdtempSync(join(tmpdir(), 'cronql-policy-')), 'events.jsonl');
  const env = { CRONQL_TARGETS: TARGETS, POLICY_LOG: log, CRONQL_HEARTBEAT_MS: '500', CRONQL_LOST_AFTER_MS: '2000' };

  it('runs once, on a surviving instance, when due — never twice', async () => {
    const a = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'retry-a' } });
    const jobId = await create(a, {
      key: 'retry-kill',
      target: 'fail',
      scheduleType: 'ONE_TIME',
      runAt: new Date().toISOString(),
      // Long enough to be seen waiting (PENDING) through a loaded process's API before it is due.
      retry: { maxAttempts: 2, backoff: 'FIXED', delaySeconds: 8 },
    });
    const waiting = await eventually(async () => (await attempts(a, { jobId })).find((r) => r.attempt === 2 && r.status === 'PENDING'), 30_000);
    expect(waiting.nextAttemptAt).not.toBeNull();
    a.kill('SIGKILL');
    await a.exited;
    // Two instances come up while attempt 2 waits: exactly one of them runs it, when it is due.
    const [b, c] = await Promise.all([
      t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'retry-b' } }),
      t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'retry-c' } }),
    ]);
    const second = await eventually(async () => (await attempts(b, { jobId })).find((r) => r.attempt === 2 && r.status === 'FAILED'), 30_000);
    expect(['retry-b', 'retry-c']).toContain(second.runnerInstanceId);
    expect(new Date(second.startedAt!).getTime()).toBeGreaterThanOrEqual(new Date(waiting.nextAttemptAt!).getTime());
    expect(second.retryOf?.id).toBe((await attempts(c, { jobId })).find((r) => r.attempt === 1)!.id);
    // After a whole maintenance pass on both: still one execution of each attempt, and the job retired after its last.
    await aFullSweep([b, c]);
    const ran = events(log).filter((e) => e.jobKey === 'retry-kill');
    expect(ran.map((e) => e.runId)).toEqual([...new Set(ran.map((e) => e.runId))]);
    expect(ran).toHaveLength(2);
    const rows = await attempts(c, { jobId });
    expect(rows.map((r) => [r.attempt, r.status]).sort()).toEqual([
      [1, 'FAILED'],
      [2, 'FAILED'],
    ]);
    const job = await c.graphql<{ job: { status: string } }>(`query($id: ID!) { job(id: $id) { status } }`, { id: jobId });
    expect(job.data!.job.status).toBe('RETIRED');
    // A safety net for a loaded machine (three process starts), not a goal.
  }, 120_000);
});

describe('overlap policies on two instances with a slow handler', () => {
  const t = useProcessTest();
  const log = join(mkdtempSync(join(tmpdir(), 'cronql-policy-')), 'events.jsonl');
  const env = { CRONQL_TARGETS: TARGETS, POLICY_LOG: log };

  it('no policy exceeds its concurrency; BUFFER_ONE starts the buffered slot at once; CANCEL_PREVIOUS signals the replaced handler', async () => {
    const a = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'overlap-a' } });
    const b = await t.spawn({ databaseUrl: t.url, env: { ...env, CRONQL_INSTANCE_ID: 'overlap-b' } });
    const every = '* * * * * *';
    const jobs = {
      skip: { overlap: 'SKIP', capacity: 1, ms: 2_500 },
      buffer: { overlap: 'BUFFER_ONE', capacity: 1, ms: 2_500 },
      cancel: { overlap: 'CANCEL_PREVIOUS', capacity: 1, ms: 2_500 },
      allow: { overlap: 'ALLOW', capacity: 2, ms: 3_500 },
    } as const;
    const ids: Record<string, string> = {};
    for (const [name, j] of Object.entries(jobs)) {
      ids[name] = await create(a, {
        key: `overlap-${name}`,
        target: 'slow',
        scheduleType: 'RECURRING',
        cronExpression: every,
        payload: { ms: j.ms },
        overlap: j.overlap,
        ...(j.capacity > 1 ? { maxConcurrentRuns: j.capacity } : {}),
      });
    }
    // Until each policy has shown what it does: several runs each, a slot SKIPPED for OVERLAP, a
    // run REPLACED, two ALLOW runs at once.
    const started = async (name: string) => (await attempts(b, { jobId: ids[name] })).filter((r) => r.startedAt);
    await eventually(async () => {
      for (const name of Object.keys(jobs)) if ((await started(name)).length < 2) return false;
      const skip = await attempts(b, { jobId: ids.skip });
      if (!skip.some((r) => r.status === 'SKIPPED' && r.failureCode === 'OVERLAP')) return false;
      const cancel = await attempts(b, { jobId: ids.cancel });
      if (!cancel.some((r) => r.status === 'CANCELED' && r.failureCode === 'REPLACED')) return false;
      const allow = await started('allow');
      return allow.some((r, i) => i > 0 && allow[i - 1].finishedAt !== null && Date.parse(r.startedAt!) < Date.parse(allow[i - 1].finishedAt!));
    }, 40_000);
    for (const id of Object.values(ids)) {
      await a.graphql(`mutation($id: ID!) { pauseJob(id: $id, reason: "test over") { id } }`, { id });
    }
    // Until the runs in flight have ended (and their handlers said so).
    await eventually(async () => {
      for (const id of Object.values(ids)) {
        if ((await attempts(b, { jobId: id })).some((r) => r.status === 'RUNNING' || r.status === 'PENDING')) return false;
      }
      const told = events(log);
      const ended = new Set(told.filter((e) => e.event === 'end' || e.event === 'abort').map((e) => e.runId));
      return told.filter((e) => e.event === 'start').every((e) => ended.has(e.runId));
    }, 20_000);

    const seen = events(log);
    for (const [name, j] of Object.entries(jobs)) {
      const rows = await attempts(b, { jobId: ids[name] });
      const ran = rows.filter((r) => r.startedAt);
      expect(ran.length, name).toBeGreaterThan(1);
      // Concurrency, from the handlers' own log: at no instant more than the policy's capacity.
      const mine = seen.filter((e) => e.jobKey === `overlap-${name}`);
      const points = mine.filter((e) => e.event !== 'run').map((e) => [e.at, e.event === 'start' ? 1 : -1] as const);
      points.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      let now = 0;
      let max = 0;
      for (const [, d] of points) max = Math.max(max, (now += d));
      // CANCEL_PREVIOUS does not wait for the replaced handler to return (it is told; on another
      // instance through a notification): the runs never overlap, and the handlers only for the
      // signal's delivery, checked below.
      if (j.overlap !== 'CANCEL_PREVIOUS') expect(max, name).toBeLessThanOrEqual(j.capacity);
      // Every handler start is one run, run once.
      const starts = mine.filter((e) => e.event === 'start').map((e) => e.runId);
      expect(new Set(starts).size, name).toBe(starts.length);
      // Both instances took part (the database arbitrates, not a leader).
      expect(new Set(ran.map((r) => r.runnerInstanceId)).size, name).toBeGreaterThanOrEqual(1);
    }
    const skip = await attempts(b, { jobId: ids.skip });
    expect(skip.some((r) => r.status === 'SKIPPED' && r.failureCode === 'OVERLAP')).toBe(true);

    const buffer = (await attempts(b, { jobId: ids.buffer })).filter((r) => r.startedAt);
    for (let i = 1; i < buffer.length; i++) {
      const gap = new Date(buffer[i].startedAt!).getTime() - new Date(buffer[i - 1].finishedAt!).getTime();
      expect(gap, 'BUFFER_ONE: the buffered slot starts when the active run ends').toBeLessThan(1_000);
    }
    const cancel = await attempts(b, { jobId: ids.cancel });
    const replaced = cancel.filter((r) => r.status === 'CANCELED' && r.failureCode === 'REPLACED');
    expect(replaced.length).toBeGreaterThan(0);
    const aborted = new Set(seen.filter((e) => e.event === 'abort').map((e) => e.runId));
    for (const r of replaced.filter((x) => x.startedAt)) expect(aborted.has(r.id), `replaced run ${r.id} saw its signal`).toBe(true);
    const ranCancel = cancel.filter((r) => r.startedAt).sort((x, y) => Date.parse(x.startedAt!) - Date.parse(y.startedAt!));
    for (let i = 1; i < ranCancel.length; i++) {
      const before = ranCancel[i - 1];
      const after = ranCancel[i];
      // In the database: the replaced run ended before its successor started.
      expect(Date.parse(before.finishedAt!)).toBeLessThanOrEqual(Date.parse(after.startedAt!));
      // In the handlers: the replaced one was told within moments of its successor's start.
      const abort = seen.find((e) => e.event === 'abort' && e.runId === before.id);
      const start = seen.find((e) => e.event === 'start' && e.runId === after.id);
      if (before.failureCode === 'REPLACED' && abort && start) expect(abort.at - start.at, 'signal delivery').toBeLessThan(500);
    }

    const allow = (await attempts(b, { jobId: ids.allow })).filter((r) => r.startedAt);
    // Two at once really happened (3.5 s runs, one slot a second).
    const overlapping = allow.some((r, i) => i > 0 && new Date(r.startedAt!).getTime() < new Date(allow[i - 1].finishedAt!).getTime());
    expect(overlapping).toBe(true);
  }, 60_000);
});
