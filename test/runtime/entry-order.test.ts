import { describe, expect, it } from 'vitest';
import { RunExecutor } from '../../src/runtime/run-executor.js';
import { TargetRegistry } from '../../src/runtime/targets/registry.js';
import { firedRun } from '../../src/db/runs/record.js';
import type { RunStore } from '../../src/db/run-store.js';
import type { Logger } from '../../src/logger.js';

/**
 * The handlers of one answer of the database are entered before anything that can wait: each
 * run's entry instant handed to the store, and the ends of handlers that return (or throw) at
 * once, follow the last entry — and the ends wait for the fire statements still in flight.
 */
describe('the handlers of one answer are entered first', () => {
  it('every entry precedes the store being told of any entry or end; ends wait for the fires in flight', async () => {
    const seen: string[] = [];
    let releaseFires!: () => void;
    const fires = new Promise<void>((resolve) => (releaseFires = resolve));
    const store = {
      started: (id: string) => seen.push(`started ${id}`),
      progress: () => {},
      takeProgress: () => undefined,
      finish: (run: { id: string }) => {
        seen.push(`end ${run.id}`);
        return Promise.resolve(null);
      },
      finishAlone: () => Promise.resolve(null),
      afterFires: () => fires,
    } as unknown as RunStore;
    const log = { child: () => log, info() {}, warn() {}, error() {}, debug() {} } as unknown as Logger;
    const targets = new TargetRegistry({
      ok: ({ run, progress }) => {
        seen.push(`entered ${run.id}`);
        progress(50); // a report at once: the run as entered is made for it
      },
      throws: ({ run }) => {
        seen.push(`entered ${run.id}`);
        throw new Error('at once');
      },
    });
    const executor = new RunExecutor(store, targets, log);
    const at = new Date('2026-11-26T12:00:00.000Z');
    const limits = { timeoutSeconds: null, heartbeatTimeoutSeconds: null, captureBytes: 1_000 };
    const ids = Array.from({ length: 40 }, (_, i) => `run-${String(i).padStart(2, '0')}`);
    for (const [i, id] of ids.entries()) {
      const job = { jobKey: `k${i}`, version: 1, target: i % 4 === 0 ? 'throws' : 'ok', payload: { n: i } };
      executor.execute(firedRun(id, `job-${i}`, job, { scheduledAt: at, dueAt: null }, 'here', at), limits);
    }
    await new Promise((resolve) => setImmediate(resolve));
    const firstOther = seen.findIndex((s) => !s.startsWith('entered'));
    expect(seen.slice(0, ids.length)).toEqual(ids.map((id) => `entered ${id}`));
    expect(firstOther).toBe(ids.length);
    expect(seen.slice(ids.length)).toEqual(ids.map((id) => `started ${id}`));
    // No end before the fires in flight are answered and their handlers entered.
    releaseFires();
    await executor.whenIdle();
    expect(seen.slice(2 * ids.length).sort()).toEqual(ids.map((id) => `end ${id}`).sort());
  });
});
