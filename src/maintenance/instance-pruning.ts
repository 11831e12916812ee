import { pruneInstances } from '../db/instances.js';
import type { Pool } from '../db/pool.js';
import { Duty, type DutyContext } from './duty.js';

/** Deletes the rows of instances silent for long and running nothing (cluster-wide). */
export class InstancePruningDuty extends Duty {
  readonly name = 'instance-pruning';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { pool: Pool; afterMs: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await pruneInstances(this.o.pool, this.o.afterMs);
  }
}
