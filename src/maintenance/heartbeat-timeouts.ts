import type { RunStore } from '../db/run-store.js';
import { PROGRESS_WRITE_INTERVAL_MS } from '../db/runs/progress.js';
import type { Tracing } from '../tracing/tracing.js';
import { Duty, type DutyContext } from './duty.js';

/**
 * The heartbeat rule across instances (cluster-wide): RUNNING runs of jobs with a
 * `heartbeatTimeoutSeconds` whose handler has been silent that long end FAILED/HEARTBEAT_TIMEOUT
 * (`settleSilent`). A live runner ends its own silent runs on time (runtime/run-beats.ts); this
 * duty is for runners that cannot: dead, or cut off from the database. It judges with a slack of
 * one write interval of beats and one period of its own, so that it does not race a live runner's
 * own end: a silent run is settled here within its timeout plus two of this duty's periods and a
 * second (docs/behaviour.md, "Progress and heartbeats"). It runs before the lost-run rescue (see
 * maintenance.ts): a dead runner's silent runs say why they failed as precisely as possible.
 * With tracing on, each run settled here gets its span (its runner's never came), as the lost-run
 * rescue's do.
 */
export class HeartbeatTimeoutsDuty extends Duty {
  readonly name = 'heartbeat-timeouts';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly store: RunStore,
    private readonly tracing?: Tracing,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const settled = await this.store.settleSilent(PROGRESS_WRITE_INTERVAL_MS + this.everyMs);
    if (settled.length) {
      for (const run of settled) this.tracing?.endedElsewhere(run);
      this.ctx.log.warn({ runs: settled.length, runners: [...new Set(settled.map((r) => r.runnerInstanceId))] }, 'failed runs whose handler stopped beating (HEARTBEAT_TIMEOUT)');
    }
  }
}
