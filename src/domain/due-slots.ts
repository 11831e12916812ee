import { JobStatus } from './enums.js';
import type { JobSnapshot } from './job.js';
import { jobScheduleOf, type ScheduledJob } from './job-schedule.js';
import { nextSlot } from '../schedule/job-schedule.js';
import { exclusionAmong, type CalendarRules } from '../schedule/calendar.js';

/**
 * A job as far as the slots that will run are concerned: its schedule and bounds, its status and
 * the end of its pause, the slots an admin asked to skip, the runs its `maxRuns` leaves, and the
 * calendars it names. Two jobs with the same `dueKey` have the same due slots.
 */
export interface DueJob extends ScheduledJob {
  status: JobSnapshot['status'];
  pausedUntil: Date | null;
  /** Its next slots recorded SKIPPED instead of run (skipNextRuns). */
  skipRemaining: number;
  /** Runs its `maxRuns` still allows (null: no bound). */
  runsLeft: number | null;
  /** The rules of the calendars it names (a slot one excludes does not run). */
  calendars: readonly CalendarRules[];
}

/**
 * The slots of `job` in [from, to] that will run, in time order — the one rule behind
 * `Job.nextRuns`, `Job.nextRunAt` and `upcoming`: the schedule within its bounds (start, end),
 * from the end of a pause that ends by itself (the slot at `until` runs; a job paused for good,
 * or retired, has none), less the slots a calendar excludes, less the next `skipRemaining` slots
 * from `now` (recorded SKIPPED), and no more than the runs `maxRuns` leaves. Lazy: the consumer
 * reads what it needs. `previewSchedule` is the pure preview of an expression: it applies none of
 * this.
 */
export function* dueSlots(job: DueJob, from: Date, to: Date, now: Date): Generator<Date> {
  let start = from.getTime();
  if (job.status === JobStatus.PAUSED) {
    if (!job.pausedUntil) return;
    start = Math.max(start, job.pausedUntil.getTime());
  } else if (job.status !== JobStatus.ACTIVE) {
    return;
  }
  // Skips and the runs left count from the first slot after now (or the pause's end: its slot
  // counts), a slot at now being already handled: the slots before `from` that consume them are
  // read, not shown.
  const counted = job.skipRemaining > 0 || job.runsLeft !== null;
  const countFrom = job.status === JobStatus.PAUSED ? Math.max(now.getTime() + 1, job.pausedUntil!.getTime()) : now.getTime() + 1;
  const readFrom = counted ? Math.min(start, countFrom) : start;
  if (readFrom > to.getTime()) return;
  let skips = job.skipRemaining;
  let left = job.runsLeft ?? Infinity;
  if (left <= 0) return;
  const { schedule, bounds } = jobScheduleOf(job);
  // One slot computed at a time: a page of the timeline reads a few slots of each schedule.
  const end = to.getTime();
  for (let slot = nextSlot(schedule, bounds, new Date(readFrom - 1)); slot && slot.getTime() <= end; slot = nextSlot(schedule, bounds, slot)) {
    if (job.calendars.length && exclusionAmong(job.calendars, slot)) continue;
    const t = slot.getTime();
    if (t >= countFrom) {
      if (skips > 0) {
        skips--;
        continue;
      }
      left--;
    }
    if (t >= start) yield slot;
    if (left <= 0) return;
  }
}

/**
 * The rules of the calendars a job names, from wherever the process keeps them (read whole and
 * kept current by the calendar-change notification). Until calendars are wired in, none.
 */
export type CalendarsOf = (job: JobSnapshot) => readonly CalendarRules[];
export const NO_CALENDARS: CalendarsOf = () => [];

/** The first `count` slots of `job` that will run after `now` (see `dueSlots`). */
export function nextDueSlots(job: DueJob, now: Date, count: number): Date[] {
  const out: Date[] = [];
  if (count <= 0) return out;
  for (const slot of dueSlots(job, new Date(now.getTime() + 1), FAR_FUTURE, now)) {
    out.push(slot);
    if (out.length >= count) break;
  }
  return out;
}

/** The end of time for the slot math (the largest Date). */
export const FAR_FUTURE = new Date(8.64e15);
