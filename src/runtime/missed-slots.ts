import { CatchUpPolicy } from '../domain/enums.js';
import { MAX_CATCH_UP_LIMIT } from '../domain/job-fields.js';
import { latestSlotsBetween, slotsBetween, type JobSchedule, type ScheduleBounds } from '../schedule/job-schedule.js';

/** At most this many MISSED rows per job and gap; older missed slots share one summary row. */
export const MAX_MISSED_ROWS = 100;
/** Slots counted one by one for a summary row; past this the count is a lower bound. */
export const MAX_COUNTED = 10_000;
/** The default and the ceiling of `catchUpLimit` for the ALL policy. */
export const DEFAULT_CATCH_UP_LIMIT = 10;
export { MAX_CATCH_UP_LIMIT };

export interface GapInput {
  schedule: JobSchedule;
  bounds: ScheduleBounds;
  /** The ledger: every slot up to here is accounted for. */
  afterExclusive: Date;
  /** The end of the gap (usually now). */
  untilInclusive: Date;
  now: Date;
  /** A due slot no later than this behind `now` is still run, late, whatever the policy. */
  graceMs: number;
  policy: CatchUpPolicy;
  limit: number | null;
}

/** The older part of a long gap, told in one row. */
export interface GapSummary {
  /** The first and last slot summarised. */
  from: Date;
  to: Date;
  count: number;
  /** True when there were more than MAX_COUNTED slots: `count` is then MAX_COUNTED. */
  countIsLowerBound: boolean;
}

export interface GapPlan {
  /** Slots to run as SCHEDULED runs of their own slot, oldest first, one at a time. */
  run: Date[];
  /** Slots to record as SKIPPED/MISSED, one row each, oldest first. */
  missed: Date[];
  summary: GapSummary | null;
}

export const EMPTY_PLAN: GapPlan = { run: [], missed: [], summary: null };

/**
 * What to do with the slots of a gap (pure: schedule math and the job's policy). The latest due
 * slot still runs when it is within the grace period (a short stall or restart only delays it);
 * of the rest, the policy picks what runs — NONE nothing, LATEST the latest, ALL the latest
 * `limit` — and every other slot becomes a MISSED row: the newest MAX_MISSED_ROWS one row each,
 * anything older one summary row, so a job firing every second after a week offline writes a
 * hundred rows, not 600,000.
 */
export function planGap(g: GapInput): GapPlan {
  const { schedule, bounds, afterExclusive, untilInclusive } = g;
  if (untilInclusive.getTime() <= afterExclusive.getTime()) return EMPTY_PLAN;
  const runCount =
    g.policy === CatchUpPolicy.ALL ? Math.min(g.limit ?? DEFAULT_CATCH_UP_LIMIT, MAX_CATCH_UP_LIMIT) : g.policy === CatchUpPolicy.LATEST ? 1 : 0;
  // The newest slots of the gap are all we need one by one: those that run, then MISSED rows,
  // and one more to know whether older ones need a summary.
  const newest = latestSlotsBetween(schedule, bounds, afterExclusive, untilInclusive, Math.max(runCount, 1) + MAX_MISSED_ROWS + 1);
  if (newest.length === 0) return EMPTY_PLAN;
  const latest = newest[newest.length - 1];
  const latestInGrace = g.now.getTime() - latest.getTime() <= g.graceMs;
  const toRun = Math.min(newest.length, Math.max(runCount, latestInGrace ? 1 : 0));
  const run = newest.slice(newest.length - toRun);
  const rest = newest.slice(0, newest.length - toRun);
  const missed = rest.slice(Math.max(0, rest.length - MAX_MISSED_ROWS));
  let summary: GapSummary | null = null;
  if (rest.length > MAX_MISSED_ROWS) {
    // Older than the individual rows: counted from the start of the gap, up to a bound.
    const before = new Date(missed[0].getTime() - 1);
    const older: Date[] = [];
    for (const slot of slotsBetween(schedule, bounds, new Date(afterExclusive.getTime() + 1), before)) {
      older.push(slot);
      if (older.length > MAX_COUNTED) break;
    }
    if (older.length > 0) {
      const bounded = older.length > MAX_COUNTED;
      summary = {
        from: older[0],
        to: bounded ? before : older[older.length - 1],
        count: Math.min(older.length, MAX_COUNTED),
        countIsLowerBound: bounded,
      };
    }
  }
  return { run, missed, summary };
}

/** A human sentence for a MISSED row, by reason. */
export function missedMessage(reason: string): string {
  switch (reason) {
    case 'PROCESS_DOWN':
      return 'missed: no cronql scheduler was running when the slot came due';
    case 'STALL':
      return 'missed: the scheduler was stalled (event loop or machine) when the slot came due';
    case 'CLOCK_JUMP':
      return 'missed: the wall clock jumped forward past the slot';
    case 'DATABASE_UNREACHABLE':
      return 'missed: the database could not record the slot in time';
    default:
      return `missed: ${reason}`;
  }
}
