import { alertLateJobs } from '../db/late-jobs.js';
import type { Pool } from '../db/pool.js';
import { Duty, type DutyContext } from './duty.js';

/**
 * JOB_LATE (cluster-wide): jobs with `expectSuccessWithinSeconds` that saw no success that long
 * after a slot raise one alert per transition (db/late-jobs.ts), however many passes see them late.
 */
export class LateJobsDuty extends Duty {
  readonly name = 'late-jobs';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: { pool: Pool; now(): Date; perPass: number },
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    const late = await alertLateJobs(this.o.pool, this.o.now(), this.o.perPass);
    if (late > 0) this.ctx.log.info({ jobs: late }, 'late-jobs: jobs without a success by their deadline; JOB_LATE alerts written');
  }
}
