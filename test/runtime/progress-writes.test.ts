import { describe, expect, it } from 'vitest';
import { RunStatus, TriggerType } from '../../src/domain/enums.js';
import type { RunChange, RunRecord } from '../../src/domain/run.js';
import { runRecord } from '../../src/db/runs/record.js';
import { PROGRESS_WRITE_INTERVAL_MS, ProgressWrites, type ProgressReport } from '../../src/db/runs/progress.js';
import { MAX_PROGRESS_MESSAGE, RunBeats, percentOf } from '../../src/runtime/run-beats.js';
import type { Pool } from '../../src/db/pool.js';
import { eventually } from '../support/cronql.js';

/**
 * The throttle of progress writes (db/runs/progress.ts) and the validation of what handlers
 * report (runtime/run-beats.ts), without a database: the statements are counted, not timed.
 */
const run = (id: string): RunRecord =>
  runRecord({
    id, jobId: 'job', jobKey: 'k', jobVersion: 1, target: 't', triggerType: TriggerType.MANUAL, scheduledAt: new Date(0),
    status: RunStatus.RUNNING, createdAt: new Date(0), updatedAt: new Date(0),
  });

/** A pool that records each statement's parameters and answers that every run was written. */
function fakeStore() {
  const writes: { ids: string[]; progress: (number | null)[]; messages: (string | null)[]; t: number }[] = [];
  const published: RunChange[] = [];
  const pool = {
    query: async (_text: string, params: unknown[]) => {
      const ids = params[0] as string[];
      writes.push({ ids, progress: params[1] as (number | null)[], messages: params[2] as (string | null)[], t: performance.now() });
      return { rows: ids.map((id) => ({ id })), rowCount: ids.length };
    },
  } as unknown as Pool;
  const store = new ProgressWrites({ pool, instanceId: 'me', firing: new Set(), publish: (c) => published.push(...c) }, async () => {}, (err) => {
    throw err;
  });
  return { store, writes, published };
}

describe('progress writes: at most one per run per second, batched across runs', () => {
  it('100 reports in a tight loop are one write of the last value; the next burst waits for the second to pass', async () => {
    const { store, writes, published } = fakeStore();
    const r = run('a');
    for (let i = 1; i <= 100; i++) store.report(r, { at: new Date(i), progress: i, message: `step ${i}` });
    await eventually(() => writes.length === 1, 5_000);
    expect(writes[0]).toMatchObject({ ids: ['a'], progress: [100], messages: ['step 100'] });
    for (let i = 1; i <= 100; i++) store.report(r, { at: new Date(1000 + i), progress: 100 - i / 2 });
    await eventually(() => writes.length === 2, 5_000);
    // Coalesced: the last value of the second, the message kept; not before the second had passed.
    expect(writes[1]).toMatchObject({ ids: ['a'], progress: [50], messages: ['step 100'] });
    // (A timer may fire a millisecond early, and the statement is sent a few microtasks after its flush began.)
    expect(writes[1].t - writes[0].t).toBeGreaterThanOrEqual(PROGRESS_WRITE_INTERVAL_MS - 20);
    // Both changed the progress: both published, as RUNNING → RUNNING at their beat.
    expect(published.map((c) => [c.previousStatus, c.run.status, c.run.progress, c.changedAt.getTime()])).toEqual([
      ['RUNNING', 'RUNNING', 100, 100],
      ['RUNNING', 'RUNNING', 50, 1100],
    ]);
    store.clear();
  });

  it('a bare heartbeat is written but not published; runs reporting together share one statement', async () => {
    const { store, writes, published } = fakeStore();
    const runs = Array.from({ length: 50 }, (_, i) => run(`r${i}`));
    for (const r of runs) store.report(r, { at: new Date(5) });
    await eventually(() => writes.length === 1, 5_000);
    expect(writes[0].ids).toHaveLength(50);
    expect(published).toEqual([]);
    store.clear();
  });

  it('an ended run takes its unwritten report with it: no write, nothing published after', async () => {
    const { store, writes, published } = fakeStore();
    const r = run('ends');
    store.report(r, { at: new Date(7), progress: 99, message: 'almost' });
    const taken = store.take('ends');
    expect(taken).toMatchObject({ progress: 99, message: 'almost', beatAt: new Date(7), dirty: true });
    // Another run's write goes out; the ended one is not in it.
    store.report(run('other'), { at: new Date(8) });
    await eventually(() => writes.length === 1, 5_000);
    expect(writes[0].ids).toEqual(['other']);
    expect(published).toEqual([]);
    store.clear();
  });
});

describe('what a handler reports is validated: clamped, or ignored with a warning, never thrown', () => {
  const percents: [unknown, number | undefined][] = [
    [0, 0], [100, 100], [42.5, 42.5], [-0.1, 0], [-1e9, 0], [100.4, 100], [1e308, 100],
    [NaN, undefined], [Infinity, undefined], [-Infinity, undefined], ['50', undefined], [null, undefined], [undefined, undefined],
    [{ valueOf: () => 5 }, undefined], [5n, undefined],
  ];
  for (const [value, expected] of percents) {
    it(`percent ${typeof value === 'bigint' ? `${value}n` : String(value)} → ${expected ?? 'ignored'}`, () => {
      expect(percentOf(value)).toBe(expected);
    });
  }

  function beats(secrets: ReadonlyMap<string, string> = new Map()) {
    const reports: ProgressReport[] = [];
    const warnings: unknown[] = [];
    let silentAt: Date | undefined;
    const b = new RunBeats({
      store: { progress: (_r, report) => reports.push(report), takeProgress: () => undefined },
      now: () => new Date(1_000),
      heartbeatTimeoutSeconds: null,
      secrets,
      log: () => ({ warn: (...args: unknown[]) => warnings.push(args) }) as never,
      silent: (at) => (silentAt = at),
    });
    b.entered(run('x'), new Date(0));
    return { b, reports, warnings, silent: () => silentAt };
  }

  it('bad values never throw; each call still beats; one warning per run', () => {
    const { b, reports, warnings } = beats();
    const call = b.progress as (...args: unknown[]) => void;
    expect(() => {
      call(150, 'over');
      call(NaN);
      call(-3, 42);
      call('50', null);
      call(Symbol('s'), { toString: () => 'x' });
      call();
      b.heartbeat();
    }).not.toThrow();
    expect(reports).toEqual([
      { at: new Date(1_000), progress: 100, message: 'over' },
      { at: new Date(1_000) },
      { at: new Date(1_000), progress: 0 },
      { at: new Date(1_000), message: null },
      { at: new Date(1_000) },
      { at: new Date(1_000) },
      { at: new Date(1_000) },
    ]);
    expect(warnings).toHaveLength(1);
  });

  it('messages are cut, cleaned of NUL and of the run’s secrets', () => {
    const { b, reports } = beats(new Map([['TOKEN', 's3cr3t-value']]));
    b.progress(10, `${'y'.repeat(MAX_PROGRESS_MESSAGE + 100)}`);
    b.progress(20, 'calling with s3cr3t-value\u0000 now');
    expect(reports[0].message).toBe('y'.repeat(MAX_PROGRESS_MESSAGE));
    expect(reports[1].message).not.toContain('s3cr3t-value');
    expect(reports[1].message).not.toContain('\u0000');
  });

  it('after the run has ended, nothing is reported', () => {
    const { b, reports } = beats();
    b.end(run('x'));
    b.progress(50, 'late');
    b.heartbeat();
    expect(reports).toEqual([]);
  });
});
