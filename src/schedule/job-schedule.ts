import { parseCronExpression } from './cron-expression.js';
import type { SlotMemo } from './slot-memo.js';
import * as cron from './slots.js';

/**
 * A job's schedule as the slot math sees it — every kind in one type, so the runtime, the ledger,
 * previews and every reader of a job's slots ask one set of functions (pure: no clock, no I/O;
 * every function takes its reference instants):
 * - ONE_TIME: the one slot `runAt`;
 * - RECURRING: the union of the slots of `expressions` (on the wall clock of `timezone`, under the
 *   DST policy of docs/behaviour.md), each instant once even when two expressions name it;
 *   `expressions[0]` is the job's `cronExpression`;
 * - INTERVAL: `anchorAt + k·everyMs` for k = 0, 1, 2 … in absolute time (no wall clock, so no DST
 *   effect: the spacing is exact across a change of offset);
 * - AFTER: no slot at all (the job runs when its upstreams' runs end, not at instants).
 */
export type JobSchedule =
  | { type: 'ONE_TIME'; runAt: Date }
  | { type: 'RECURRING'; expressions: string[]; timezone: string }
  | { type: 'INTERVAL'; everyMs: number; anchorAt: Date }
  | { type: 'AFTER' };

/** No slot before `startAt` nor after `endAt` (both inclusive; null: unbounded on that side). */
export interface ScheduleBounds {
  startAt: Date | null;
  endAt: Date | null;
}

export const UNBOUNDED: Readonly<ScheduleBounds> = Object.freeze({ startAt: null, endAt: null });

/**
 * The first slot strictly after `after` inside the bounds, or null (none ever again — or, for a
 * cron expression, none within 30 years). `memo` shares cron computations between the jobs of one
 * schedule (the scheduler's; see slot-memo.ts).
 */
export function nextSlot(schedule: JobSchedule, bounds: ScheduleBounds, after: Date, memo?: SlotMemo): Date | null {
  const from = Math.max(ms(after), bounds.startAt ? ms(bounds.startAt) - 1 : -Infinity);
  const found = nextUnbounded(schedule, from, memo);
  return found !== null && (!bounds.endAt || found <= ms(bounds.endAt)) ? new Date(found) : null;
}

/** Slots in [from, to] inside the bounds, in time order, found lazily (a consumer may stop early). */
export function* slotsBetween(schedule: JobSchedule, bounds: ScheduleBounds, from: Date, to: Date): Generator<Date> {
  let cursor = ms(from) - 1;
  const until = Math.min(ms(to), bounds.endAt ? ms(bounds.endAt) : Infinity);
  if (bounds.startAt) cursor = Math.max(cursor, ms(bounds.startAt) - 1);
  if (schedule.type === 'RECURRING') {
    // Chunks of each expression's slots, merged: a long range costs what the consumer reads.
    yield* mergeUnique(schedule.expressions.map((e) => chunked(e, schedule.timezone, cursor, until)));
    return;
  }
  for (let at = nextUnbounded(schedule, cursor); at !== null && at <= until; at = nextUnbounded(schedule, at)) yield new Date(at);
}

/**
 * The latest `count` slots in (`afterExclusive`, `untilInclusive`] inside the bounds, earliest
 * first (fewer when there are fewer): what the ledger looks at after a gap, without enumerating the
 * slots of a long gap before them.
 */
export function latestSlotsBetween(schedule: JobSchedule, bounds: ScheduleBounds, afterExclusive: Date, untilInclusive: Date, count: number): Date[] {
  const [after, until] = clip(bounds, afterExclusive, untilInclusive);
  if (count <= 0 || until <= after) return [];
  switch (schedule.type) {
    case 'AFTER':
      return [];
    case 'ONE_TIME': {
      const at = ms(schedule.runAt);
      return at > after && at <= until ? [new Date(at)] : [];
    }
    case 'INTERVAL': {
      const last = intervalAtOrBefore(schedule, until);
      const out: Date[] = [];
      for (let at = last; at !== null && at > after && out.length < count; at = at - schedule.everyMs >= ms(schedule.anchorAt) ? at - schedule.everyMs : null) out.push(new Date(at));
      return out.reverse();
    }
    case 'RECURRING': {
      // The union's latest `count` are among each expression's latest `count`.
      const all = schedule.expressions.flatMap((e) =>
        cron.latestSlotsBetween(parseCronExpression(e), schedule.timezone, new Date(after), new Date(until), count).map((d) => d.getTime()),
      );
      const unique = [...new Set(all)].sort((a, b) => a - b);
      return unique.slice(Math.max(0, unique.length - count)).map((t) => new Date(t));
    }
  }
}

/** The latest slot in (`afterExclusive`, `untilInclusive`] inside the bounds, or null. */
export function latestSlotBetween(schedule: JobSchedule, bounds: ScheduleBounds, afterExclusive: Date, untilInclusive: Date, memo?: SlotMemo): Date | null {
  if (schedule.type === 'RECURRING' && memo) {
    const [after, until] = clip(bounds, afterExclusive, untilInclusive);
    if (until <= after) return null;
    let best: number | null = null;
    for (const e of schedule.expressions) {
      const found = memo.latestBetween(parseCronExpression(e), schedule.timezone, new Date(after), new Date(until));
      if (found && (best === null || found.getTime() > best)) best = found.getTime();
    }
    return best === null ? null : new Date(best);
  }
  return latestSlotsBetween(schedule, bounds, afterExclusive, untilInclusive, 1)[0] ?? null;
}

/**
 * The last slot the schedule will ever have inside the bounds, or null when it has no last one
 * (it goes on forever) — a job retires once that slot's run has ended (`final_slot_at`). A
 * schedule with no slot at all inside the bounds also answers null: `nextSlot` says so.
 */
export function lastSlot(schedule: JobSchedule, bounds: ScheduleBounds): Date | null {
  switch (schedule.type) {
    case 'AFTER':
      return null;
    case 'ONE_TIME':
      return schedule.runAt;
    case 'INTERVAL':
      return bounds.endAt ? latestSlotBetween(schedule, bounds, new Date(-8.64e15), bounds.endAt) : null;
    case 'RECURRING': {
      if (bounds.endAt) return latestSlotBetween(schedule, bounds, new Date(-8.64e15), bounds.endAt);
      // Without an end bound, only expressions that all name their years end.
      let last: number | null = null;
      for (const e of schedule.expressions) {
        const found = cron.lastSlot(parseCronExpression(e), schedule.timezone);
        if (found === null) return null;
        last = Math.max(last ?? -Infinity, found.getTime());
      }
      return last === null ? null : new Date(last);
    }
  }
}

/** The first slot strictly after `after` (ms), ignoring bounds, or null. */
function nextUnbounded(schedule: JobSchedule, after: number, memo?: SlotMemo): number | null {
  switch (schedule.type) {
    case 'AFTER':
      return null;
    case 'ONE_TIME': {
      const at = ms(schedule.runAt);
      return at > after ? at : null;
    }
    case 'INTERVAL': {
      const anchor = ms(schedule.anchorAt);
      if (after < anchor) return anchor;
      return anchor + (Math.floor((after - anchor) / schedule.everyMs) + 1) * schedule.everyMs;
    }
    case 'RECURRING': {
      let best: number | null = null;
      const from = new Date(Number.isFinite(after) ? after : -8.64e15);
      for (const e of schedule.expressions) {
        const expression = parseCronExpression(e);
        const found = memo ? memo.next(expression, schedule.timezone, from) : cron.nextSlot(expression, schedule.timezone, from);
        if (found && (best === null || found.getTime() < best)) best = found.getTime();
      }
      return best;
    }
  }
}

/** The latest slot of an interval at or before `until`, or null (before the anchor). */
function intervalAtOrBefore(schedule: { everyMs: number; anchorAt: Date }, until: number): number | null {
  const anchor = ms(schedule.anchorAt);
  if (until < anchor) return null;
  return anchor + Math.floor((until - anchor) / schedule.everyMs) * schedule.everyMs;
}

/** (after, until] narrowed to the bounds, as ms. */
function clip(bounds: ScheduleBounds, afterExclusive: Date, untilInclusive: Date): [number, number] {
  const after = Math.max(ms(afterExclusive), bounds.startAt ? ms(bounds.startAt) - 1 : -Infinity);
  const until = Math.min(ms(untilInclusive), bounds.endAt ? ms(bounds.endAt) : Infinity);
  return [after, until];
}

/** How many slots of one expression are computed at a time by `slotsBetween`. */
const CHUNK = 256;

/** One expression's slots in (after, until], ascending, a chunk at a time. */
function* chunked(expression: string, timezone: string, after: number, until: number): Generator<number> {
  const parsed = parseCronExpression(expression);
  let cursor = after;
  for (;;) {
    const found = cron.slotsBetween(parsed, timezone, new Date(Number.isFinite(cursor) ? cursor : -8.64e15), new Date(until), CHUNK);
    for (const d of found) yield d.getTime();
    if (found.length < CHUNK) return;
    cursor = found[found.length - 1].getTime();
  }
}

/** Merges ascending streams into one ascending stream, each instant once. */
function* mergeUnique(streams: Generator<number>[]): Generator<Date> {
  const heads = streams.map((s) => s.next());
  let last = -Infinity;
  for (;;) {
    let pick = -1;
    for (let i = 0; i < heads.length; i++) {
      if (!heads[i].done && (pick < 0 || (heads[i].value as number) < (heads[pick].value as number))) pick = i;
    }
    if (pick < 0) return;
    const at = heads[pick].value as number;
    heads[pick] = streams[pick].next();
    if (at !== last) yield new Date(at);
    last = at;
  }
}

function ms(date: Date): number {
  const t = date instanceof Date ? date.getTime() : Number.NaN;
  if (Number.isNaN(t)) throw new RangeError('a schedule instant must be a valid Date');
  return t;
}
