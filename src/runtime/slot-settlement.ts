import { isTerminal, type RunStatus } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import type { Alarm, Clock } from './clock.js';
import type { RuntimeEvents } from './events.js';

/** What a settlement reads and waits on. */
export interface SlotSettlementOptions {
  store: { nextAttempt(runId: string): Promise<{ id: string; status: RunStatus } | null> };
  /** Resolves when a run executing here has ended (at once for a run not executing here). */
  whenEnded(runId: string): Promise<void>;
  /** `runEnded`: a run executed here ended. */
  events: RuntimeEvents;
  clock: Clock;
  /** How often a wait for an attempt running elsewhere (or not yet due) reads its status again. */
  pollMs: number;
}

/**
 * When a slot's outcome is known: its run has ended and so has every retry the end rules made of it
 * (`retry_of`), wherever those run. Catch-up ALL runs missed slots one after another, each waiting
 * for the slot before it to *settle*, not just for its first attempt to end: a retry waiting for
 * its backoff holds the job's lane, and the next slot would otherwise find it busy and be SKIPPED
 * (OVERLAP) — a missed slot the policy promised to run, lost to the retry of another (a backfill
 * waits for the last attempt the same way). A retry ending here is seen at once (`runEnded`); one
 * running on another instance, or still waiting for its backoff, is read again every `pollMs`.
 */
export class SlotSettlement {
  /** Waits in progress, released at once by `close()` (a stopping runtime). */
  private readonly waits = new Set<() => void>();
  private closed = false;

  constructor(private readonly o: SlotSettlementOptions) {}

  /** Resolves once `run` and its retries have all ended (or the runtime stops). */
  async settled(run: Pick<RunRecord, 'id'>): Promise<void> {
    await this.o.whenEnded(run.id);
    for (let id = run.id; !this.closed; ) {
      const next = await this.o.store.nextAttempt(id);
      if (!next) return;
      if (!isTerminal(next.status)) await this.untilEnded(next.id);
      else id = next.id;
    }
  }

  /** Releases every wait: the runtime is stopping, no next slot will start. Idempotent. */
  close(): void {
    this.closed = true;
    for (const release of [...this.waits]) release();
  }

  /**
   * Resolves when the run ends here, after `pollMs` (the caller reads its status again), or on
   * `close()`, whichever comes first.
   */
  private untilEnded(runId: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let alarm: Alarm | undefined;
      const release = () => {
        off();
        alarm?.cancel();
        this.waits.delete(release);
        resolve();
      };
      const off = this.o.events.on('runEnded', (e) => {
        if (e.runId === runId) release();
      });
      this.waits.add(release);
      alarm = this.o.clock.setAlarm(new Date(this.o.clock.now().getTime() + this.o.pollMs), release);
    });
  }
}
