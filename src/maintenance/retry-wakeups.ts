import type { RunStore } from '../db/run-store.js';
import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Sets alarms, on this instance, for the retries due before the next passes (cluster-wide). The
 * instance that recorded a retry set its own alarm already (RunStore.onWaiting); this duty covers
 * the retries whose creator is gone: the lease holder claims them when due, and the claim picks
 * one runner. Alarms are local, but they need not be everywhere: one instance claiming is enough.
 */
export class RetryWakeupsDuty extends Duty {
  readonly name = 'retry-wakeups';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { store: RunStore; runtime: MaintainedRuntime; now(): Date; perPass: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    this.o.runtime.wake(await this.o.store.waitingUntil(new Date(this.o.now().getTime() + 2 * this.everyMs), this.o.perPass));
  }
}
