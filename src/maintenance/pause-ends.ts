import type { Pool } from '../db/pool.js';
import { pausesEndingBy } from '../db/pause-ends.js';
import { Duty, type DutyContext } from './duty.js';
import type { MaintainedRuntime } from './maintained-runtime.js';

/**
 * Sets alarms, on this instance, for the pauses that end before the next passes (pauseJob's
 * `until`), cluster-wide. The instance arming a paused job set its own alarm when it heard of the
 * pause; this duty covers the pauses nobody has an alarm for (set before a restart or a
 * rebalance, or whose instance is gone): the lease holder resumes them on time, and the resume's
 * conditional update lets one instance win.
 */
export class PauseEndsDuty extends Duty {
  readonly name = 'pause-ends';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { pool: Pool; runtime: MaintainedRuntime; now(): Date; perPass: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    this.o.runtime.endPauses(await pausesEndingBy(this.o.pool, new Date(this.o.now().getTime() + 2 * this.everyMs), this.o.perPass));
  }
}
