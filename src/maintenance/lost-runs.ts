import type { RunStore } from '../db/run-store.js';
import type { Tracing } from '../tracing/tracing.js';
import { Duty, type DutyContext } from './duty.js';

/**
 * The lost-run rescue (cluster-wide; River's job rescuer): settles RUNNING runs whose runner
 * stopped beating (RUNNER_LOST) or, with no known runner, that are older than the stale threshold
 * (STALE_TIMEOUT). The runner is judged a period early, so that with the duty's own period a run
 * is settled at most `lostAfterMs` after its runner's last beat. With tracing on, each settled
 * run's span is emitted here (the runner's went with it; docs/operations.md, "Tracing").
 */
export class LostRunsDuty extends Duty {
  readonly name = 'lost-runs';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { store: RunStore; lostAfterMs: number; staleAfterMs: number; tracing?: Tracing },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const settled = await this.o.store.settleLost(this.o.lostAfterMs - this.everyMs, this.o.staleAfterMs);
    if (settled.length) {
      for (const run of settled) this.o.tracing?.endedElsewhere(run);
      this.ctx.log.warn({ runs: settled.length, runners: [...new Set(settled.map((r) => r.runnerInstanceId))] }, 'settled runs whose runner is gone');
    }
  }
}
