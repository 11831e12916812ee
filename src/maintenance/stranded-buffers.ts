import type { RunStore } from '../db/run-store.js';
import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Starts buffered slots (BUFFER_ONE) whose job has nothing active any more (cluster-wide): the
 * instance that ended the run before them stopped before it promoted them.
 */
export class StrandedBuffersDuty extends Duty {
  readonly name = 'stranded-buffers';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { store: RunStore; runtime: MaintainedRuntime; perPass: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const promoted = await this.o.store.promoteStranded(this.o.perPass);
    if (promoted.length) await this.o.runtime.claimAndExecute(promoted);
  }
}
