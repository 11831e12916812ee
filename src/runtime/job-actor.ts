import type { Logger } from '../logger.js';
import { ScheduleType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { parseCronExpression, slotsBetween, nextSlot, type CronExpression } from '../schedule/index.js';
import type { Alarm, Clock } from './clock.js';

/** At most this many slots are fired at once after a late wake-up (event-loop stall, sleep). */
const MAX_CATCH_UP = 10;

/**
 * The in-memory owner of one ACTIVE job: computes its next slot with cronql's schedule math,
 * sets an alarm on the clock, and hands each due slot to `fire`. It holds no run state: which
 * slot runs, and whether it overlaps, is decided by the database when the slot is recorded.
 */
export class JobActor {
  private alarm: Alarm | undefined;
  private readonly expression: CronExpression | undefined;
  /** Slots after this instant are still to fire. */
  private cursor: Date;
  private stopped = false;
  /** The slot the alarm is set for. */
  nextAt: Date | null = null;

  constructor(
    readonly job: JobSnapshot,
    private readonly clock: Clock,
    private readonly fire: (job: JobSnapshot, slot: Date) => void,
    private readonly log: Logger,
  ) {
    this.expression =
      job.scheduleType === ScheduleType.RECURRING ? parseCronExpression(job.cronExpression!) : undefined;
    this.cursor = clock.now();
  }

  start(): void {
    if (this.job.scheduleType === ScheduleType.ONE_TIME) {
      // Fires at runAt, or at once when runAt is now or past (the slot key keeps it to one run).
      this.setAlarm(this.job.runAt!);
    } else {
      this.armNext();
    }
  }

  /** Stops arming and firing; idempotent. */
  stop(): void {
    this.stopped = true;
    this.alarm?.cancel();
    this.alarm = undefined;
    this.nextAt = null;
  }

  private armNext(): void {
    const next = nextSlot(this.expression!, this.job.timezone, this.cursor);
    if (!next) {
      this.log.warn({ jobKey: this.job.jobKey }, 'schedule has no further slot');
      this.nextAt = null;
      return;
    }
    this.setAlarm(next);
  }

  private setAlarm(at: Date): void {
    if (this.stopped) return;
    this.nextAt = at;
    this.alarm = this.clock.setAlarm(at, () => this.onAlarm());
  }

  private onAlarm(): void {
    if (this.stopped) return;
    this.alarm = undefined;
    const now = this.clock.now();
    if (this.job.scheduleType === ScheduleType.ONE_TIME) {
      this.nextAt = null;
      this.fire(this.job, this.job.runAt!);
      return;
    }
    // Normally exactly one slot is due; after a stall, the ones missed meanwhile (bounded).
    const due = slotsBetween(this.expression!, this.job.timezone, this.cursor, now, 10_000);
    for (const slot of due.slice(-MAX_CATCH_UP)) this.fire(this.job, slot);
    if (due.length > 0) this.cursor = due[due.length - 1];
    // An alarm may wake a little early on some clocks: re-arming from the cursor covers it.
    this.armNext();
  }
}
