import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { TERMINAL_RUN_STATUSES } from '../domain/enums.js';

export interface RetentionOptions {
  pool: Pool;
  log: Logger;
  /** Runs created longer ago than this many days are deleted; 0 keeps everything. @default 180 */
  days: number;
  now(): Date;
  /** Rows per DELETE: small, so no statement holds locks for long. @default 1000 */
  batchSize?: number;
  /** Between two rounds. @default 3600000 (an hour) */
  everyMs?: number;
  /** Told of each round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
}

/** Held for one batch's transaction: instances prune one at a time. */
const LOCK_KEY = 7253190042;

/**
 * Deletes expired run history (PDR §17.1: 180 days), in small batches, by one instance at a time,
 * at startup and then every `everyMs`. Never deleted: PENDING/RUNNING runs, the latest run of each
 * job, and the latest SCHEDULED run of each job (the job's ledger: how far its slots are
 * accounted for — without it, its slots would be counted as missed again). Background: never
 * throws, never delays firing (one short statement at a time, with a pause between).
 */
export class Retention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly o: RetentionOptions) {}

  start(): void {
    if (this.o.days <= 0 || this.stopped) return;
    void this.prune();
    this.timer = setInterval(() => void this.prune(), this.o.everyMs ?? 3_600_000);
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
    const { pool, log, days } = this.o;
    if (days <= 0) return 0;
    const cutoff = new Date(this.o.now().getTime() - days * 86_400_000);
    let total = 0;
    try {
      for (;;) {
        if (this.stopped) break;
        const deleted = await this.batch(cutoff);
        if (deleted === null) break; // another instance is pruning
        total += deleted;
        if (deleted < (this.o.batchSize ?? 1_000)) break;
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
  private async batch(cutoff: Date): Promise<number | null> {
    const client = await this.o.pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query('SELECT pg_try_advisory_xact_lock($1) AS ok', [LOCK_KEY]);
      if (!locked.rows[0].ok) {
        await client.query('ROLLBACK');
        return null;
      }
      const res = await client.query(
        `DELETE FROM cron_job_runs WHERE id IN (
           SELECT r.id FROM cron_job_runs r
           WHERE r.created_at < $1 AND r.status = ANY($2::text[])
             AND r.id <> (SELECT l.id FROM cron_job_runs l WHERE l.job_definition_id = r.job_definition_id
                          ORDER BY l.scheduled_at DESC, l.id DESC LIMIT 1)
             AND NOT (r.trigger_type = 'SCHEDULED' AND r.scheduled_at = (
                 SELECT max(s.scheduled_at) FROM cron_job_runs s
                 WHERE s.job_definition_id = r.job_definition_id AND s.trigger_type = 'SCHEDULED'))
           ORDER BY r.created_at
           LIMIT $3
           FOR UPDATE SKIP LOCKED)`,
        [cutoff, TERMINAL_RUN_STATUSES, this.o.batchSize ?? 1_000],
      );
      await client.query('COMMIT');
      return res.rowCount ?? 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
