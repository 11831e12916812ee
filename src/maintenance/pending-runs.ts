import type { RunStore } from '../db/run-store.js';
import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Claims PENDING runs nobody claimed (cluster-wide): a run-now while no scheduler was up, an
 * ambiguous write, a retry whose creator is gone. Only runs older than `pendingAfterMs`: their
 * creator had its chance. The claim picks one runner; the holder of the lease executes them.
 */
export class PendingRunsDuty extends Duty {
  readonly name = 'pending-runs';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { store: RunStore; runtime: MaintainedRuntime; now(): Date; pendingAfterMs: number; perPass: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const before = new Date(this.o.now().getTime() - this.o.pendingAfterMs);
    const pending = await this.o.store.pendingIds(before, this.o.perPass);
    if (pending.length) await this.o.runtime.claimAndExecute(pending);
  }
}
