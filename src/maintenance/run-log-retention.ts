import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { pruneLines } from '../db/run-logs.js';
import { MAINTENANCE } from '../config.js';
import { pruneInBatches } from './batched-prune.js';
import { Duty, type DutyContext } from './duty.js';

export interface RunLogRetentionOptions {
  pool: Pool;
  log: Logger;
  /** Lines written longer ago than this many days are deleted; 0 keeps them (as long as their run). */
  days: number;
  now(): Date;
  /** Lines per DELETE. @default MAINTENANCE.runLogRetentionBatch */
  batchSize?: number;
  /** Told of each round's outcome (metrics). */
  onPruned?: (deleted: number) => void;
}

/**
 * Run logs' own retention (CRONQL_RUN_LOG_RETENTION_DAYS, docs/run-logs.md): lines are usually
 * worth less, for less long, than the run they belong to. A run's lines also go with the run
 * (the foreign key cascades when run retention deletes it). Cluster-wide: one instance prunes,
 * hourly, in short batches with a pause between; safe should two prune at once.
 */
export class RunLogRetentionDuty extends Duty {
  readonly name = 'run-log-retention';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: RunLogRetentionOptions,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.round();
  }

  /** One round now: lines deleted. Rejects with the first failure (a pass reports it). */
  async round(): Promise<number> {
    const { days, pool, log } = this.o;
    if (days <= 0) return 0;
    const { deleted, cutoff } = await pruneInBatches({
      days,
      now: this.o.now(),
      batchSize: this.o.batchSize ?? MAINTENANCE.runLogRetentionBatch,
      prune: (before, limit) => pruneLines(pool, before, limit),
    });
    if (deleted > 0) log.info({ deleted, olderThan: cutoff }, 'run log retention: deleted expired lines');
    this.o.onPruned?.(deleted);
    return deleted;
  }
}
