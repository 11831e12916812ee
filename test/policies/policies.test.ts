import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { jitterOffsetMs } from '../../src/schedule/jitter.js';
import { startCronql, testDatabase, eventually, recordChanges } from '../support/cronql.js';
import { gql, startApi, type Api } from '../graphql/support.js';
import type { Cronql } from '../../src/app.js';

/**
 * Job policies through the public API: retries with backoff (a controlled clock), retryOn,
 * jitter spreading a thousand co-due jobs (a controlled clock), and the validation of every
 * policy value (generated inputs, each refused with INVALID_POLICY and changing nothing).
 */
describe('retries with backoff, through the API', () => {
  let api: Api;
  const calls = new Map<string, number>();
  // Time moves when a test moves it: each backoff is then measured exactly, and a retry can only
  // start when its backoff is over, whatever the machine's load.
  const clock = new ManualClock('2026-06-01T10:00:00.000Z');
  beforeAll(async () => {
    api = await startApi({
      clock,
      // No maintenance pass within the tests (the first comes a heartbeat after the start, in real
      // time): a retry is started by its own alarm at the end of its backoff, never by the sweep.
      heartbeatMs: 600_000,
      lostAfterMs: 1_800_000,
      targets: {
        // Fails twice per slot, then succeeds; the code is the payload's.
        flaky: async (ctx: { payload: { code?: string } | null; run: { scheduledAt: Date; jobKey: string; attempt: number } }) => {
          const key = `${ctx.run.jobKey}@${ctx.run.scheduledAt.toISOString()}`;
          const n = (calls.get(key) ?? 0) + 1;
          calls.set(key, n);
          if (n <= 2) throw Object.assign(new Error(`attempt ${ctx.run.attempt} fails`), { code: ctx.payload?.code ?? 'UPSTREAM_DOWN' });
          return { attempt: ctx.run.attempt };
        },
      },
    });
  });
  afterAll(() => api.close());

  const create = (input: Record<string, unknown>) =>
    gql<{ createJob: { id: string; retry: unknown } }, unknown>(
      api.url,
      `mutation($input: CreateJobInput!) { createJob(input: $input) { id retry { maxAttempts backoff delaySeconds maxDelaySeconds retryOn } } }`,
      { input },
      api.adminToken,
    );
  const attemptsOf = async (jobId: string) => {
    const res = await gql<{ runs: { nodes: { id: string; attempt: number; status: string; startedAt: string; finishedAt: string; failureCode: string | null; retryOf: { id: string } | null; nextAttemptAt: string | null; job: { consecutiveFailures: number } }[] } }, unknown>(
      api.url,
      `query($jobId: ID!) { runs(filter: { jobId: $jobId }, first: 50) { nodes { id attempt status startedAt finishedAt failureCode nextAttemptAt retryOf { id } job { consecutiveFailures } } } }`,
      { jobId },
      api.adminToken,
    );
    return res.data!.runs.nodes.slice().sort((a, b) => a.attempt - b.attempt);
  };

  it('fails twice, then succeeds: three rows of one slot, ~1 s and ~2 s apart (EXPONENTIAL 1 s), the slot SUCCEEDED', async () => {
    const changes = recordChanges(api.cronql);
    // Each retry as it is made, PENDING: the clock stands still until the test moves it.
    const retry = (attempt: number) =>
      eventually(() => changes.find((c) => c.run.jobKey === 'flaky-webhook' && c.run.attempt === attempt && c.run.status === 'PENDING')?.run, 30_000);
    const made = await create({
      key: 'flaky-webhook', target: 'flaky', scheduleType: 'ONE_TIME', runAt: clock.now().toISOString(),
      retry: { maxAttempts: 3, backoff: 'EXPONENTIAL', delaySeconds: 1 },
    });
    expect(made.data!.createJob.retry).toEqual({ maxAttempts: 3, backoff: 'EXPONENTIAL', delaySeconds: 1, maxDelaySeconds: null, retryOn: null });
    const jobId = made.data!.createJob.id;
    // While attempt 2 waits it is PENDING and says when it starts.
    const second = await retry(2);
    const waiting = (await attemptsOf(jobId)).find((r) => r.attempt === 2)!;
    expect([waiting.status, waiting.nextAttemptAt]).toEqual(['PENDING', second.dueAt!.toISOString()]);
    // Not a millisecond before it is due.
    clock.set(new Date(second.dueAt!.getTime() - 1));
    await api.cronql.runtime!.whenIdle();
    expect((await attemptsOf(jobId)).map((r) => [r.attempt, r.status])).toEqual([[1, 'FAILED'], [2, 'PENDING']]);
    clock.set(second.dueAt!);
    clock.set((await retry(3)).dueAt!);
    const rows = await eventually(async () => {
      const r = await attemptsOf(jobId);
      return r.length === 3 && r[2].status === 'SUCCEEDED' ? r : null;
    }, 30_000);
    changes.stop();
    expect(rows.map((r) => [r.attempt, r.status, r.failureCode])).toEqual([
      [1, 'FAILED', 'UPSTREAM_DOWN'],
      [2, 'FAILED', 'UPSTREAM_DOWN'],
      [3, 'SUCCEEDED', null],
    ]);
    expect(rows[1].retryOf!.id).toBe(rows[0].id);
    expect(rows[2].retryOf!.id).toBe(rows[1].id);
    // From an attempt's end to the next one's start: 1 s, then 2 s, each plus up to 10 % of jitter.
    const gap = (i: number) => new Date(rows[i].startedAt).getTime() - new Date(rows[i - 1].finishedAt).getTime();
    expect(gap(1)).toBeGreaterThanOrEqual(1_000);
    expect(gap(1)).toBeLessThanOrEqual(1_100);
    expect(gap(2)).toBeGreaterThanOrEqual(2_000);
    expect(gap(2)).toBeLessThanOrEqual(2_200);
    // The slot's outcome is its last attempt's: no failure counted, and the one-time job retired.
    expect(rows[2].job.consecutiveFailures).toBe(0);
    const job = await gql<{ job: { status: string } }, unknown>(api.url, `query($id: ID!) { job(id: $id) { status } }`, { id: jobId }, api.adminToken);
    expect(job.data!.job.status).toBe('RETIRED');
  });

  it('retryOn narrows the codes retried; the others end the slot at once', async () => {
    const made = await create({
      key: 'narrow', target: 'flaky', scheduleType: 'ONE_TIME', runAt: clock.now().toISOString(), payload: { code: 'BAD_INPUT' },
      retry: { maxAttempts: 3, backoff: 'FIXED', delaySeconds: 0, retryOn: ['UPSTREAM_DOWN', 'TIMEOUT'] },
    });
    const jobId = made.data!.createJob.id;
    const rows = await eventually(async () => {
      const r = await attemptsOf(jobId);
      return r[0]?.status === 'FAILED' ? r : null;
    }, 5_000);
    await api.cronql.runtime!.whenIdle();
    expect((await attemptsOf(jobId)).map((r) => [r.attempt, r.status])).toEqual([[1, 'FAILED']]);
    expect(rows[0].job.consecutiveFailures).toBe(1);
  });
});

describe('jitter: a thousand jobs due at the same instant', () => {
  const clock = new ManualClock('2026-06-01T11:59:59.000Z');
  const started: { at: number; slot: number; jobId: string; dueAt: number | null }[] = [];
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  const targets = { mark: async () => ({}) };
  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { clock, targets, listen: false });
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });

  it('start spread over the window (no second above twice its share), each offset a stable function of job and slot', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 1_000; i += 50) {
      const made = await Promise.all(
        Array.from({ length: 50 }, (_, k) =>
          cronql.jobs.create({ key: `midnight-${i + k}`, target: 'mark', scheduleType: 'RECURRING' as never, cronExpression: '0 * * * *', jitterSeconds: 10 }),
        ),
      );
      ids.push(...made.map((j) => j.id));
    }
    const off = cronql.events.on((c) => {
      // When it started is the run's startedAt (the handler's entry); its RUNNING change may be
      // published a little later, with the write that records that instant.
      if (c.run.status === 'RUNNING') started.push({ at: c.run.startedAt!.getTime(), slot: c.run.scheduledAt.getTime(), jobId: c.run.jobId, dueAt: c.run.dueAt?.getTime() ?? null });
    });
    const slot = Date.parse('2026-06-01T12:00:00.000Z');
    // Walk through the window in 100 ms steps: each job starts when its offset has passed.
    for (let t = 0; t <= 10_000; t += 100) {
      clock.set(new Date(slot + t));
      await cronql.runtime!.whenRecorded();
    }
    await cronql.runtime!.whenIdle();
    off();
    expect(started).toHaveLength(1_000);
    const perSecond = new Array(10).fill(0);
    for (const s of started) {
      const expected = jitterOffsetMs(s.jobId, new Date(slot), 10);
      expect(s.dueAt ?? slot).toBe(slot + expected); // the run says when it was due (null: at its slot)
      expect(s.at - slot).toBeGreaterThanOrEqual(expected); // not before its offset
      expect(s.at - slot - expected).toBeLessThan(200); // and at it (one step of the walk)
      perSecond[Math.min(9, Math.floor(expected / 1000))]++;
    }
    expect(Math.max(...perSecond)).toBeLessThanOrEqual(200);
    expect(Math.min(...perSecond)).toBeGreaterThan(0);
    // scheduledAt stays the slot.
    expect(new Set(started.map((s) => s.slot))).toEqual(new Set([slot]));
  }, 120_000);

  it('a restarted instance computes the same offsets (the next slot, fired by a new process object)', async () => {
    await cronql.stop();
    started.length = 0;
    const next = Date.parse('2026-06-01T13:00:00.000Z');
    clock.set(new Date(next - 1_000));
    cronql = await startCronql(db.url, { clock, targets, listen: false });
    const off = cronql.events.on((c) => {
      // When it started is the run's startedAt (the handler's entry); its RUNNING change may be
      // published a little later, with the write that records that instant.
      if (c.run.status === 'RUNNING') started.push({ at: c.run.startedAt!.getTime(), slot: c.run.scheduledAt.getTime(), jobId: c.run.jobId, dueAt: c.run.dueAt?.getTime() ?? null });
    });
    for (let t = 0; t <= 10_000; t += 500) {
      clock.set(new Date(next + t));
      await cronql.runtime!.whenRecorded();
    }
    await cronql.runtime!.whenIdle();
    off();
    expect(started).toHaveLength(1_000);
    for (const s of started) expect(s.dueAt ?? next).toBe(next + jitterOffsetMs(s.jobId, new Date(next), 10));
  }, 120_000);
});

describe('policy values are validated: INVALID_POLICY, and nothing changes', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ targets: { noop: async () => ({}) } });
  });
  afterAll(() => api.close());

  const base = { target: 'noop', scheduleType: 'RECURRING', cronExpression: '*/10 * * * *' };
  const bad: [string, Record<string, unknown>][] = [
    ['maxAttempts 0', { retry: { maxAttempts: 0 } }],
    ['maxAttempts 11', { retry: { maxAttempts: 11 } }],
    ['maxAttempts -1', { retry: { maxAttempts: -1 } }],
    ['negative delay', { retry: { maxAttempts: 3, delaySeconds: -1 } }],
    ['delay over a day', { retry: { maxAttempts: 3, delaySeconds: 86_401 } }],
    ['cap below delay', { retry: { maxAttempts: 3, delaySeconds: 10, maxDelaySeconds: 5 } }],
    ['negative cap', { retry: { maxAttempts: 3, maxDelaySeconds: -5 } }],
    ['empty retryOn', { retry: { maxAttempts: 3, retryOn: [] } }],
    ['lowercase code', { retry: { maxAttempts: 3, retryOn: ['timeout'] } }],
    ['code with a NUL', { retry: { maxAttempts: 3, retryOn: ['A\u0000B'] } }],
    ['maxConcurrentRuns 0', { overlap: 'ALLOW', maxConcurrentRuns: 0 }],
    ['maxConcurrentRuns 101', { overlap: 'ALLOW', maxConcurrentRuns: 101 }],
    ['maxConcurrentRuns without ALLOW', { overlap: 'SKIP', maxConcurrentRuns: 2 }],
    ['maxConcurrentRuns, overlap omitted', { maxConcurrentRuns: 3 }],
    ['negative jitter', { jitterSeconds: -1 }],
    ['jitter over a day', { jitterSeconds: 86_401 }],
    ['jitter longer than the interval', { jitterSeconds: 601 }],
    ['captureBytes -1', { captureBytes: -1 }],
    ['captureBytes over 1 MiB', { captureBytes: 1_048_577 }],
  ];

  for (const [name, fields] of bad) {
    for (const form of ['variables', 'literal'] as const) {
      it(`${name} (${form})`, async () => {
        const input = { key: `bad-${name.replace(/\W+/g, '-')}-${form}`, ...base, ...fields };
        const res =
          form === 'variables'
            ? await gql(api.url, `mutation($input: CreateJobInput!) { createJob(input: $input) { id } }`, { input }, api.adminToken)
            : await gql(api.url, `mutation { createJob(input: ${literal(input)}) { id } }`, undefined, api.adminToken);
        const code = res.errors?.[0]?.extensions?.code;
        // A NUL is refused by the input layer first; every other value by the policy rules.
        expect(code === 'INVALID_POLICY' || (name === 'code with a NUL' && code === 'BAD_USER_INPUT'), JSON.stringify(res.errors)).toBe(true);
        const jobs = await gql<{ jobs: { totalCount: number } }, unknown>(api.url, `{ jobs { totalCount } }`, undefined, api.adminToken);
        expect(jobs.data!.jobs.totalCount).toBe(0);
      });
    }
  }

  it('null and omitted mean the defaults; a new version copies policies it does not name', async () => {
    const made = await gql<{ createJob: { id: string; retry: unknown; overlap: string; maxConcurrentRuns: number; jitterSeconds: number } }, unknown>(
      api.url,
      `mutation($input: CreateJobInput!) { createJob(input: $input) { id retry { maxAttempts } overlap maxConcurrentRuns jitterSeconds captureBytes } }`,
      { input: { key: 'defaults', ...base, retry: null, overlap: null, maxConcurrentRuns: null, jitterSeconds: null, captureBytes: null } },
      api.adminToken,
    );
    expect(made.data!.createJob).toMatchObject({ retry: null, overlap: 'SKIP', maxConcurrentRuns: 1, jitterSeconds: 0, captureBytes: 4096 });
    const v2 = await gql<{ createJobVersion: { id: string; retry: { maxAttempts: number } | null; overlap: string; maxConcurrentRuns: number; jitterSeconds: number } }, unknown>(
      api.url,
      `mutation($id: ID!, $input: NewJobVersionInput!) { createJobVersion(id: $id, input: $input) { id retry { maxAttempts } overlap maxConcurrentRuns jitterSeconds } }`,
      { id: made.data!.createJob.id, input: { retry: { maxAttempts: 4 }, overlap: 'ALLOW', maxConcurrentRuns: 3, jitterSeconds: 30, captureBytes: 0 } },
      api.adminToken,
    );
    expect(v2.data!.createJobVersion).toMatchObject({ retry: { maxAttempts: 4 }, overlap: 'ALLOW', maxConcurrentRuns: 3, jitterSeconds: 30 });
    const v3 = await gql<{ createJobVersion: { retry: { maxAttempts: number } | null; overlap: string; maxConcurrentRuns: number; jitterSeconds: number } }, unknown>(
      api.url,
      `mutation($id: ID!) { createJobVersion(id: $id, input: { timeoutSeconds: 5 }) { retry { maxAttempts } overlap maxConcurrentRuns jitterSeconds captureBytes } }`,
      { id: v2.data!.createJobVersion.id },
      api.adminToken,
    );
    expect(v3.data!.createJobVersion).toMatchObject({ retry: { maxAttempts: 4 }, overlap: 'ALLOW', maxConcurrentRuns: 3, jitterSeconds: 30, captureBytes: 0 });
  });
});

/** A GraphQL input literal of a plain value (enums: the known enum fields unquoted). */
function literal(value: unknown, key?: string): string {
  if (Array.isArray(value)) return `[${value.map((v) => literal(v)).join(', ')}]`;
  if (value && typeof value === 'object') return `{ ${Object.entries(value).map(([k, v]) => `${k}: ${literal(v, k)}`).join(', ')} }`;
  if (typeof value === 'string' && ['scheduleType', 'overlap', 'backoff'].includes(key ?? '')) return value;
  return JSON.stringify(value);
}

