import type { Logger } from '../logger.js';
import type { RunStore } from '../db/run-store.js';
import { MAINTENANCE, NOTIFICATIONS } from '../config.js';
import { Duty, type DutyContext } from './duty.js';

export interface RetentionOptions {
  store: RunStore;
  log: Logger;
  /** Runs scheduled longer ago than this many days (their slot, or a run-now's creation) are deleted; 0 keeps everything. */
  days: number;
  now(): Date;
  /** Rows per DELETE: small, so no statement holds locks for long. @default MAINTENANCE.retentionBatch */
  batchSize?: number;
  /** Told of each round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
  /** Delivered and given-up alert deliveries, pruned once older than NOTIFICATIONS.keepMs (db/notification-outbox.ts). */
  outbox?: { prune(before: Date, limit: number): Promise<number> };
}

/** Held for one batch's transaction: should two instances ever prune at once, they take turns. */
const LOCK_KEY = 7253190042;

/**
 * Deletes expired run history (docs/operations.md, retention), in small batches. Never deleted:
 * PENDING/RUNNING runs, the latest run of each job, the latest SCHEDULED run of each job (the
 * job's ledger: how far its slots are accounted for — without it, its slots would be counted as
 * missed again), and its newest SUCCEEDED run (the job's `lastSuccessAt`). Never delays firing
 * (one short statement at a time, with a pause between).
 */
export class Retention {
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly o: RetentionOptions) {}

  /** Stops between two batches; waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running?.catch(() => 0);
  }

  /** One round now (or the round in progress): rows deleted. Never rejects (a failure is logged). */
  prune(): Promise<number> {
    return this.round().catch((err) => {
      this.o.log.warn({ err }, 'retention: a round failed; the next one retries');
      return 0;
    });
  }

  /** One round now (or the round in progress): rows deleted; rejects with the first failure. */
  round(): Promise<number> {
    this.running ??= this.batches().finally(() => (this.running = undefined));
    return this.running;
  }

  private async batches(): Promise<number> {
    const { log, days } = this.o;
    if (days <= 0) return 0;
    const batchSize = this.o.batchSize ?? MAINTENANCE.retentionBatch;
    const cutoff = new Date(this.o.now().getTime() - days * 86_400_000);
    let total = 0;
    for (;;) {
      if (this.stopped) break;
      const deleted = await this.o.store.pruneBatch(cutoff, batchSize, LOCK_KEY);
      if (deleted === null) break; // another instance is pruning
      total += deleted;
      if (deleted < batchSize) break;
      await new Promise((r) => setTimeout(r, 20)); // let the fire path in between batches
    }
    if (total > 0) log.info({ deleted: total, olderThan: cutoff }, 'retention: deleted expired runs');
    if (this.o.outbox && !this.stopped) {
      const before = new Date(this.o.now().getTime() - NOTIFICATIONS.keepMs);
      let deliveries = 0;
      for (let n = batchSize; n === batchSize && !this.stopped; deliveries += n) n = await this.o.outbox.prune(before, batchSize);
      if (deliveries > 0) log.info({ deleted: deliveries, olderThan: before }, 'retention: deleted delivered alerts');
    }
    this.o.onPruned?.(total, this.o.now());
    return total;
  }
}

/** Retention as a cluster-wide duty: one instance prunes, every `everyMs` and when it takes the lease. */
export class RetentionDuty extends Duty {
  readonly name = 'retention';
  readonly scope = 'cluster' as const;

  constructor(
    ctx: DutyContext,
    everyMs: number,
    private readonly retention: Retention,
  ) {
    super(ctx, everyMs);
  }

  protected async work(): Promise<void> {
    await this.retention.round();
  }

  override async stop(): Promise<void> {
    await Promise.all([super.stop(), this.retention.stop()]);
  }
}
