import { performance } from 'node:perf_hooks';
import { releaseLease, takeLease } from '../db/maintenance-lease.js';
import type { Pool } from '../db/pool.js';
import { Duty, type DutyContext } from './duty.js';

/** The one lease the cluster-wide duties share: they move together, with one statement per try. */
export const MAINTENANCE_LEASE = 'maintenance';

/**
 * Takes or renews the cluster-wide lease every heartbeat (an instance duty: every instance tries).
 * Held, locally, until the lease's length after the statement was *sent* — never later than the
 * database's expiry, so two instances never both believe they hold it. When it is gained, the
 * cluster duties run at once (`gained`), so a duty moved from a killed holder does not wait
 * another period.
 */
export class LeaseDuty extends Duty {
  readonly name = 'lease';
  readonly scope = 'instance' as const;
  private heldUntil = 0;
  private holding = false;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly pool: Pool,
    /** The lease's length. */
    readonly leaseMs: number,
    private readonly gained: () => void,
  ) {
    super(ctx, everyMs);
  }

  get held(): boolean {
    return performance.now() < this.heldUntil;
  }

  protected async work(): Promise<void> {
    const sent = performance.now();
    const mine = await takeLease(this.pool, MAINTENANCE_LEASE, this.ctx.instanceId, this.leaseMs);
    this.heldUntil = mine ? sent + this.leaseMs : 0;
    if (mine && !this.holding) {
      this.holding = true;
      this.ctx.log.info({ leaseMs: this.leaseMs }, 'this instance runs the cluster-wide maintenance duties');
      this.gained();
    } else if (!mine && this.holding) {
      this.holding = false;
      this.ctx.log.info('another instance runs the cluster-wide maintenance duties');
    }
  }

  /** Gives the lease up on a clean stop (the next holder need not wait for it to expire). */
  async release(): Promise<void> {
    if (!this.holding) return;
    this.heldUntil = 0;
    this.holding = false;
    await releaseLease(this.pool, MAINTENANCE_LEASE, this.ctx.instanceId);
  }
}
