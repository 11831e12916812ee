import type { WaitingRun } from '../db/run-store.js';
import type { Alarm, Clock } from './clock.js';

export interface RetryWakersOptions {
  clock: Clock;
  /** Alarms at most; past it the sweep claims the others when due, a heartbeat late at most. */
  max: number;
  /** Claims the run (and executes it if this instance wins it). */
  claim(runId: string): void;
}

/**
 * Alarms that claim each waiting run (a retry at the end of its backoff) when it is due. Every
 * instance that knows of a waiting run may set one; the claim in the database picks one runner,
 * so an alarm here is only ever a hint to look.
 */
export class RetryWakers {
  private readonly alarms = new Map<string, Alarm>();
  private closed = false;

  constructor(private readonly o: RetryWakersOptions) {}

  get size(): number {
    return this.alarms.size;
  }

  /** Sets an alarm for each run that has none yet (within the bound). */
  wake(runs: readonly WaitingRun[]): void {
    if (this.closed) return;
    const { clock, max, claim } = this.o;
    for (const { id, dueAt } of runs) {
      if (this.alarms.has(id) || this.alarms.size >= max) continue;
      const alarm = clock.setAlarm(dueAt ?? clock.now(), () => {
        this.alarms.delete(id);
        claim(id);
      });
      this.alarms.set(id, alarm);
    }
  }

  /** Cancels every alarm, for good (the instance stops claiming). Idempotent. */
  close(): void {
    this.closed = true;
    for (const alarm of this.alarms.values()) alarm.cancel();
    this.alarms.clear();
  }
}
