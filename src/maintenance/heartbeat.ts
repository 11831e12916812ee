import { beat, type InstanceIdentity } from '../db/instances.js';
import type { Pool } from '../db/pool.js';
import { Duty, type DutyContext } from './duty.js';
import type { PassResult } from './events.js';
import type { Ledger } from '../runtime/ledger.js';

/**
 * Records this instance alive (its row in `cron_instances`, on the database's clock) with the
 * number of jobs it arms. It is also the outage's probe: a failed beat turns the outage on; a
 * beat that goes through accounts for the slots deferred meanwhile (the ledger) and ends it.
 */
export class HeartbeatDuty extends Duty {
  readonly name = 'heartbeat';
  readonly scope = 'instance' as const;
  protected override readonly always = true;
  /** When this instance last recorded its heartbeat. */
  lastBeatAt: Date | null = null;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { pool: Pool; identity: InstanceIdentity; ledger: Ledger; actorCount(): number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<PassResult | void> {
    try {
      await beat(this.o.pool, this.o.identity, this.o.actorCount());
      this.lastBeatAt = new Date();
    } catch (err) {
      // Any failed beat: this instance cannot say it is alive, which is what matters here.
      this.ctx.outage.begin(err);
      return 'unreachable';
    }
    if (this.o.ledger.backlog > 0) await this.o.ledger.flush();
    this.ctx.outage.end();
  }
}
