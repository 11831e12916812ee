import type { Alarm, Clock } from './clock.js';

/** A PAUSED job whose pause ends by itself (pauseJob's `until`). */
export interface EndingPause {
  jobId: string;
  until: Date;
}

export interface PauseEndsOptions {
  clock: Clock;
  /** Alarms at most; past it the pause-ends duty sets the others as their ends come near. */
  max: number;
  /** Resumes the job if it is still paused until `until` (a conditional update: one instance wins). */
  resume(pause: EndingPause): void;
}

/**
 * Alarms that end pauses on time: one per paused job, at its `until`. The instance arming the job
 * sets one when it hears of the pause; the lease holder's pause-ends duty sets them for every
 * pause ending within its next passes (a restart, a rebalance, an instance gone). Several
 * instances may ring for the same pause: the resume is a conditional update on the pause's end,
 * so an alarm is only ever a hint to look.
 */
export class PauseEnds {
  private readonly alarms = new Map<string, { until: number; alarm: Alarm }>();
  private closed = false;

  constructor(private readonly o: PauseEndsOptions) {}

  get size(): number {
    return this.alarms.size;
  }

  /** Sets (or moves) the alarm of each pause. */
  set(pauses: readonly EndingPause[]): void {
    if (this.closed) return;
    const { clock, max, resume } = this.o;
    for (const pause of pauses) {
      const known = this.alarms.get(pause.jobId);
      if (known?.until === pause.until.getTime()) continue;
      known?.alarm.cancel();
      if (!known && this.alarms.size >= max) continue;
      const alarm = clock.setAlarm(pause.until, () => {
        this.alarms.delete(pause.jobId);
        resume(pause);
      });
      this.alarms.set(pause.jobId, { until: pause.until.getTime(), alarm });
    }
  }

  /** The job is no longer paused until some instant (resumed, paused for good, retired, not armed here). */
  clear(jobId: string): void {
    this.alarms.get(jobId)?.alarm.cancel();
    this.alarms.delete(jobId);
  }

  /** Cancels every alarm, for good (the instance stops). Idempotent. */
  close(): void {
    this.closed = true;
    for (const { alarm } of this.alarms.values()) alarm.cancel();
    this.alarms.clear();
  }
}
