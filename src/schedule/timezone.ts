import { IANAZone } from 'luxon';
import { CronqlError } from '../errors.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * Shape of an IANA name (`UTC`, `Europe/Berlin`, `America/Argentina/Buenos_Aires`, `Etc/GMT+2`).
 * Checked before asking Intl because newer ICU versions also accept offsets such as `+02:00`,
 * which we reject: a fixed offset has no DST rules and is not what a user means by a zone.
 */
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const canonicalNames = new Map<string, string>();

/**
 * Validates an IANA time zone name and returns its canonical spelling: case is fixed
 * (`america/new_york` → `America/New_York`, `utc` → `UTC`) and links are resolved the way this
 * Node's ICU resolves them (`Etc/UTC` → `UTC`, `US/Eastern` → `America/New_York`).
 *
 * Rejects, with `INVALID_TIMEZONE`: empty strings, offsets (`+02:00`, `UTC+2`), `Local`, and any
 * name the runtime's time zone database does not know.
 */
export function canonicalTimezone(name: string): string {
  const cached = typeof name === 'string' ? canonicalNames.get(name) : undefined;
  if (cached !== undefined) return cached;
  if (typeof name !== 'string' || !IANA_NAME.test(name) || !IANAZone.isValidZone(name)) {
    throw new CronqlError(
      'INVALID_TIMEZONE',
      `Invalid time zone "${String(name)}": expected an IANA name such as "Europe/Berlin" or "UTC"`,
      { timezone: name },
    );
  }
  // ICU's canonical id fixes the case (`america/new_york` → `America/New_York`); where it is a
  // different name altogether (Node 20's ICU turns `Asia/Kolkata` into `Asia/Calcutta` and
  // `US/Eastern` into `America/New_York`), the name the user gave is kept: it is valid, and it is
  // theirs. Every spelling of UTC becomes `UTC`.
  const resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  const canonical = resolved.toLowerCase() === name.toLowerCase() || resolved === 'UTC' ? resolved : name;
  // Only valid names are cached, so the map is bounded by the size of the zone database.
  canonicalNames.set(name, canonical);
  return canonical;
}

/** How one local wall-clock time maps to instants (epoch ms) in a zone. */
export type WallClockInstants =
  | { readonly kind: 'single'; readonly instant: number }
  /** The time does not exist (spring forward): shifted forward by the gap's length. */
  | { readonly kind: 'gap'; readonly instant: number }
  /** The time happens twice (fall back); `earlier` < `later`. */
  | { readonly kind: 'overlap'; readonly earlier: number; readonly later: number };

/** The UTC offsets (ms) in force around one local day and, if they differ, when they change. */
interface DayOffsets {
  readonly before: number;
  readonly after: number;
  /** First instant with the `after` offset; only meaningful when `before !== after`. */
  readonly transitionAt: number;
}

/**
 * Maps local wall-clock times of one zone to instants. Local times are "naive" epoch ms: the
 * wall-clock fields encoded as if they were UTC (`Date.UTC(y, m, d, h, mi, s)`).
 *
 * Why not luxon's `DateTime.fromObject`: it shifts gap times forward as we want, but resolves a
 * repeated (fall-back) time to whichever occurrence has the offset in force *now*, so the answer
 * changes with the season the code runs in. We resolve both occurrences ourselves.
 *
 * Assumes at most one offset change within about two days of any local day, which holds for
 * every real zone. Offsets are looked up once per local day, so callers should ask in order.
 */
export class WallClock {
  private readonly zone: IANAZone;
  private readonly cache: ZoneCache;
  private dayIndex = Number.NaN;
  private day: DayOffsets = { before: 0, after: 0, transitionAt: 0 };

  constructor(timezone: string) {
    const name = canonicalTimezone(timezone);
    this.zone = IANAZone.create(name);
    this.cache = zoneCache(name);
  }

  /** The instant(s) at which the local time `local` occurs. */
  resolve(local: number): WallClockInstants {
    const { before, after, transitionAt } = this.offsetsAround(local);
    if (before === after) return { kind: 'single', instant: local - before };
    // Read with the old offset, the time is real if it falls before the change; read with the
    // new one, if it falls at or after it. Both: fall-back overlap. Neither: spring-forward gap,
    // and reading it with the old offset shifts it forward by exactly the gap's length.
    const withBefore = local - before;
    const withAfter = local - after;
    const beforeValid = withBefore < transitionAt;
    const afterValid = withAfter >= transitionAt;
    if (beforeValid && afterValid) return { kind: 'overlap', earlier: withBefore, later: withAfter };
    if (beforeValid) return { kind: 'single', instant: withBefore };
    if (afterValid) return { kind: 'single', instant: withAfter };
    return { kind: 'gap', instant: withBefore };
  }

  /**
   * The first instant at which the wall clock reads `local` or later: the instant itself, the
   * first of two in a repeated (fall-back) hour, and for a time the clock skips (spring forward)
   * the instant it jumps. Calendars' windows open and close at these instants (calendar.ts).
   */
  firstAtOrAfter(local: number): number {
    const r = this.resolve(local);
    if (r.kind === 'single') return r.instant;
    if (r.kind === 'overlap') return r.earlier;
    return this.day.transitionAt; // resolve() looked this day up: the gap is its transition
  }

  /**
   * A lower bound for the instants of `local` and of every later local time: DST can reorder
   * instants only around one transition, and never below `local` read with the larger offset.
   */
  instantLowerBound(local: number): number {
    const { before, after } = this.offsetsAround(local);
    return local - Math.max(before, after);
  }

  /** A local time such that no earlier local time occurs after `instant`. */
  localLowerBound(instant: number): number {
    // ±4 days covers the bracket `offsetsAround` uses for any local day near `instant`.
    return instant + Math.min(this.offsetAt(instant - 4 * DAY_MS), this.offsetAt(instant + 4 * DAY_MS));
  }

  private offsetsAround(local: number): DayOffsets {
    const index = Math.floor(local / DAY_MS);
    if (index !== this.dayIndex) {
      this.dayIndex = index;
      let day = this.cache.days.get(index);
      if (!day) {
        day = this.computeDay(index * DAY_MS);
        remember(this.cache.days, index, day);
      }
      this.day = day;
    }
    return this.day;
  }

  /**
   * Offsets at instants safely outside the local day (offsets lie within -12h..+14h, so the day
   * spans at most dayStart-14h..dayStart+36h), and the transition between them if they differ.
   */
  private computeDay(dayStart: number): DayOffsets {
    let lo = dayStart - 36 * HOUR_MS;
    let hi = dayStart + 60 * HOUR_MS;
    const before = this.offsetAt(lo);
    const after = this.offsetAt(hi);
    if (before === after) return { before, after, transitionAt: Number.NaN };
    return { before, after, transitionAt: this.changeIn(lo, hi) };
  }

  /** The first second in (lo, hi] with another offset than at `lo` (there is one). */
  private changeIn(lo: number, hi: number): number {
    const before = this.offsetAt(lo);
    // Binary search to the second: offset(lo) === before, offset(hi) !== before.
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (this.offsetAt(mid) === before) lo = mid;
      else hi = mid;
    }
    return hi;
  }

  /** The instants in [from, until) at which the zone's offset changes (DST), a day's step apart at least. */
  changesBetween(from: number, until: number): number[] {
    const found: number[] = [];
    if (this.cache.fixed !== undefined) return found;
    for (let t = from; t < until; t += DAY_MS) {
      if (this.offsetAt(t) !== this.offsetAt(Math.min(t + DAY_MS, until))) found.push(this.changeIn(t, Math.min(t + DAY_MS, until)));
    }
    return found;
  }

  /** The local wall-clock time of `instant`, as naive epoch ms (fields encoded as UTC). */
  localOf(instant: number): number {
    return instant + this.offsetAt(instant);
  }

  /**
   * The zone's UTC offset at `instant`, in ms (rounded to the second, as tzdata offsets are).
   * Asking ICU costs microseconds, and the runtime asks for every actor on every fire, so
   * offsets are remembered per hour of the zone, for hours in which the offset does not change.
   */
  private offsetAt(instant: number): number {
    if (this.cache.fixed !== undefined) return this.cache.fixed;
    const hour = Math.floor(instant / HOUR_MS);
    const known = this.cache.hours.get(hour);
    if (known !== undefined) return known;
    const start = this.rawOffset(hour * HOUR_MS);
    if (start === this.rawOffset(hour * HOUR_MS + HOUR_MS - 1)) {
      remember(this.cache.hours, hour, start);
      return start;
    }
    return this.rawOffset(instant); // a transition falls within this hour
  }

  private rawOffset(instant: number): number {
    return Math.round(this.zone.offset(instant) * 60) * 1000;
  }
}

interface ZoneCache {
  /** Set for zones whose offset never changes (UTC): no lookup at all. */
  fixed?: number;
  hours: Map<number, number>;
  days: Map<number, DayOffsets>;
}

const zoneCaches = new Map<string, ZoneCache>();
/** Bounds each cache; a cleared cache only costs a few lookups again. */
const MAX_CACHED = 50_000;

function zoneCache(name: string): ZoneCache {
  let cache = zoneCaches.get(name);
  if (!cache) {
    const fixed = name === 'UTC' || name === 'Etc/UTC' || name === 'Etc/GMT' || name === 'GMT' ? 0 : undefined;
    cache = { fixed, hours: new Map(), days: new Map() };
    zoneCaches.set(name, cache);
  }
  return cache;
}

function remember<V>(map: Map<number, V>, key: number, value: V): void {
  if (map.size >= MAX_CACHED) map.clear();
  map.set(key, value);
}
