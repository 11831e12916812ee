import { performance } from 'node:perf_hooks';
import { progressed, type RunChange, type RunRecord } from '../../domain/run.js';
import { afterFires, type RunContext } from './context.js';
import { S } from './vocabulary.js';

/**
 * The handlers' progress reports and heartbeats (`ctx.progress`, `ctx.heartbeat`), written to
 * their runs: at most one write per run per second (`PROGRESS_WRITE_INTERVAL_MS`), whatever the
 * handler calls — a report made within a second of the run's last write waits, and the reports
 * made meanwhile coalesce into the last one. The runs due are written together, one UPDATE per
 * flush, at most one flush per `PROGRESS_FLUSH_GAP_MS`: 10,000 beating runs are ten statements a
 * second, not ten thousand. Nothing here is awaited by a handler.
 *
 * A write whose progress or message changed is published (a change RUNNING → RUNNING, `progressed`);
 * a bare heartbeat is not (it would be one change per run per second to every subscriber and
 * every instance): its `heartbeatAt` rides with the run's next change. A run's end takes its
 * last report (`take`), which the end's statement writes (finish.ts): the last value a handler
 * reported is the one kept, even within the second before it returned.
 */

/** A run is written at most once in this long. */
export const PROGRESS_WRITE_INTERVAL_MS = 1_000;
/** Between two flushes at least this long: the runs due meanwhile go in one statement. */
export const PROGRESS_FLUSH_GAP_MS = 100;

/** What a handler reported: when it beat, and its progress if it said. */
export interface ProgressReport {
  /** The beat's instant (the runtime's clock). */
  at: Date;
  /** 0–100, valid (runtime/progress-report.ts); undefined: unchanged. */
  progress?: number;
  /** Undefined: unchanged; null: cleared. */
  message?: string | null;
}

/** A run's reports so far: what its row holds or will hold. */
export interface Reported {
  /** The run as its RUNNING change announced it (the published changes are built from it). */
  run: RunRecord;
  progress: number | null;
  message: string | null;
  beatAt: Date;
  /** Not written yet. */
  dirty: boolean;
  /** The progress or the message changed since the last write: that write is published. */
  changed: boolean;
  /** When it was last written (performance.now()); -Infinity: never. */
  writtenAt: number;
}

export class ProgressWrites {
  private readonly runs = new Map<string, Reported>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private lastFlush = -Infinity;
  private flushing: Promise<void> | undefined;
  /** Statements sent so far (tests count writes, not time). */
  writes = 0;

  constructor(
    private readonly ctx: Pick<RunContext, 'pool' | 'instanceId' | 'firing' | 'publish'>,
    /** Called before each write: entry instants not written yet go first (started.ts). */
    private readonly before: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A handler of a run executing here reported (never throws, never waits). */
  report(run: RunRecord, r: ProgressReport): void {
    let s = this.runs.get(run.id);
    if (!s) {
      s = { run, progress: run.progress, message: run.progressMessage, beatAt: r.at, dirty: false, changed: false, writtenAt: -Infinity };
      this.runs.set(run.id, s);
    }
    s.beatAt = r.at;
    if (r.progress !== undefined && r.progress !== s.progress) {
      s.progress = r.progress;
      s.changed = true;
    }
    if (r.message !== undefined && r.message !== s.message) {
      s.message = r.message;
      s.changed = true;
    }
    s.dirty = true;
    this.schedule(s.writtenAt + PROGRESS_WRITE_INTERVAL_MS);
  }

  /**
   * The run ends: its reports, taken off the write queue (the end's statement writes them), or
   * undefined if its handler never reported. A write in flight for it publishes nothing after this.
   */
  take(runId: string): Reported | undefined {
    const s = this.runs.get(runId);
    if (s) this.runs.delete(runId);
    return s;
  }

  /** Forgets every run (the store stops). */
  clear(): void {
    this.runs.clear();
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  /** A flush no earlier than `at` (performance.now()), nor within the gap after the last one. */
  private schedule(at: number): void {
    const when = Math.max(at, this.lastFlush + PROGRESS_FLUSH_GAP_MS, performance.now());
    if (this.flushing) return; // the flush in progress schedules the next one
    if (this.timer && this.timerAt <= when) return;
    clearTimeout(this.timer);
    this.timerAt = when;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        this.reschedule();
      });
    }, Math.max(0, when - performance.now()));
    this.timer.unref();
  }

  /** The next flush, for the earliest run still waiting. */
  private reschedule(): void {
    let next = Infinity;
    for (const s of this.runs.values()) if (s.dirty) next = Math.min(next, s.writtenAt + PROGRESS_WRITE_INTERVAL_MS);
    if (next < Infinity) this.schedule(next);
  }

  /** Writes the runs due now (each last written a second ago or more) in one statement. */
  private async flush(): Promise<void> {
    const now = performance.now();
    this.lastFlush = now;
    const due: [string, Reported, boolean][] = [];
    for (const [id, s] of this.runs) {
      if (!s.dirty || s.writtenAt + PROGRESS_WRITE_INTERVAL_MS > now) continue;
      due.push([id, s, s.changed]);
      s.dirty = false;
      s.changed = false;
      s.writtenAt = now;
    }
    if (due.length === 0) return;
    const values = due.map(([, s]) => ({ progress: s.progress, message: s.message, at: s.beatAt }));
    try {
      await this.before();
      // Fires first: a slot is due now; this write can wait.
      await afterFires(this.ctx);
      this.writes++;
      const res = await this.ctx.pool.query(
        `UPDATE cron_job_runs r SET progress = u.progress, progress_message = u.message, heartbeat_at = u.at
           FROM unnest($1::uuid[], $2::float8[], $3::text[], $4::timestamptz[]) AS u(id, progress, message, at)
           WHERE r.id = u.id AND r.status = ${S.RUNNING} AND r.runner_instance_id = $5
           RETURNING r.id`,
        [due.map(([id]) => id), values.map((v) => v.progress), values.map((v) => v.message), values.map((v) => v.at), this.ctx.instanceId],
      );
      const written = new Set(res.rows.map((row) => row.id as string));
      const changes: RunChange[] = [];
      due.forEach(([id, s, changed], i) => {
        // Ended meanwhile (its end published it), or no longer this instance's: nothing to tell.
        if (!changed || !written.has(id) || this.runs.get(id) !== s) return;
        const v = values[i];
        changes.push(progressed({ ...s.run, progress: v.progress, progressMessage: v.message, heartbeatAt: v.at }));
      });
      if (changes.length > 0) this.ctx.publish(changes);
    } catch (err) {
      // Written with the run's next write (a later report, or its end).
      for (const [id, s, changed] of due) {
        if (this.runs.get(id) !== s) continue;
        s.dirty = true;
        s.changed ||= changed;
      }
      this.onError(err);
    }
  }
}
