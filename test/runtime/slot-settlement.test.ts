import { describe, expect, it } from 'vitest';
import { RunStatus } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { RuntimeEvents } from '../../src/runtime/events.js';
import { SlotSettlement } from '../../src/runtime/slot-settlement.js';

/**
 * When a caught-up slot counts as settled (catch-up ALL starts the next one then): its run and every
 * retry of it ended, whether a retry ends here (at once) or elsewhere (read again every pollMs on
 * the injected clock); a stopping runtime releases every wait.
 */
describe('slot settlement', () => {
  const setup = () => {
    const clock = new ManualClock('2026-06-01T00:00:00.000Z');
    const events = new RuntimeEvents();
    /** run id → its retry (id, status), as the database would say. */
    const retries = new Map<string, { id: string; status: RunStatus }>();
    let reads = 0;
    const settlement = new SlotSettlement({
      store: {
        nextAttempt: async (id) => {
          reads++;
          const r = retries.get(id);
          return r ? { ...r } : null;
        },
      },
      whenEnded: async () => {},
      events,
      clock,
      pollMs: 5_000,
    });
    let done = false;
    const watch = (p: Promise<void>) => p.then(() => (done = true));
    const turns = async () => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    };
    return { clock, events, retries, settlement, watch, turns, isDone: () => done, reads: () => reads };
  };

  it('a run without a retry is settled once it ended', async () => {
    const t = setup();
    await t.watch(t.settlement.settled({ id: 'r1' }));
    expect(t.isDone()).toBe(true);
  });

  it('a retry ending here settles the slot at once; its own retry is waited for too', async () => {
    const t = setup();
    t.retries.set('r1', { id: 'r2', status: RunStatus.PENDING });
    void t.watch(t.settlement.settled({ id: 'r1' }));
    await t.turns();
    expect(t.isDone()).toBe(false);
    // Attempt 2 fails and is retried: attempt 3 waits for its backoff.
    t.retries.set('r1', { id: 'r2', status: RunStatus.FAILED });
    t.retries.set('r2', { id: 'r3', status: RunStatus.PENDING });
    t.events.emit('runEnded', { runId: 'r2', jobId: 'j', status: RunStatus.FAILED });
    await t.turns();
    expect(t.isDone()).toBe(false);
    t.retries.set('r2', { id: 'r3', status: RunStatus.SUCCEEDED });
    t.events.emit('runEnded', { runId: 'r3', jobId: 'j', status: RunStatus.SUCCEEDED });
    await t.turns();
    expect(t.isDone()).toBe(true);
  });

  it('a retry running on another instance is read again every pollMs of the clock, not before', async () => {
    const t = setup();
    t.retries.set('r1', { id: 'r2', status: RunStatus.RUNNING });
    void t.watch(t.settlement.settled({ id: 'r1' }));
    await t.turns();
    const readsBefore = t.reads();
    t.retries.set('r1', { id: 'r2', status: RunStatus.SUCCEEDED }); // ended elsewhere: no runEnded here
    t.clock.advance(4_999);
    await t.turns();
    expect(t.isDone()).toBe(false);
    expect(t.reads()).toBe(readsBefore);
    t.clock.advance(1);
    await t.turns();
    expect(t.isDone()).toBe(true);
  });

  it('close() releases every wait and no wait starts after it', async () => {
    const t = setup();
    t.retries.set('r1', { id: 'r2', status: RunStatus.PENDING });
    void t.watch(t.settlement.settled({ id: 'r1' }));
    await t.turns();
    t.settlement.close();
    await t.turns();
    expect(t.isDone()).toBe(true);
    let later = false;
    await t.settlement.settled({ id: 'r1' }).then(() => (later = true));
    expect(later).toBe(true);
  });
});
