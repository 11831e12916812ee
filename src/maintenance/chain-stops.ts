import type { RunStore } from '../db/run-store.js';
import { Duty, type DutyContext } from './duty.js';

/**
 * Ends the waiting retries and buffered slots of jobs no longer ACTIVE (cluster-wide). The
 * instance applying the job's change does it at once; this pass covers one that stopped first.
 */
export class ChainStopsDuty extends Duty {
  readonly name = 'chain-stops';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly store: RunStore,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.store.stopChains();
  }
}
