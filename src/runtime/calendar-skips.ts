import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';
import type { MissedSlot, RunStore } from '../db/run-store.js';
import { FailureCode, MissedReason } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { excludedSpan, exclusionAmong, type CalendarRules, type Exclusion } from '../schedule/calendar.js';
import { parseCronExpression, slotsBetween } from '../schedule/index.js';
import type { CalendarBook } from './calendar-book.js';
import type { RuntimeEvents } from './events.js';
import { MAX_COUNTED, MAX_MISSED_ROWS } from './missed-slots.js';

/** At most this many CALENDAR rows per job and excluded span; the rest of the span is one summary row (as missed gaps are). */
export const MAX_CALENDAR_ROWS = MAX_MISSED_ROWS;

/** What becomes of one excluded slot. */
export interface ExcludedSlotPlan {
  exclusion: Exclusion;
  /** `row`: a row of its own; `summary`: the row standing for it and the rest of the span; `summarised`: none (a summary stands for it). */
  recorded: 'row' | 'summary' | 'summarised';
  row: MissedSlot | null;
}

/** The job's slots in (after, until], at most `limit` (the schedule math the actor uses). */
function jobSlotsBetween(job: JobSnapshot, afterExclusive: number, untilInclusive: number, limit: number): Date[] {
  if (!job.cronExpression || untilInclusive <= afterExclusive) return [];
  return slotsBetween(parseCronExpression(job.cronExpression), job.timezone, new Date(afterExclusive), new Date(untilInclusive), limit);
}

const rowMessage = (e: Exclusion) => `skipped: calendar "${e.calendar}" excludes this slot (${e.rule})`;

/**
 * What to record for `slot`, which `calendars` exclude (pure: schedule math and the rules). A span
 * is a stretch of time the job's calendars exclude without a break; the job's first
 * MAX_CALENDAR_ROWS slots in it (counted from the span's start, or from when the job version last
 * changed if later: slots before were never its to record) get a row each, the next one the
 * summary row for itself and every later slot of the span (count and range, counted when it comes,
 * up to MAX_COUNTED), and the rest none. Whichever instance records a slot, the plan is the same,
 * and the slot key keeps each row to one.
 */
export function planExcludedSlot(job: JobSnapshot, slot: Date, calendars: readonly CalendarRules[]): ExcludedSlotPlan | null {
  const exclusion = exclusionAmong(calendars, slot);
  if (!exclusion) return null;
  const t = slot.getTime();
  const span = excludedSpan(calendars, t)!;
  const from = Math.max(span.start ?? -Infinity, job.updatedAt.getTime());
  const before = jobSlotsBetween(job, Math.min(from - 1, t - 1), t - 1, MAX_CALENDAR_ROWS + 1).length;
  const base = { jobId: job.id, slot, code: FailureCode.CALENDAR };
  if (before < MAX_CALENDAR_ROWS) {
    return { exclusion, recorded: 'row', row: { ...base, message: rowMessage(exclusion), details: { calendar: exclusion.calendar, rule: exclusion.rule } } };
  }
  if (before > MAX_CALENDAR_ROWS) return { exclusion, recorded: 'summarised', row: null };
  // The summary: this slot and the rest of the span.
  const end = span.end ?? Infinity;
  const rest = jobSlotsBetween(job, t - 1, Math.min(end - 1, Number.MAX_SAFE_INTEGER), MAX_COUNTED + 1);
  const bounded = rest.length > MAX_COUNTED;
  const counted = rest.slice(0, MAX_COUNTED);
  const summary = {
    count: counted.length,
    countIsLowerBound: bounded,
    from: slot.toISOString(),
    to: counted[counted.length - 1].toISOString(),
  };
  return {
    exclusion,
    recorded: 'summary',
    row: {
      ...base,
      message: `${rowMessage(exclusion)} — this row stands for ${bounded ? 'at least ' : ''}${summary.count} slots from ${summary.from} to ${summary.to}`,
      details: { calendar: exclusion.calendar, rule: exclusion.rule, summary },
    },
  };
}

export interface CalendarSkipsOptions {
  book: CalendarBook;
  store: RunStore;
  log: Logger;
  events: RuntimeEvents;
  /** Whether the runtime fires now (armed, not stopping). */
  firing(): boolean;
  /** A slot no calendar excludes: the fire path's. */
  fire(job: JobSnapshot, slot: Date, dueAt?: Date): void;
  /** The slot could not be recorded (the database did not answer): the ledger accounts for it later. */
  defer(job: JobSnapshot, afterExclusive: Date, untilInclusive: Date, reason: MissedReason): void;
  /** Tracks a write (stop and the tests wait for it). */
  track<T>(work: Promise<T>): Promise<T>;
}

/**
 * Between a job's actor and the fire path: a due slot of a job with calendars is checked against
 * them (the book's, as they are now) when it comes due; an excluded one becomes a SKIPPED run
 * with code CALENDAR instead of a run (planExcludedSlot), anything else fires. A job without
 * calendars goes straight on. The slot's own instant decides, not its jittered start.
 */
export class CalendarSkips {
  constructor(private readonly o: CalendarSkipsOptions) {}

  fire(job: JobSnapshot, slot: Date, dueAt?: Date): void {
    if (job.calendars.length === 0) return this.o.fire(job, slot, dueAt);
    const { unknown } = this.o.book.rulesOf(job.calendars);
    // A calendar created an instant ago, whose notification is on its way: read it first.
    if (unknown.length > 0) void this.o.track(this.o.book.fetch(unknown).then(() => this.decide(job, slot, dueAt)));
    else this.decide(job, slot, dueAt);
  }

  /** The plan of an excluded slot, with the book's calendars of the job (the ledger's check); null when none excludes it. */
  plan(job: JobSnapshot, slot: Date): ExcludedSlotPlan | null {
    if (job.calendars.length === 0) return null;
    return planExcludedSlot(job, slot, this.o.book.rulesOf(job.calendars).rules);
  }

  private decide(job: JobSnapshot, slot: Date, dueAt?: Date): void {
    if (!this.o.firing()) return;
    let plan: ExcludedSlotPlan | null;
    try {
      const { rules, unknown } = this.o.book.rulesOf(job.calendars);
      if (unknown.length > 0) this.o.log.warn({ jobKey: job.jobKey, calendars: unknown }, 'a calendar of this job does not exist; it excludes nothing');
      plan = planExcludedSlot(job, slot, rules);
    } catch (err) {
      // A calendar that cannot be applied never stops the job: the slot fires.
      this.o.log.error({ err, jobKey: job.jobKey }, 'could not apply the calendars of a job; the slot fires');
      plan = null;
    }
    if (!plan) return this.o.fire(job, slot, dueAt);
    void this.o.track(this.record(job, slot, plan));
  }

  private async record(job: JobSnapshot, slot: Date, plan: ExcludedSlotPlan): Promise<void> {
    const { store, log, events } = this.o;
    let written = false;
    if (plan.row) {
      try {
        written = (await store.recordMissed([plan.row])).length > 0;
      } catch (err) {
        if (isDatabaseUnavailable(err)) this.o.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
        else log.error({ err, jobKey: job.jobKey }, 'could not record a slot a calendar excludes');
        return;
      }
    }
    events.emit('slotExcluded', { jobId: job.id, jobKey: job.jobKey, slot, calendar: plan.exclusion.calendar, rule: plan.exclusion.rule, recorded: plan.recorded, written });
  }
}
