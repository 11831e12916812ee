import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { pruneAudit } from '../db/audit.js';
import { MAINTENANCE } from '../config.js';
import { pruneInBatches } from './batched-prune.js';
import { Duty, type DutyContext } from './duty.js';

export interface AuditRetentionOptions {
  pool: Pool;
  log: Logger;
  /** Entries older than this many days are deleted; 0 keeps them. */
  days: number;
  now(): Date;
  /** Entries per DELETE. @default MAINTENANCE.auditRetentionBatch */
  batchSize?: number;
}

/**
 * The audit log's own retention (CRONQL_AUDIT_RETENTION_DAYS, docs/operations.md, "Audit log"):
 * kept longer than runs by default (400 days: a year and its review), since it is small and the
 * question it answers ("who changed this?") comes late. Cluster-wide: one instance prunes, hourly,
 * in bounded batches with a pause between; safe should two prune at once.
 */
export class AuditRetentionDuty extends Duty {
  readonly name = 'audit-retention';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly o: AuditRetentionOptions,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.round();
  }

  /** One round now: entries deleted. Rejects with the first failure (a pass reports it). */
  async round(): Promise<number> {
    const { days, pool, log } = this.o;
    if (days <= 0) return 0;
    const { deleted, cutoff } = await pruneInBatches({
      days,
      now: this.o.now(),
      batchSize: this.o.batchSize ?? MAINTENANCE.auditRetentionBatch,
      prune: (before, limit) => pruneAudit(pool, before, limit),
    });
    if (deleted > 0) log.info({ deleted, olderThan: cutoff }, 'audit retention: deleted expired entries');
    return deleted;
  }
}
