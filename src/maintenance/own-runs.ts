import { isTerminal } from '../domain/enums.js';
import type { RunStore } from '../db/run-store.js';
import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Reconciles this instance's own runs with the database (an instance duty: only this process
 * can execute or abort them): resumes runs recorded RUNNING here whose start was never
 * confirmed (a fire or claim whose answer was lost after it committed), and aborts runs
 * executing here whose row is already terminal (a cancel whose notification was lost).
 */
export class OwnRunsDuty extends Duty {
  readonly name = 'own-runs';
  readonly scope = 'instance' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { store: RunStore; runtime: MaintainedRuntime; now(): Date },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const { store, runtime: rt } = this.o;
    // Runs recorded as ours before the oldest write still in flight: their answer was lost.
    const cutoff = rt.oldestPendingWrite() ?? this.o.now();
    const orphans = await store.runningHere(cutoff, rt.inFlight());
    if (orphans.length) {
      this.ctx.log.warn({ runs: orphans.length }, 'resuming runs recorded as running here whose start was not confirmed');
      rt.resume(orphans);
    }
    const statuses = await store.statuses(rt.inFlight());
    for (const [id, status] of statuses) if (isTerminal(status)) rt.abortRun(id);
  }
}
