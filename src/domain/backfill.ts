import { BackfillScope, BackfillState, RunStatus } from './enums.js';

/**
 * Backfills: a job's past slots of a range `[from, to]`, run again by trigger BACKFILL
 * (docs/behaviour.md, "Backfill"). The plan is a pure function of the range's slots and what the
 * ledger holds for them; it is computed once, when the backfill is asked for, and stored.
 */

/** The most slots a backfill's range may have (more: BACKFILL_TOO_LARGE; split the range). */
export const MAX_BACKFILL_SLOTS = 10_000;

/**
 * Retention keeps a backfill's runs this long after they were made, however old their slot
 * (docs/operations.md, retention): a day.
 */
export const BACKFILL_RUNS_KEPT_MS = 86_400_000;

/** A backfill as the services and the API see it. */
export interface BackfillRecord {
  /** A dry run's is not stored (nothing was written). */
  id: string;
  /** The job version whose slots were planned. */
  jobId: string;
  jobKey: string;
  from: Date;
  to: Date;
  scope: BackfillScope;
  /** The slots it runs (a dry run: would run), oldest first. */
  slots: Date[];
  /** Slots of the range the scope left out (or another backfill in flight holds). */
  skippedExisting: number;
  /** Runs it created so far. */
  created: number;
  state: BackfillState;
  reason: string;
  requestedBy: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

/** What the ledger holds for one slot of the range: one of its runs (SCHEDULED or BACKFILL). */
export interface SlotRun {
  slot: Date;
  status: RunStatus;
  /** Orders a slot's runs: the latest created (then the highest attempt) is its last attempt. */
  createdAt: Date;
  attempt: number;
}

/** What the planner is told beside the range's slots. */
export interface PlanInputs {
  /** Every run of the range's slots, in any order. */
  runs: readonly SlotRun[];
  /** Slots another backfill in flight holds: never planned twice. */
  held: readonly Date[];
  /**
   * Retention deleted this job's runs up to here: a slot at or before it with no run may have had
   * one, so it is not counted as missing (ALL still runs it). Null: nothing pruned.
   */
  prunedThrough: Date | null;
}

/** Why a slot is (not) run: the outcome of its last attempt, as the scopes read it. */
type SlotState = 'MISSING' | 'UNSUCCESSFUL' | 'OTHER';

/**
 * The slot's state: MISSING when it has no run but SKIPPED ones (and was not pruned),
 * UNSUCCESSFUL when its last attempt (the latest non-SKIPPED run) FAILED or was CANCELED, OTHER
 * when it SUCCEEDED or is in progress.
 */
function stateOf(slot: Date, runs: readonly SlotRun[] | undefined, prunedThrough: Date | null): SlotState {
  const ran = (runs ?? []).filter((r) => r.status !== RunStatus.SKIPPED);
  if (ran.length === 0) return prunedThrough && slot.getTime() <= prunedThrough.getTime() ? 'OTHER' : 'MISSING';
  const last = ran.reduce((a, b) => (b.createdAt.getTime() > a.createdAt.getTime() || (b.createdAt.getTime() === a.createdAt.getTime() && b.attempt > a.attempt) ? b : a));
  return last.status === RunStatus.FAILED || last.status === RunStatus.CANCELED ? 'UNSUCCESSFUL' : 'OTHER';
}

/** Whether `scope` runs a slot in `state`. */
const runsIt = (scope: BackfillScope, state: SlotState): boolean =>
  scope === BackfillScope.ALL || state === 'MISSING' || (scope === BackfillScope.NOT_SUCCEEDED && state === 'UNSUCCESSFUL');

/**
 * The plan of a backfill: of the range's `slots` (sorted), those the scope runs, oldest first, and
 * how many it left out. A slot held by another backfill in flight is left out whatever the scope.
 */
export function planBackfill(slots: readonly Date[], scope: BackfillScope, inputs: PlanInputs): { slots: Date[]; skippedExisting: number } {
  const bySlot = new Map<number, SlotRun[]>();
  for (const r of inputs.runs) {
    const key = r.slot.getTime();
    const list = bySlot.get(key);
    if (list) list.push(r);
    else bySlot.set(key, [r]);
  }
  const held = new Set(inputs.held.map((d) => d.getTime()));
  const planned = slots.filter((s) => !held.has(s.getTime()) && runsIt(scope, stateOf(s, bySlot.get(s.getTime()), inputs.prunedThrough)));
  return { slots: planned, skippedExisting: slots.length - planned.length };
}
