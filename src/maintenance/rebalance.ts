import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Recomputes which jobs this instance arms from the live schedulers (an instance duty: each
 * instance computes its own share). The membership notification does it at once; this pass is
 * how a crashed scheduler's share is taken over, once its heartbeat is old enough.
 */
export class RebalanceDuty extends Duty {
  readonly name = 'rebalance';
  readonly scope = 'instance' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly runtime: MaintainedRuntime,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.runtime.rebalance();
  }
}
