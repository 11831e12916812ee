import type { Logger } from '../logger.js';
import type { ProgressReport, RunStore } from '../db/run-store.js';
import type { RunRecord } from '../domain/run.js';
import { redactSecrets } from '../secrets/references.js';

/**
 * One run's `ctx.progress(percent, message?)` and `ctx.heartbeat()` (docs/behaviour.md, "Progress
 * and heartbeats"), and its heartbeat timer: with a `heartbeatTimeoutSeconds`, a handler silent
 * that long (counted from its entry until it first beats) has its run aborted, HEARTBEAT_TIMEOUT,
 * right here. The writes are the store's (`db/runs/progress.ts`: at most one per run per second).
 *
 * Neither call throws into the handler nor writes garbage. A percent that is a finite number is
 * clamped to 0–100 (a rounding overshoot such as 100.4 is common and harmless); anything else
 * (NaN, Infinity, a string) is ignored with one warning per run — the call still counts as a beat,
 * as the handler is alive. A message is a string (cut to `MAX_PROGRESS_MESSAGE` characters, NUL
 * removed, the run's secrets redacted), null clears it, undefined leaves the last one; any other
 * value is ignored like a bad percent. After the run has ended, both do nothing.
 */

/** The longest progress message kept. */
export const MAX_PROGRESS_MESSAGE = 500;

/** A percent a handler gave, as stored: clamped to 0–100; undefined if it is not a finite number. */
export function percentOf(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  return Math.min(100, Math.max(0, value));
}

const BAD = Symbol('bad message');

/** A message a handler gave, as stored: a string cut and cleaned, null (clear), undefined (keep), or BAD. */
function messageOf(value: unknown, secrets: ReadonlyMap<string, string>): string | null | undefined | typeof BAD {
  if (value === undefined || value === null) return value;
  if (typeof value !== 'string') return BAD;
  const text = value.replaceAll('\u0000', '').slice(0, MAX_PROGRESS_MESSAGE);
  return secrets.size > 0 ? redactSecrets(text, secrets) : text;
}

export interface RunBeatsOptions {
  store: Pick<RunStore, 'progress' | 'takeProgress'>;
  /** The runtime's clock: a beat's instant. */
  now: () => Date;
  /** Null: no heartbeat is required (beats are still recorded). */
  heartbeatTimeoutSeconds: number | null;
  /** The secrets the run's payload resolved (redacted from messages). */
  secrets: ReadonlyMap<string, string>;
  /** The run's logger (bad values are warned about once). */
  log: () => Logger;
  /** The handler has been silent for its heartbeat timeout: abort the run. */
  silent: (lastBeatAt: Date) => void;
}

export class RunBeats {
  /** The run as its RUNNING change announced it (RUNNING since the handler's entry), once made. */
  private run: RunRecord | undefined;
  /** The run as given at the handler's entry, and that instant; set when the handler is entered. */
  private claimed: RunRecord | undefined;
  private enteredAt: Date | undefined;
  private timer: NodeJS.Timeout | undefined;
  private lastBeatAt: Date | undefined;
  private warned = false;
  private ended = false;

  /** `ctx.progress`, bound. */
  readonly progress = (percent: number, message?: string | null): void => this.report(percent, message, true);
  /** `ctx.heartbeat`, bound. */
  readonly heartbeat = (): void => this.report(undefined, undefined, false);

  constructor(private readonly o: RunBeatsOptions) {}

  /**
   * The handler is entered at `at` (its startedAt): the silence is counted from here. `run` may be
   * the run as entered already; if not, that record is made when first needed (a report), or
   * handed over by `adopt`.
   */
  entered(run: RunRecord, at: Date): void {
    this.claimed = run;
    this.enteredAt = at;
    this.run = run.startedAt === at && run.updatedAt === at ? run : undefined;
    this.lastBeatAt = at;
    const limit = this.o.heartbeatTimeoutSeconds;
    if (limit) {
      this.timer = setTimeout(() => {
        // Fired once: a later beat must not re-arm it (refresh() would).
        this.timer = undefined;
        if (!this.ended) this.o.silent(this.lastBeatAt!);
      }, limit * 1000);
    }
  }

  /** The run as entered, made by the caller (the record its RUNNING change announces): used unless a report made one already. */
  adopt(run: RunRecord): void {
    this.run ??= run;
  }

  /**
   * The run ended: no beat counts any more, and the handler's last report is returned on the run
   * (the end writes it; `db/runs/finish.ts`), or the run as given if it never reported.
   */
  end<R extends RunRecord>(run: R): R {
    this.ended = true;
    clearTimeout(this.timer);
    const reported = this.o.store.takeProgress(run.id);
    return reported ? { ...run, progress: reported.progress, progressMessage: reported.message, heartbeatAt: reported.beatAt } : run;
  }

  private report(percent: unknown, message: unknown, isProgress: boolean): void {
    try {
      if (this.ended || !this.claimed) return;
      const entered = this.enteredAt!;
      // Reported before the caller made the run as entered (a handler that reports at once).
      this.run ??= { ...this.claimed, startedAt: entered, updatedAt: entered };
      const at = this.o.now();
      this.lastBeatAt = at;
      // Reset, not re-armed: one timer per run however often it beats.
      this.timer?.refresh();
      const report: ProgressReport = { at };
      if (isProgress) {
        const p = percentOf(percent);
        const m = messageOf(message, this.o.secrets);
        if (p === undefined || m === BAD) this.warnOnce(percent, message);
        if (p !== undefined) report.progress = p;
        if (m !== BAD && m !== undefined) report.message = m;
      }
      this.o.store.progress(this.run, report);
    } catch (err) {
      // Never into the handler's business: a beat is worth less than the work.
      this.warnOnce(percent, message, err);
    }
  }

  private warnOnce(percent: unknown, message: unknown, err?: unknown): void {
    if (this.warned) return;
    this.warned = true;
    try {
      this.o.log().warn({ err, percent: String(percent), messageType: typeof message },
        'ctx.progress: ignored a percent that is not a finite number, or a message that is not a string (said once per run)');
    } catch {
      // a logger that throws: nothing more to do
    }
  }
}
