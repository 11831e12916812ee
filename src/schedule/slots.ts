import { parseCronExpression, type CronExpression } from './cron-expression.js';
import { WallClock, type WallClockInstants } from './timezone.js';
import { daySelection, selectsDay, type DaySelection } from './day-rules.js';

/**
 * How far past the last slot found (or the starting point) the search goes before giving up. A
 * valid expression fires at least once every 8 years (the leap-day gap around 2100), so this only
 * bounds pathological input; measured from the last slot, it never cuts a long list of sparse
 * slots short (`0 0 29 2 *`, 20 of them, runs to 2100 and beyond). A year field's next allowed
 * year is a new start: the search jumps to it and the horizon counts from there (`0 0 0 1 1 * 2090`).
 */
const HORIZON_YEARS = 30;

/**
 * The next `count` slots strictly after `from`, sorted and unique, as UTC instants on whole
 * seconds. Slots are computed on the wall clock of `timezone` and mapped to instants by the DST
 * policy (see docs/behaviour.md): a non-existent local time is shifted forward by the gap's length; a
 * repeated one fires at its first occurrence, or at both when the hour field is `*` or a step.
 * Returns fewer than `count` slots only if 30 years pass without one.
 */
export function nextSlots(
  expression: CronExpression | string,
  timezone: string,
  from: Date,
  count: number,
): Date[] {
  assertCount('count', count);
  return collect(toExpression(expression), timezone, instantOf('from', from), Infinity, count);
}

/** The first slot strictly after `from`, or null when there is none within 30 years. */
export function nextSlot(expression: CronExpression | string, timezone: string, from: Date): Date | null {
  return nextSlots(expression, timezone, from, 1)[0] ?? null;
}

/**
 * The slots in (`afterExclusive`, `untilInclusive`], earliest first, at most `limit` of them: what
 * the runtime missed while it was not running.
 */
export function slotsBetween(
  expression: CronExpression | string,
  timezone: string,
  afterExclusive: Date,
  untilInclusive: Date,
  limit: number,
): Date[] {
  assertCount('limit', limit);
  const after = instantOf('afterExclusive', afterExclusive);
  const until = instantOf('untilInclusive', untilInclusive);
  return collect(toExpression(expression), timezone, after, until, limit);
}

/** Look-back windows for `latestSlotBetween`, shortest first (the last spans the horizon). */
const LOOK_BACK_MS = [60_000, 3_600_000, 86_400_000, 32 * 86_400_000, 367 * 86_400_000, HORIZON_YEARS * 367 * 86_400_000];

/**
 * The latest slot in (`afterExclusive`, `untilInclusive`], or null: what a runtime that woke up
 * late fires (the slots before it in the window are missed, not replayed). Looks back through
 * growing windows, so a long gap costs no more than the slots of one window.
 */
export function latestSlotBetween(
  expression: CronExpression | string,
  timezone: string,
  afterExclusive: Date,
  untilInclusive: Date,
): Date | null {
  const cron = toExpression(expression);
  const after = instantOf('afterExclusive', afterExclusive);
  const until = instantOf('untilInclusive', untilInclusive);
  for (const span of LOOK_BACK_MS) {
    const from = Math.max(after, until - span);
    const found = collect(cron, timezone, from, until, Number.MAX_SAFE_INTEGER);
    if (found.length > 0) return found[found.length - 1];
    if (from === after) return null;
  }
  return null;
}

/**
 * The last slot a schedule will ever have, or null when it has no last one (no year field, or
 * `*`). With a year field the schedule ends in its last allowed year: a job on it retires once
 * the run of that slot has ended, as a one-time job does after its run. Found from the end: the
 * last local day that matches (allowed years and months, latest first), then the latest slot of
 * that day — so the slots of a busy schedule (`* * * * * * 2026-9999`) are never enumerated.
 */
export function lastSlot(expression: CronExpression | string, timezone: string): Date | null {
  const cron = toExpression(expression);
  if (cron.years === null) return null;
  const tables = tablesFor(cron);
  const clock = new WallClock(timezone);
  for (let i = cron.years.length - 1; i >= 0; i -= 1) {
    const year = cron.years[i];
    for (let month = 12; month >= 1; month -= 1) {
      if (!tables.months[month]) continue;
      for (let day = daysInMonth(year, month); day >= 1; day -= 1) {
        if (!selectsDay(tables, year, month, day)) continue;
        // The day's local times, and two hours more: a time the clock skips lands after its gap.
        const from = clock.instantLowerBound(Date.UTC(year, month - 1, day)) - 1;
        const until = clock.instantLowerBound(Date.UTC(year, month - 1, day + 1)) + 2 * 3_600_000;
        return latestSlotBetween(cron, timezone, new Date(from), new Date(until));
      }
    }
  }
  return null;
}

/**
 * The latest `count` slots in (`afterExclusive`, `untilInclusive`], earliest first (fewer when the
 * window holds fewer). Looks back through growing windows like `latestSlotBetween`, so the slots of
 * a long gap before them are never enumerated.
 */
export function latestSlotsBetween(
  expression: CronExpression | string,
  timezone: string,
  afterExclusive: Date,
  untilInclusive: Date,
  count: number,
): Date[] {
  assertCount('count', count);
  const cron = toExpression(expression);
  const after = instantOf('afterExclusive', afterExclusive);
  const until = instantOf('untilInclusive', untilInclusive);
  if (count === 0) return [];
  for (const span of LOOK_BACK_MS) {
    const from = Math.max(after, until - span);
    const found = collect(cron, timezone, from, until, Number.MAX_SAFE_INTEGER);
    if (found.length >= count || from === after) return found.slice(Math.max(0, found.length - count));
  }
  return [];
}

/**
 * Walks matching local times in order and maps each to its instants. DST can put a local time's
 * instant after the next local time's (a gap-shifted 02:30 lands after a real 03:00, the late copy
 * of 01:00 after the early 01:30), so candidates are gathered until no later local time can still
 * land before the `max`-th instant found, then sorted.
 */
function collect(cron: CronExpression, timezone: string, after: number, until: number, max: number, origins?: Map<number, Origin>): Date[] {
  const clock = new WallClock(timezone);
  if (max === 0 || until <= after) return [];
  const cursor = new LocalCursor(cron, clock.localLowerBound(after));
  const found: number[] = [];
  const seen = new Set<number>();
  let sorted = true;
  for (let local = cursor.next(); local !== undefined; local = cursor.next()) {
    const lowerBound = clock.instantLowerBound(local);
    if (lowerBound > until) break;
    const resolved = clock.resolve(local);
    for (const instant of firingInstants(cron, resolved)) {
      if (instant <= after || instant > until) continue;
      if (origins) noteOrigin(origins, instant, local, resolved);
      if (seen.has(instant)) continue;
      seen.add(instant);
      if (found.length > 0 && instant < found[found.length - 1]) sorted = false;
      found.push(instant);
    }
    if (found.length >= max) {
      if (!sorted) {
        found.sort((a, b) => a - b);
        sorted = true;
      }
      found.length = max;
      if (found[max - 1] <= lowerBound) break;
    }
  }
  if (!sorted) found.sort((a, b) => a - b);
  return found.slice(0, max).map((instant) => new Date(instant));
}

/**
 * Where a slot's instant came from: a local time that exists once (`single`), one that did not
 * exist and was shifted forward by the gap (`gap`, with the local time asked for), or one of the
 * two occurrences of a repeated local time.
 */
type Origin = { kind: 'single' } | { kind: 'gap'; asked: number } | { kind: 'repeated'; occurrence: 'first' | 'second' };

/** A real local time outranks a shifted one landing on the same instant: that slot is not "moved". */
function noteOrigin(origins: Map<number, Origin>, instant: number, local: number, at: WallClockInstants): void {
  if (at.kind === 'gap') {
    if (!origins.has(instant)) origins.set(instant, { kind: 'gap', asked: local });
  } else if (at.kind === 'overlap') origins.set(instant, { kind: 'repeated', occurrence: instant === at.earlier ? 'first' : 'second' });
  else origins.set(instant, { kind: 'single' });
}

/** What daylight-saving time did to a slot: moved it out of a gap, or put it in a repeated hour. */
export interface SlotDst {
  mark: 'SHIFTED' | 'REPEATED';
  /** e.g. "02:30 does not exist on 2026-03-08 (clocks go forward); runs at 03:30" */
  note: string;
}

/** A slot with what DST did to it (null: nothing). */
export interface ExplainedSlot {
  at: Date;
  dst: SlotDst | null;
}

/**
 * `nextSlots`, each with what DST did to it — known from the same walk that found it, so an
 * explanation can never disagree with the slot: a local time that did not exist (clocks went
 * forward over it) is SHIFTED, one that occurs twice (clocks went back) is REPEATED.
 */
export function nextSlotsExplained(expression: CronExpression | string, timezone: string, from: Date, count: number): ExplainedSlot[] {
  assertCount('count', count);
  const origins = new Map<number, Origin>();
  const slots = collect(toExpression(expression), timezone, instantOf('from', from), Infinity, count, origins);
  const clock = new WallClock(timezone);
  return slots.map((at) => {
    const origin = origins.get(at.getTime());
    const wall = new Date(clock.localOf(at.getTime()));
    if (origin?.kind === 'gap') {
      const asked = new Date(origin.asked);
      return { at, dst: { mark: 'SHIFTED', note: `${hhmm(asked)} does not exist on ${ymd(wall)} (clocks go forward); runs at ${hhmm(wall)}` } };
    }
    if (origin?.kind === 'repeated') {
      return { at, dst: { mark: 'REPEATED', note: `${hhmm(wall)} occurs twice on ${ymd(wall)} (clocks go back); this is the ${origin.occurrence}` } };
    }
    return { at, dst: null };
  });
}

/** A naive local time (fields as UTC) as HH:MM, with :SS when not on the minute. */
const hhmm = (d: Date) => {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}${d.getUTCSeconds() ? `:${two(d.getUTCSeconds())}` : ''}`;
};
const ymd = (d: Date) => d.toISOString().slice(0, 10);

/** The DST policy for one local time. */
function firingInstants(cron: CronExpression, at: WallClockInstants): number[] {
  if (at.kind !== 'overlap') return [at.instant];
  return cron.hourIsWildcardOrStep ? [at.earlier, at.later] : [at.earlier];
}

/**
 * Iterates the local wall-clock times an expression matches, in order, as naive epoch ms (fields
 * encoded as UTC). Jumps over non-matching months, days, hours and minutes using per-field
 * "next allowed value" tables, so a sparse expression (`0 0 29 2 *`) costs a few hundred steps.
 */
class LocalCursor {
  private readonly tables: FieldTables;
  private lastYear: number;
  private year: number;
  private month: number;
  private day: number;
  private hour: number;
  private minute: number;
  private second: number;

  constructor(cron: CronExpression, startLocal: number) {
    this.tables = tablesFor(cron);
    const start = new Date(startLocal);
    this.year = start.getUTCFullYear();
    this.month = start.getUTCMonth() + 1;
    this.day = start.getUTCDate();
    this.hour = start.getUTCHours();
    this.minute = start.getUTCMinutes();
    this.second = start.getUTCSeconds();
    this.lastYear = this.year + HORIZON_YEARS;
  }

  /** The next matching local time at or after the cursor, or undefined past the horizon. */
  next(): number | undefined {
    const t = this.tables;
    for (;;) {
      if (this.year > this.lastYear) return undefined;
      if (t.nextYear !== null) {
        const year = t.nextYear(this.year);
        if (year === undefined) return undefined; // past the last allowed year
        if (year !== this.year) {
          // A year field can put the next allowed year past the horizon: the horizon counts from it.
          [this.year, this.month, this.day, this.hour, this.minute, this.second] = [year, 1, 1, 0, 0, 0];
          this.lastYear = Math.max(this.lastYear, year + HORIZON_YEARS);
          continue;
        }
      }
      if (!t.months[this.month] || this.day > daysInMonth(this.year, this.month)) {
        this.startNextMonth();
        continue;
      }
      if (!selectsDay(t, this.year, this.month, this.day)) {
        this.startNextDay();
        continue;
      }
      // Index 24 / 60 hold -1, so running off the end of an hour or a minute lands here too.
      const hour = t.nextHour[this.hour];
      if (hour < 0) {
        this.startNextDay();
        continue;
      }
      if (hour !== this.hour) [this.hour, this.minute, this.second] = [hour, 0, 0];
      const minute = t.nextMinute[this.minute];
      if (minute < 0) {
        [this.hour, this.minute, this.second] = [this.hour + 1, 0, 0];
        continue;
      }
      if (minute !== this.minute) [this.minute, this.second] = [minute, 0];
      const second = t.nextSecond[this.second];
      if (second < 0) {
        [this.minute, this.second] = [this.minute + 1, 0];
        continue;
      }
      this.second = second + 1;
      this.lastYear = this.year + HORIZON_YEARS;
      return Date.UTC(this.year, this.month - 1, this.day, this.hour, this.minute, second);
    }
  }

  private startNextDay(): void {
    [this.day, this.hour, this.minute, this.second] = [this.day + 1, 0, 0, 0];
  }

  private startNextMonth(): void {
    if (this.month === 12) [this.year, this.month] = [this.year + 1, 1];
    else this.month += 1;
    [this.day, this.hour, this.minute, this.second] = [1, 0, 0, 0];
  }
}

interface FieldTables extends DaySelection {
  /** `next*[v]`: the smallest allowed value >= v, or -1; one extra slot past the field's end. */
  readonly nextSecond: Int8Array;
  readonly nextMinute: Int8Array;
  readonly nextHour: Int8Array;
  readonly months: readonly boolean[];
  /** The smallest allowed year >= y, or undefined; null when every year is allowed. */
  readonly nextYear: ((year: number) => number | undefined) | null;
}

const tablesCache = new WeakMap<CronExpression, FieldTables>();

function tablesFor(cron: CronExpression): FieldTables {
  let tables = tablesCache.get(cron);
  if (tables === undefined) {
    tables = {
      nextSecond: nextAllowed(cron.seconds, 60),
      nextMinute: nextAllowed(cron.minutes, 60),
      nextHour: nextAllowed(cron.hours, 24),
      months: membership(cron.months, 13),
      nextYear: cron.years === null ? null : nextYearOf(cron.years),
      ...daySelection(cron),
    };
    tablesCache.set(cron, tables);
  }
  return tables;
}

function nextAllowed(values: readonly number[], size: number): Int8Array {
  const allowed = membership(values, size);
  const next = new Int8Array(size + 1).fill(-1);
  for (let v = size - 1; v >= 0; v -= 1) next[v] = allowed[v] ? v : next[v + 1];
  return next;
}

/** The smallest of the sorted `years` that is >= year, by binary search. */
function nextYearOf(years: readonly number[]): (year: number) => number | undefined {
  return (year) => {
    let [lo, hi] = [0, years.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (years[mid] < year) lo = mid + 1;
      else hi = mid;
    }
    return years[lo];
  };
}

function membership(values: readonly number[], size: number): boolean[] {
  const allowed = new Array<boolean>(size).fill(false);
  for (const v of values) allowed[v] = true;
  return allowed;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function toExpression(expression: CronExpression | string): CronExpression {
  return typeof expression === 'string' ? parseCronExpression(expression) : expression;
}

function instantOf(name: string, date: Date): number {
  const ms = date instanceof Date ? date.getTime() : Number.NaN;
  if (Number.isNaN(ms)) throw new RangeError(`${name} must be a valid Date`);
  return ms;
}

function assertCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
}
