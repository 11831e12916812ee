import type { Logger } from '../logger.js';
import { MissedReason, ScheduleType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { jobScheduleOf } from '../domain/job-schedule.js';
import { latestSlotBetween, nextSlot, type JobSchedule, type ScheduleBounds } from '../schedule/job-schedule.js';
import { SlotMemo } from '../schedule/slot-memo.js';
import { jitterOffsetMs } from '../schedule/jitter.js';
import type { Alarm, Clock } from './clock.js';
import type { MisfireGrace } from './misfire-grace.js';

/** What an actor hands its due slots to. */
export interface ActorSink {
  /**
   * The slot the alarm was set for, on time: record it and run it. `dueAt`: when it starts, if
   * not at the slot (its jitter offset).
   */
  fire(job: JobSnapshot, slot: Date, dueAt?: Date): void;
  /**
   * The slots in (afterExclusive, untilInclusive] were not fired on time — the process was down,
   * stalled, or the clock jumped: the ledger decides what runs and records the rest MISSED.
   */
  late(job: JobSnapshot, afterExclusive: Date, untilInclusive: Date, reason: MissedReason): void;
  /**
   * The job was armed with no slot left to fire and none missed (resumed after its `endAt`, its
   * years past while it was paused): it retires once no run of it is in progress.
   */
  exhausted?(job: JobSnapshot): void;
}

export interface ActorOptions {
  /**
   * The job's ledger: every slot up to here is accounted for in the database (a run row, or the
   * instant the job became ACTIVE). Slots between it and now were missed while no process fired
   * them. Null for a job that changed just now (nothing can have been missed).
   */
  ledger: Date | null;
  /** A slot fired later than its grace behind its instant goes through the ledger instead. */
  grace: MisfireGrace;
  /** The schedule math, shared with the other actors of the scheduler (one computation per schedule); default: the actor's own. */
  slots?: SlotMemo;
  /**
   * The instant the actor is armed at; default: the clock's now. The actors armed together (a
   * start, a rebalance) share one: a slot that comes due while a slowed process arms them is then
   * the same for all — fired on time by each, never missed by the ones armed after it came due
   * (PROCESS_DOWN, while the process was up) and fired by the others.
   */
  armedAt?: Date;
}

/**
 * The in-memory owner of one ACTIVE job: computes its next slot with cronql's schedule math,
 * sets an alarm on the clock, and hands each due slot on. It holds no run state: which slot
 * runs, and whether it overlaps, is decided by the database when the slot is recorded. What it
 * does decide is whether a slot is on time: the slot its alarm was set for, within the grace
 * period, fires; anything else (skipped slots, a late wake-up) is handed to the ledger. A job
 * with jitter has its alarm set at the slot plus the slot's offset (never past the next slot:
 * the jitter is at most the schedule's shortest interval), and is on time measured from there.
 */
export class JobActor {
  private alarm: Alarm | undefined;
  private readonly schedule: JobSchedule;
  private readonly bounds: ScheduleBounds;
  private readonly graceMs: number;
  /** Every slot up to this instant has been handed on. */
  private cursor: Date;
  private stopped = false;
  /** The slot the alarm is set for. */
  nextAt: Date | null = null;
  private readonly slots: SlotMemo;
  /** The alarm's callback and the re-arm, made once (not a closure per slot). */
  private readonly wake = (): void => this.onAlarm();
  private readonly rearm = (): void => this.armNext();

  constructor(
    readonly job: JobSnapshot,
    private readonly clock: Clock,
    private readonly sink: ActorSink,
    private readonly log: Logger,
    private readonly options: ActorOptions,
  ) {
    ({ schedule: this.schedule, bounds: this.bounds } = jobScheduleOf(job));
    this.graceMs = options.grace.of(job);
    this.cursor = options.armedAt ?? clock.now();
    this.slots = options.slots ?? new SlotMemo();
  }

  start(): void {
    if (this.job.scheduleType === ScheduleType.ONE_TIME) {
      // Fires at runAt, or at once when runAt is now or past (the slot key keeps it to one run).
      this.setAlarm(this.job.runAt!);
      return;
    }
    const { ledger } = this.options;
    let gap = false;
    if (ledger) {
      const now = this.options.armedAt ?? this.clock.now();
      // A ledger ahead of this clock (another instance's clock is ahead, or ours went back):
      // the slots up to it are recorded already, so arm after it.
      this.cursor = ledger;
      const latest = latestSlotBetween(this.schedule, this.bounds, ledger, now, this.slots);
      if (latest) {
        this.sink.late(this.job, ledger, latest, MissedReason.PROCESS_DOWN);
        this.cursor = latest;
        gap = true;
      } else if (ledger.getTime() < now.getTime()) {
        this.cursor = now;
      }
    }
    const next = nextSlot(this.schedule, this.bounds, this.cursor, this.slots);
    if (next) return this.setAlarm(next);
    this.noFurtherSlot();
    // Armed with nothing left to fire and nothing handed to the ledger (resumed after its endAt,
    // its years past): nothing will end a run that retires it, so it retires now. A slot handed
    // on — fired, or to the ledger — retires the job through its run's end (`final_slot_at`).
    if (!gap) this.sink.exhausted?.(this.job);
  }

  /** Stops arming and firing; idempotent. */
  stop(): void {
    this.stopped = true;
    this.alarm?.cancel();
    this.alarm = undefined;
    this.nextAt = null;
  }

  private armNext(): void {
    const next = nextSlot(this.schedule, this.bounds, this.cursor, this.slots);
    if (!next) return this.noFurtherSlot();
    this.setAlarm(next);
  }

  private noFurtherSlot(): void {
    this.log.info({ jobKey: this.job.jobKey }, 'schedule has no further slot');
    this.nextAt = null;
  }

  /** When `slot` starts: the slot, plus its offset for a job with jitter. */
  private dueAt(slot: Date): Date {
    const offset = jitterOffsetMs(this.job.id, slot, this.job.jitterSeconds);
    return offset === 0 ? slot : new Date(slot.getTime() + offset);
  }

  private setAlarm(slot: Date): void {
    if (this.stopped) return;
    this.nextAt = slot;
    this.alarm = this.clock.setAlarm(this.dueAt(slot), this.wake);
  }

  private handTo(slot: Date): void {
    const due = this.dueAt(slot);
    this.sink.fire(this.job, slot, due === slot ? undefined : due);
  }

  /**
   * An alarm never takes its job down with it: whatever throws in handing a slot on is logged,
   * and the actor re-arms for the next slot (clocks swallow what their callbacks throw).
   */
  private onAlarm(): void {
    if (this.stopped) return;
    this.alarm = undefined;
    try {
      this.handOn();
    } catch (err) {
      this.log.error({ err, jobKey: this.job.jobKey }, 'an alarm of this job failed; re-arming for the next slot');
      if (this.job.scheduleType !== ScheduleType.ONE_TIME && !this.alarm) {
        try {
          this.cursor = this.clock.now();
          this.armNext();
        } catch (again) {
          this.log.error({ err: again, jobKey: this.job.jobKey }, 'cannot re-arm this job');
        }
      }
    }
  }

  /**
   * The slot the alarm was set for, woken within that slot's own second and the grace: no later
   * slot can have come due yet (slots are whole seconds), so it is on time without computing the
   * next one first. A jittered slot woken past its second takes the general path.
   */
  private onTimeInItsSecond(at: Date, now: Date): boolean {
    const t = at.getTime();
    const n = now.getTime();
    return t > this.cursor.getTime() && t <= n && n < t + 1000 && n - this.dueAt(at).getTime() <= this.graceMs;
  }

  private handOn(): void {
    const now = this.clock.now();
    if (this.job.scheduleType === ScheduleType.ONE_TIME) {
      this.nextAt = null;
      this.handTo(this.job.runAt!);
      return;
    }
    // The common case: the alarm's slot is due and the next one is not yet — one computation
    // finds both (`following`: the slot after the latest, known already).
    const at = this.nextAt;
    if (at && this.onTimeInItsSecond(at, now)) {
      // The common case, kept short: the slot goes first, the next alarm is computed after the
      // turn's slots are on their way to the database.
      this.handTo(at);
      this.cursor = at;
      // nextAt keeps the slot just handed on until the re-arm (a turn of the event loop).
      this.clock.later(this.rearm);
      return;
    }
    let latest: Date | null = null;
    let following: Date | null | undefined;
    if (at && at.getTime() <= now.getTime() && at.getTime() > this.cursor.getTime()) {
      const next = nextSlot(this.schedule, this.bounds, at, this.slots);
      if (!next || next.getTime() > now.getTime()) [latest, following] = [at, next];
    }
    latest ??= latestSlotBetween(this.schedule, this.bounds, this.cursor, now, this.slots);
    if (latest) {
      const onTime = this.nextAt?.getTime() === latest.getTime() && now.getTime() - this.dueAt(latest).getTime() <= this.graceMs;
      if (onTime) this.handTo(latest);
      else this.sink.late(this.job, this.cursor, latest, this.clock.lateReason());
      this.cursor = latest;
    }
    if (following !== undefined) return following ? this.setAlarm(following) : this.noFurtherSlot();
    // An alarm may wake a little early on some clocks (or the clock went back): re-arming from
    // the cursor covers both, and no slot at or before the cursor fires again.
    this.armNext();
  }
}
