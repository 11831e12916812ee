import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codes, gql, startApi, type Api } from '../graphql/support.js';
import { eventually } from '../support/cronql.js';

/**
 * AFTER jobs through the public API (docs/behaviour.md, "Jobs that follow jobs"): fan-out on each
 * outcome, retries, fan-in ALL within a window, a paused or busy dependent, and the graph's rules
 * (unknown upstreams, cycles through any number of jobs, also made by a new version or by two
 * writes at once). Upstreams are started with runJobNow: every trigger but BACKFILL counts.
 */
describe('AFTER jobs', () => {
  let api: Api;
  /** Each handler entry: job key and the run's trigger. */
  const entered: { jobKey: string; trigger: string; attempt: number }[] = [];
  const tries = new Map<string, number>();
  /** Releases the `gate` handlers waiting. */
  let open: () => void = () => undefined;
  let gate = new Promise<void>((resolve) => (open = resolve));
  let openHeld: () => void = () => undefined;
  let held = Promise.resolve();
  beforeAll(async () => {
    api = await startApi({
      targets: {
        // Succeeds, or fails when the payload says so.
        step: async (ctx: { payload: { fail?: boolean } | null; run: { jobKey: string; triggerType: string; attempt: number } }) => {
          entered.push({ jobKey: ctx.run.jobKey, trigger: ctx.run.triggerType, attempt: ctx.run.attempt });
          if (ctx.payload?.fail) throw new Error('asked to fail');
          return { ok: true };
        },
        // Waits until the test opens it (a second gate, for the buffer's test).
        held: async () => {
          await held;
          return { ok: true };
        },
        // Waits until the test opens the gate.
        gate: async () => {
          await gate;
          return { ok: true };
        },
        // Fails its first two attempts of each run-now, then succeeds.
        flaky: async (ctx: { run: { jobKey: string; triggerType: string; attempt: number } }) => {
          entered.push({ jobKey: ctx.run.jobKey, trigger: ctx.run.triggerType, attempt: ctx.run.attempt });
          const n = (tries.get(ctx.run.jobKey) ?? 0) + 1;
          tries.set(ctx.run.jobKey, n);
          if (n <= 2) throw new Error(`attempt ${n} fails`);
          return { ok: true };
        },
      },
    });
  });
  afterAll(() => api.close());

  const request = <R>(query: string, variables: Record<string, unknown> = {}) => gql<R, unknown>(api.url, query, variables, api.adminToken);
  const must = async <R>(query: string, variables: Record<string, unknown> = {}): Promise<R> => {
    const res = await request<R>(query, variables);
    if (res.errors?.length || !res.data) throw new Error(JSON.stringify(res.errors));
    return res.data;
  };
  /** A job whose clock never fires during the test (runs come from runJobNow). */
  const upstream = async (key: string, extra: Record<string, unknown> = {}) =>
    (await must<{ createJob: { id: string } }>('mutation($input: CreateJobInput!) { createJob(input: $input) { id } }', {
      input: { key, target: 'step', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *', ...extra },
    })).createJob.id;
  const after = (key: string, upstreams: { jobKey: string; on?: string }[], extra: Record<string, unknown> = {}) =>
    request<{ createJob: { id: string; after: { on: string; upstream: { key: string; status: string } }[] } }>(
      'mutation($input: CreateJobInput!) { createJob(input: $input) { id after { on upstream { key status } } } }',
      { input: { key, target: 'step', scheduleType: 'AFTER', after: upstreams, ...extra } },
    );
  const runNow = async (id: string) => (await must<{ runJobNow: { id: string } }>('mutation($id: ID!) { runJobNow(id: $id) { id } }', { id })).runJobNow.id;
  interface Row { id: string; status: string; triggerType: string; attempt: number; failureCode: string | null; upstreamRuns: { id: string; jobKey: string; status: string }[] }
  const runsOf = async (jobKey: string) =>
    (await must<{ runs: { nodes: Row[] } }>(
      'query($key: String!) { runs(filter: { jobKey: $key }, first: 100) { nodes { id status triggerType attempt failureCode upstreamRuns { id jobKey status } } } }',
      { key: jobKey },
    )).runs.nodes;
  const settled = async (jobKey: string, n: number) =>
    eventually(async () => {
      const rows = await runsOf(jobKey);
      return rows.length === n && rows.every((r) => !['PENDING', 'RUNNING'].includes(r.status)) ? rows : null;
    }, 15_000);
  /** Every run made so far has ended and been followed (nothing pending here). */
  const idle = () => api.cronql.runtime!.whenIdle();

  it('A → B on SUCCEEDED and A → C on FAILED: each runs exactly when asked, once, with upstreamRuns', async () => {
    const a = await upstream('fan-a');
    const b = await after('fan-b', [{ jobKey: 'fan-a' }]);
    expect(b.errors).toBeUndefined();
    expect(b.data!.createJob.after).toEqual([{ on: 'SUCCEEDED', upstream: { key: 'fan-a', status: 'ACTIVE' } }]);
    expect((await after('fan-c', [{ jobKey: 'fan-a', on: 'FAILED' }])).errors).toBeUndefined();

    const first = await runNow(a);
    const [bRun] = await settled('fan-b', 1);
    expect(bRun).toMatchObject({ status: 'SUCCEEDED', triggerType: 'DEPENDENCY', attempt: 1 });
    expect(bRun.upstreamRuns).toEqual([{ id: first, jobKey: 'fan-a', status: 'SUCCEEDED' }]);
    await idle();
    expect(await runsOf('fan-c')).toEqual([]);

    // A new version of A keeps the link (by key); this one fails: C runs, B does not.
    const v2 = await must<{ createJobVersion: { id: string } }>('mutation($id: ID!) { createJobVersion(id: $id, input: { payload: { fail: true } }) { id } }', { id: a });
    const failed = await runNow(v2.createJobVersion.id);
    const [cRun] = await settled('fan-c', 1);
    expect(cRun).toMatchObject({ status: 'SUCCEEDED', triggerType: 'DEPENDENCY' });
    expect(cRun.upstreamRuns).toEqual([{ id: failed, jobKey: 'fan-a', status: 'FAILED' }]);
    await idle();
    expect(await runsOf('fan-b')).toHaveLength(1);
    expect(entered.filter((e) => e.jobKey === 'fan-b' || e.jobKey === 'fan-c').map((e) => `${e.jobKey}:${e.trigger}`)).toEqual(['fan-b:DEPENDENCY', 'fan-c:DEPENDENCY']);
    // A retired upstream shows RETIRED at its last version; its dependents stay ACTIVE.
    await must('mutation($id: ID!) { retireJob(id: $id) { id } }', { id: v2.createJobVersion.id });
    const b2 = await must<{ job: { status: string; after: { upstream: { key: string; version: number; status: string } }[] } }>(
      'query($id: ID!) { job(id: $id) { status after { upstream { key version status } } } }',
      { id: b.data!.createJob.id },
    );
    expect(b2.job).toEqual({ status: 'ACTIVE', after: [{ upstream: { key: 'fan-a', version: 2, status: 'RETIRED' } }] });
  });

  it('A retried twice then succeeding triggers B once, after its last attempt; C (on FAILED) never', async () => {
    const a = await upstream('retry-a', { target: 'flaky', retry: { maxAttempts: 3, backoff: 'FIXED', delaySeconds: 0 } });
    expect((await after('retry-b', [{ jobKey: 'retry-a', on: 'SUCCEEDED' }])).errors).toBeUndefined();
    expect((await after('retry-c', [{ jobKey: 'retry-a', on: 'FAILED' }])).errors).toBeUndefined();
    await runNow(a);
    const attempts = await settled('retry-a', 3);
    const last = attempts.find((r) => r.attempt === 3)!;
    expect(last.status).toBe('SUCCEEDED');
    const [bRun] = await settled('retry-b', 1);
    expect(bRun.upstreamRuns.map((u) => u.id)).toEqual([last.id]);
    await idle();
    expect(await runsOf('retry-b')).toHaveLength(1);
    expect(await runsOf('retry-c')).toEqual([]);
  });

  it('fan-in ALL of three upstreams: two ended → no run; the third → one run linking all three; then the set starts afresh', async () => {
    const ids = [await upstream('in-1'), await upstream('in-2'), await upstream('in-3')];
    const made = await after('in-all', ['in-1', 'in-2', 'in-3'].map((jobKey) => ({ jobKey })), { afterMode: 'ALL', afterWindowSeconds: 3_600 });
    expect(made.errors).toBeUndefined();
    const first = [await runNow(ids[0]), await runNow(ids[1])];
    await settled('in-1', 1);
    await settled('in-2', 1);
    await idle();
    expect(await runsOf('in-all')).toEqual([]);
    first.push(await runNow(ids[2]));
    const [run] = await settled('in-all', 1);
    expect(run.upstreamRuns.map((u) => u.id).sort()).toEqual([...first].sort());
    // Since that run, only in-1 ended: nothing.
    await runNow(ids[0]);
    await settled('in-1', 2);
    await idle();
    expect(await runsOf('in-all')).toHaveLength(1);
  });

  it('fan-in ALL within afterWindowSeconds: ends older than the window do not count', async () => {
    const ids = [await upstream('win-1'), await upstream('win-2')];
    expect((await after('win-all', [{ jobKey: 'win-1' }, { jobKey: 'win-2' }], { afterMode: 'ALL', afterWindowSeconds: 60 })).errors).toBeUndefined();
    await runNow(ids[0]);
    await settled('win-1', 1);
    // win-1's end, two minutes ago (as if the time had passed).
    await api.cronql.pool.query(
      `UPDATE cron_after_arrivals SET arrivals = jsonb_set(arrivals, '{win-1,at}', to_jsonb(now() - interval '2 minutes')) WHERE job_key = 'win-all'`,
    );
    await runNow(ids[1]);
    await settled('win-2', 1);
    await idle();
    expect(await runsOf('win-all')).toEqual([]);
    // win-1 again, within the window of win-2's end: the set is complete.
    await runNow(ids[0]);
    const [run] = await settled('win-all', 1);
    expect(run.upstreamRuns.map((u) => u.jobKey).sort()).toEqual(['win-1', 'win-2']);
  });

  it('a paused dependent gets no run; a busy one follows its overlap policy (SKIP: SKIPPED/OVERLAP, linked to the upstream run)', async () => {
    const a = await upstream('busy-a');
    const paused = await after('paused-b', [{ jobKey: 'busy-a' }]);
    await must('mutation($id: ID!) { pauseJob(id: $id, reason: "maintenance") { id } }', { id: paused.data!.createJob.id });
    const busy = await after('busy-b', [{ jobKey: 'busy-a' }], { target: 'gate' });
    expect(busy.errors).toBeUndefined();
    // busy-b's own run-now is RUNNING (its handler waits on the gate) when busy-a ends.
    const own = await runNow(busy.data!.createJob.id);
    await eventually(async () => (await runsOf('busy-b')).find((r) => r.id === own && r.status === 'RUNNING'));
    const upstreamRun = await runNow(a);
    const skipped = await eventually(async () => (await runsOf('busy-b')).find((r) => r.triggerType === 'DEPENDENCY'));
    expect(skipped).toMatchObject({ status: 'SKIPPED', failureCode: 'OVERLAP' });
    expect(skipped.upstreamRuns.map((u) => u.id)).toEqual([upstreamRun]);
    open();
    gate = Promise.resolve();
    await settled('busy-b', 2);
    await idle();
    expect(await runsOf('paused-b')).toEqual([]);
  });

  it('a busy BUFFER_ONE dependent keeps one run waiting (linked), SKIPs the next, and starts the waiting one when its run ends', async () => {
    held = new Promise<void>((resolve) => (openHeld = resolve));
    const a = await upstream('buf-a');
    const dep = await after('buf-b', [{ jobKey: 'buf-a' }], { target: 'held', overlap: 'BUFFER_ONE' });
    expect(dep.errors).toBeUndefined();
    await runNow(dep.data!.createJob.id);
    await eventually(async () => (await runsOf('buf-b')).some((r) => r.status === 'RUNNING'));
    const firstEnd = await runNow(a);
    await eventually(async () => (await runsOf('buf-b')).some((r) => r.triggerType === 'DEPENDENCY' && r.status === 'PENDING'));
    const secondEnd = await runNow(a);
    const skipped = await eventually(async () => (await runsOf('buf-b')).find((r) => r.triggerType === 'DEPENDENCY' && r.status === 'SKIPPED'));
    expect(skipped.upstreamRuns.map((u) => u.id)).toEqual([secondEnd]);
    openHeld();
    const rows = await settled('buf-b', 3);
    const buffered = rows.find((r) => r.triggerType === 'DEPENDENCY' && r.status === 'SUCCEEDED')!;
    expect(buffered.upstreamRuns.map((u) => u.id)).toEqual([firstEnd]);
  });

  it('refuses unknown upstreams (UNKNOWN_JOB) and cycles (DEPENDENCY_CYCLE): itself, through three jobs, by a new version; nothing is written', async () => {
    expect(codes(await after('orphan', [{ jobKey: 'no-such-job' }]))).toEqual(['UNKNOWN_JOB']);
    expect(codes(await after('selfish', [{ jobKey: 'selfish' }]))).toEqual(['DEPENDENCY_CYCLE']);
    const x = await upstream('cyc-x');
    expect((await after('cyc-y', [{ jobKey: 'cyc-x' }])).errors).toBeUndefined();
    expect((await after('cyc-z', [{ jobKey: 'cyc-y' }])).errors).toBeUndefined();
    // x after z would close x → y → z → x.
    const version = await request('mutation($id: ID!) { createJobVersion(id: $id, input: { scheduleType: AFTER, after: [{ jobKey: "cyc-z" }] }) { id } }', { id: x });
    expect(codes(version)).toEqual(['DEPENDENCY_CYCLE']);
    const jobs = await must<{ jobs: { nodes: { key: string; version: number; status: string }[] } }>(
      '{ jobs(filter: { keyContains: "cyc-" }, first: 10) { nodes { key version status } } }',
    );
    expect(jobs.jobs.nodes.map((j) => `${j.key}@${j.version}:${j.status}`).sort()).toEqual(['cyc-x@1:ACTIVE', 'cyc-y@1:ACTIVE', 'cyc-z@1:ACTIVE']);
    expect(codes(await request('{ jobs(filter: { key: "orphan" }) { totalCount } }'))).toEqual([]);
  });

  it('createJobs writes upstreams before their dependents, whatever the order given (one statement); a cycle among them is DEPENDENCY_CYCLE', async () => {
    const made = await request<{ createJobs: { key: string; after: { upstream: { key: string } }[] }[] }>(
      'mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { key after { upstream { key } } } }',
      {
        inputs: [
          { key: 'batch-report', target: 'step', scheduleType: 'AFTER', after: [{ jobKey: 'batch-export' }] },
          { key: 'batch-export', target: 'step', scheduleType: 'AFTER', after: [{ jobKey: 'batch-import' }] },
          { key: 'batch-import', target: 'step', scheduleType: 'RECURRING', cronExpression: '0 0 1 1 *' },
        ],
      },
    );
    expect(made.errors).toBeUndefined();
    expect(made.data!.createJobs.map((j) => [j.key, j.after.map((d) => d.upstream.key)])).toEqual([
      ['batch-report', ['batch-export']],
      ['batch-export', ['batch-import']],
      ['batch-import', []],
    ]);
    const cycle = await request('mutation($inputs: [CreateJobInput!]!) { createJobs(inputs: $inputs) { key } }', {
      inputs: [
        { key: 'loop-1', target: 'step', scheduleType: 'AFTER', after: [{ jobKey: 'loop-2' }] },
        { key: 'loop-2', target: 'step', scheduleType: 'AFTER', after: [{ jobKey: 'loop-1' }] },
      ],
    });
    expect(codes(cycle)).toEqual(['DEPENDENCY_CYCLE']);
  });

  it('two versions that would close a cycle together, written at once: one is refused', async () => {
    for (let round = 0; round < 5; round++) {
      const p = await upstream(`pair-p${round}`);
      const q = await upstream(`pair-q${round}`);
      const results = await Promise.all([
        request(`mutation($id: ID!) { createJobVersion(id: $id, input: { scheduleType: AFTER, after: [{ jobKey: "pair-q${round}" }] }) { id } }`, { id: p }),
        request(`mutation($id: ID!) { createJobVersion(id: $id, input: { scheduleType: AFTER, after: [{ jobKey: "pair-p${round}" }] }) { id } }`, { id: q }),
      ]);
      expect(results.map((r) => codes(r)).sort()).toEqual([[], ['DEPENDENCY_CYCLE']]);
    }
  });

  it('validates the settings of AFTER jobs: every form of after, afterMode and afterWindowSeconds', async () => {
    await upstream('val-a');
    const cases: [Record<string, unknown>, string | null][] = [
      [{ after: null }, 'BAD_USER_INPUT'],
      [{ after: [] }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }, { jobKey: 'val-a' }] }, 'BAD_USER_INPUT'],
      [{ after: Array.from({ length: 21 }, (_, i) => ({ jobKey: `k${i}` })) }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: ' bad key' }] }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a', on: 'NEVER' }] }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }], afterWindowSeconds: 60 }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }], afterMode: 'ALL', afterWindowSeconds: 0 }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }], afterMode: 'ALL', afterWindowSeconds: 2_678_401 }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }], cronExpression: '* * * * *' }, 'INVALID_SCHEDULE'],
      [{ after: [{ jobKey: 'val-a' }], maxRuns: 3 }, 'BAD_USER_INPUT'],
      [{ after: [{ jobKey: 'val-a' }], overlap: 'CANCEL_PREVIOUS' }, 'INVALID_POLICY'],
      [{ after: [{ jobKey: 'val-a' }], afterMode: 'ALL', afterWindowSeconds: null }, null],
      [{ after: [{ jobKey: 'val-a', on: null }] }, null],
    ];
    for (const [i, [input, code]] of cases.entries()) {
      const res = await request<{ createJob: { after: { on: string }[] } }>(
        'mutation($input: CreateJobInput!) { createJob(input: $input) { after { on } } }',
        { input: { key: `val-${i}`, target: 'step', scheduleType: 'AFTER', ...input } },
      );
      expect([i, codes(res)[0] ?? null]).toEqual([i, code]);
    }
    // Upstreams on a clocked job are refused too.
    const clocked = await request('mutation { createJob(input: { key: "val-clocked", target: "step", scheduleType: RECURRING, cronExpression: "* * * * *", after: [{ jobKey: "val-a" }] }) { id } }');
    expect(codes(clocked)).toEqual(['BAD_USER_INPUT']);
  });
});
