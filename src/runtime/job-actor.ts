import type { Logger } from '../logger.js';
import { ScheduleType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { latestSlotBetween, nextSlot, parseCronExpression, slotsBetween, type CronExpression } from '../schedule/index.js';
import type { Alarm, Clock } from './clock.js';

/** An alarm this late (event-loop stall, suspended machine) may have missed slots: count them. */
const LATE_MS = 1_000;

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
    // Normally the slot the alarm was set for. After a stall only the latest due slot fires: the
    // ones before it are missed, like the windows of a stopped process (PRODUCT.md rule 4).
    const latest = latestSlotBetween(this.expression!, this.job.timezone, this.cursor, now);
    if (latest) {
      if (this.nextAt && now.getTime() - this.nextAt.getTime() > LATE_MS) {
        const missed = slotsBetween(this.expression!, this.job.timezone, this.cursor, latest, 1_000).length - 1;
        if (missed > 0) this.log.warn({ jobKey: this.job.jobKey, missed, firing: latest }, 'woke up late: missed slots are not replayed');
      }
      this.fire(this.job, latest);
      this.cursor = latest;
    }
    // An alarm may wake a little early on some clocks: re-arming from the cursor covers it.
    this.armNext();
  }
}
