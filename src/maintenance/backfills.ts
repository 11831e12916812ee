import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Moves backfills on (cluster-wide): the instance whose backfill run ended starts the next slot at
 * once, but a runner that crashed, a job whose lanes were busy, or a backfill created on an
 * instance without a runtime is moved on here, within a heartbeat. The plan is in the database,
 * so after a restart this is what goes on with it.
 */
export class BackfillsDuty extends Duty {
  readonly name = 'backfills';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly runtime: MaintainedRuntime,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.runtime.advanceBackfills();
  }
}
