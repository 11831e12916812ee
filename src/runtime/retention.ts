import type { Logger } from '../logger.js';
import type { RunStore } from '../db/run-store.js';
import { RUNTIME_BOUNDS } from '../config.js';

export interface RetentionOptions {
  store: RunStore;
  log: Logger;
  /** Runs scheduled longer ago than this many days (their slot, or a run-now's creation) are deleted; 0 keeps everything. @default 180 */
  days: number;
  now(): Date;
  /** Rows per DELETE: small, so no statement holds locks for long. @default RUNTIME_BOUNDS.retentionBatch */
  batchSize?: number;
  /** Between two rounds. @default RUNTIME_BOUNDS.retentionEveryMs (an hour) */
  everyMs?: number;
  /** Told of each round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
}

/** Held for one batch's transaction: instances prune one at a time. */
const LOCK_KEY = 7253190042;

/**
 * Deletes expired run history (docs/operations.md, retention), in small batches, by one instance at a time,
 * at startup and then every `everyMs`. Never deleted: PENDING/RUNNING runs, the latest run of each
 * job, the latest SCHEDULED run of each job (the job's ledger: how far its slots are
 * accounted for — without it, its slots would be counted as missed again), and its newest
 * SUCCEEDED run (the job's `lastSuccessAt`). Background: never
 * throws, never delays firing (one short statement at a time, with a pause between).
 */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  private readonly batchSize: number;
  private readonly everyMs: number;

  constructor(private readonly o: RetentionOptions) {
    this.batchSize = o.batchSize ?? RUNTIME_BOUNDS.retentionBatch;
    this.everyMs = o.everyMs ?? RUNTIME_BOUNDS.retentionEveryMs;
  }

  start(): void {
    if (this.o.days <= 0 || this.stopped) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), this.everyMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running?.catch(() => 0);
  }

  /** One round now (or the round in progress): rows deleted. Never rejects. */
  prune(): Promise<number> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<number> {
    const { log, days } = this.o;
    if (days <= 0) return 0;
    const cutoff = new Date(this.o.now().getTime() - days * 86_400_000);
    let total = 0;
    try {
      for (;;) {
        if (this.stopped) break;
        const deleted = await this.batch(cutoff);
        if (deleted === null) break; // another instance is pruning
        total += deleted;
        if (deleted < this.batchSize) break;
        await new Promise((r) => setTimeout(r, 20)); // let the fire path in between batches
      }
      if (total > 0) log.info({ deleted: total, olderThan: cutoff }, 'retention: deleted expired runs');
      this.o.onPruned?.(total, this.o.now());
    } catch (err) {
      log.warn({ err }, 'retention: a round failed; the next one retries');
    }
    return total;
  }

  /** One batch in its own short transaction; null when another instance holds the lock. */
  private batch(cutoff: Date): Promise<number | null> {
    return this.o.store.pruneBatch(cutoff, this.batchSize, LOCK_KEY);
  }
}
