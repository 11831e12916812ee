import { CronqlError } from '../errors.js';
import { canonicalTimezone, WallClock } from './timezone.js';

/**
 * Exclusion calendars (docs/behaviour.md, "Calendars"): named sets of stretches of time in which
 * the jobs that name them do not run. Pure: no clock, no I/O; every function takes its instant.
 *
 * Every rule is a set of half-open stretches [open, close) of absolute time:
 * - `dates` ("2026-12-25") and `yearly` ("12-25"): the local day, from the first instant the
 *   calendar's wall clock reads 00:00 that day to the first instant it reads 00:00 the next day;
 * - `dailyWindows` ("22:00"–"06:00", every local day; end ≤ start crosses midnight): from the first
 *   instant the wall clock reads `start` to the first instant after it reads `end`. A time the
 *   clock skips (spring forward) is read as the instant it jumps; in a repeated (fall-back) hour
 *   the first reading counts. So a window is one unbroken stretch every day, never two;
 * - `windows`: absolute [from, to).
 */

export interface DailyWindow {
  /** Local "HH:MM" (00:00–23:59). */
  start: string;
  /** Local "HH:MM" (00:00–24:00); at or before `start`: the window ends the next day. */
  end: string;
  reason: string | null;
}

export interface CalendarWindow {
  from: Date;
  to: Date;
  reason: string | null;
}

/** A calendar's rules, valid (`validateCalendarRules`). */
export interface CalendarRules {
  name: string;
  /** IANA zone, canonical spelling. */
  timezone: string;
  /** Local days, "YYYY-MM-DD", sorted, each once. */
  dates: readonly string[];
  /** "MM-DD": that day every year (02-29 only in leap years). */
  yearly: readonly string[];
  dailyWindows: readonly DailyWindow[];
  windows: readonly CalendarWindow[];
}

/** Why an instant is excluded: the calendar's name and the rule, as stable text. */
export interface Exclusion {
  calendar: string;
  /** "date 2026-12-25", "yearly 12-25", "daily 22:00-06:00", "window <from>/<to>", then " (reason)" when given. */
  rule: string;
}

/** A stretch of excluded time and the rule behind it. */
export interface ExcludedStretch extends Exclusion {
  /** Epoch ms, inclusive. */
  open: number;
  /** Epoch ms, exclusive. */
  close: number;
}

export const CALENDAR_LIMITS = {
  dates: 1_000,
  yearly: 366,
  dailyWindows: 24,
  windows: 200,
  reasonLength: 200,
} as const;

/** A calendar's name: what jobs list in `calendars`. */
export const CALENDAR_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const LOCAL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MONTH_DAY = /^(\d{2})-(\d{2})$/;
const HOUR_MINUTE = /^(\d{2}):(\d{2})$/;

const bad = (field: string, message: string) => new CronqlError('BAD_USER_INPUT', message, { field });

/** "YYYY-MM-DD" (years 1970–9999, a real day) → its day number (days since 1970-01-01). */
export function parseLocalDate(text: unknown, field = 'date'): number {
  const m = typeof text === 'string' ? LOCAL_DATE.exec(text) : null;
  const [y, mo, d] = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  if (!m || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo)) {
    throw bad(field, `${field} "${String(text)}" is not a day: expected YYYY-MM-DD (1970–9999), e.g. "2026-12-25"`);
  }
  return Date.UTC(y, mo - 1, d) / DAY_MS;
}

/** The "YYYY-MM-DD" of a day number. */
export const localDateText = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** "MM-DD", a day some year has (02-29 included) → itself. */
export function parseMonthDay(text: unknown, field = 'yearly'): string {
  const m = typeof text === 'string' ? MONTH_DAY.exec(text) : null;
  const [mo, d] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || mo < 1 || mo > 12 || d < 1 || d > daysIn(2000, mo)) {
    throw bad(field, `${field} "${String(text)}" is not a day of the year: expected MM-DD, e.g. "12-25"`);
  }
  return text as string;
}

/** "HH:MM" → minutes after midnight; "24:00" only where `endOfDay` allows it. */
export function parseHourMinute(text: unknown, field: string, endOfDay = false): number {
  const m = typeof text === 'string' ? HOUR_MINUTE.exec(text) : null;
  const [h, mi] = m ? [Number(m[1]), Number(m[2])] : [-1, -1];
  const valid = m && ((h <= 23 && mi <= 59) || (endOfDay && h === 24 && mi === 0));
  if (!valid) throw bad(field, `${field} "${String(text)}" is not a time of day: expected HH:MM, 00:00–23:59${endOfDay ? ' (or 24:00)' : ''}`);
  return h * 60 + mi;
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** What `validateCalendarRules` checks: the rules as given (strings, dates). */
export interface CalendarRulesInput {
  name: unknown;
  timezone?: string | null;
  dates?: readonly unknown[] | null;
  yearly?: readonly unknown[] | null;
  dailyWindows?: readonly { start: unknown; end: unknown; reason?: unknown }[] | null;
  windows?: readonly { from: unknown; to: unknown; reason?: unknown }[] | null;
}

function reasonOf(value: unknown, field: string): string | null {
  if (value == null) return null;
  if (typeof value !== 'string' || value.length > CALENDAR_LIMITS.reasonLength) {
    throw bad(field, `${field} must be text of at most ${CALENDAR_LIMITS.reasonLength} characters`);
  }
  return value.trim() === '' ? null : value;
}

function listOf<T>(value: readonly T[] | null | undefined, field: keyof typeof CALENDAR_LIMITS): readonly T[] {
  const list = value ?? [];
  if (!Array.isArray(list)) throw bad(field, `${field} must be a list`);
  if (list.length > CALENDAR_LIMITS[field]) throw bad(field, `${field}: at most ${CALENDAR_LIMITS[field]} entries (got ${list.length})`);
  return list;
}

/**
 * A calendar's rules, checked: a name of letters, digits and . _ - (at most 64), an IANA zone
 * (INVALID_TIMEZONE), real days, "MM-DD" days some year has, "HH:MM" times with start ≠ end,
 * windows with from < to, bounded lists (CALENDAR_LIMITS). BAD_USER_INPUT names the field.
 */
export function validateCalendarRules(input: CalendarRulesInput): CalendarRules {
  if (typeof input.name !== 'string' || !CALENDAR_NAME.test(input.name)) {
    throw bad('name', 'a calendar name is 1–64 letters, digits and . _ -, starting with a letter or digit');
  }
  const timezone = canonicalTimezone(input.timezone ?? 'UTC');
  const dates = [...new Set(listOf(input.dates, 'dates').map((d, i) => parseLocalDate(d, `dates[${i}]`)))].sort((a, b) => a - b).map(localDateText);
  const yearly = [...new Set(listOf(input.yearly, 'yearly').map((d, i) => parseMonthDay(d, `yearly[${i}]`)))].sort();
  const dailyWindows = listOf(input.dailyWindows, 'dailyWindows').map((w, i) => {
    const field = `dailyWindows[${i}]`;
    if (w == null || typeof w !== 'object') throw bad(field, `${field} must be { start, end, reason }`);
    const start = parseHourMinute(w.start, `${field}.start`);
    const end = parseHourMinute(w.end, `${field}.end`, true);
    if (start === end % (24 * 60)) throw bad(field, `${field}: start and end are the same time; a window needs two different times`);
    return { start: w.start as string, end: w.end as string, reason: reasonOf(w.reason, `${field}.reason`) };
  });
  const windows = listOf(input.windows, 'windows').map((w, i) => {
    const field = `windows[${i}]`;
    if (w == null || typeof w !== 'object') throw bad(field, `${field} must be { from, to, reason }`);
    const { from, to } = w;
    if (!(from instanceof Date) || !(to instanceof Date) || Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) {
      throw bad(field, `${field}: from and to must be instants`);
    }
    if (from.getTime() >= to.getTime()) throw bad(field, `${field}: from (${from.toISOString()}) must be before to (${to.toISOString()})`);
    return { from, to, reason: reasonOf(w.reason, `${field}.reason`) };
  });
  return { name: input.name, timezone, dates, yearly, dailyWindows, windows };
}

// --- Exclusion -----------------------------------------------------------------------------------

interface Compiled {
  clock: WallClock;
  dates: Set<number>;
  yearly: Set<string>;
  daily: { start: number; end: number; rule: string }[];
  windows: { open: number; close: number; rule: string }[];
}

const compiledOf = new WeakMap<CalendarRules, Compiled>();
const withReason = (rule: string, reason: string | null) => (reason ? `${rule} (${reason})` : rule);

function compile(c: CalendarRules): Compiled {
  let compiled = compiledOf.get(c);
  if (!compiled) {
    compiled = {
      clock: new WallClock(c.timezone),
      dates: new Set(c.dates.map((d) => parseLocalDate(d))),
      yearly: new Set(c.yearly),
      daily: c.dailyWindows.map((w) => ({
        start: parseHourMinute(w.start, 'start') * MINUTE_MS,
        end: parseHourMinute(w.end, 'end', true) * MINUTE_MS,
        rule: withReason(`daily ${w.start}-${w.end}`, w.reason),
      })),
      windows: c.windows.map((w) => ({
        open: w.from.getTime(),
        close: w.to.getTime(),
        rule: withReason(`window ${w.from.toISOString()}/${w.to.toISOString()}`, w.reason),
      })),
    };
    compiledOf.set(c, compiled);
  }
  return compiled;
}

/** "MM-DD" of a day number. */
const monthDayOf = (day: number): string => localDateText(day).slice(5);

/**
 * Every stretch of `calendar` containing `instant`, in rule order (dates, yearly, windows, daily
 * windows, each in the calendar's order).
 */
export function stretchesAt(calendar: CalendarRules, instant: Date | number): ExcludedStretch[] {
  const t = typeof instant === 'number' ? instant : instant.getTime();
  const c = compile(calendar);
  const found: ExcludedStretch[] = [];
  const add = (open: number, close: number, rule: string) => {
    if (open <= t && t < close) found.push({ calendar: calendar.name, rule, open, close });
  };
  // The local day of `t`, and its neighbours: a day's stretch is measured by first readings, which
  // around a fall-back at midnight can reach an instant whose own wall clock says another day.
  const today = Math.floor(c.clock.localOf(t) / DAY_MS);
  const dayStart = (day: number) => c.clock.firstAtOrAfter(day * DAY_MS);
  if (c.dates.size > 0 || c.yearly.size > 0) {
    for (const day of [today - 1, today, today + 1]) {
      if (c.dates.has(day)) add(dayStart(day), dayStart(day + 1), `date ${localDateText(day)}`);
      if (c.yearly.size > 0 && c.yearly.has(monthDayOf(day))) add(dayStart(day), dayStart(day + 1), `yearly ${monthDayOf(day)}`);
    }
  }
  for (const w of c.windows) add(w.open, w.close, w.rule);
  for (const w of c.daily) {
    for (const day of [today - 1, today, today + 1]) {
      const open = c.clock.firstAtOrAfter(day * DAY_MS + w.start);
      // end ≤ start: the window closes on the next local day.
      const endLocal = day * DAY_MS + w.end + (w.end <= w.start ? DAY_MS : 0);
      add(open, Math.max(open, c.clock.firstAtOrAfter(endLocal)), w.rule);
    }
  }
  return found;
}

/** Whether `calendar` excludes `instant`, and by which rule (the first in rule order); null if not. */
export function exclusionOf(calendar: CalendarRules, instant: Date | number): Exclusion | null {
  const [first] = stretchesAt(calendar, instant);
  return first ? { calendar: first.calendar, rule: first.rule } : null;
}

/** The first of `calendars` (in the job's order) that excludes `instant`; null if none does. */
export function exclusionAmong(calendars: readonly CalendarRules[], instant: Date | number): Exclusion | null {
  for (const calendar of calendars) {
    const found = exclusionOf(calendar, instant);
    if (found) return found;
  }
  return null;
}

/** Stretches followed before giving up on finding a span's end (calendars that exclude all time). */
const MAX_STRETCHES = 10_000;

/**
 * The span of excluded time containing `instant`: stretches of any of `calendars` that touch or
 * overlap, followed both ways. `start` inclusive, `end` exclusive (epoch ms); null when `instant`
 * is not excluded. An end beyond MAX_STRETCHES stretches is null (`unbounded`), as is a start.
 */
export function excludedSpan(calendars: readonly CalendarRules[], instant: Date | number): { start: number | null; end: number | null } | null {
  const t = typeof instant === 'number' ? instant : instant.getTime();
  const at = (x: number) => calendars.flatMap((c) => stretchesAt(c, x));
  const here = at(t);
  if (here.length === 0) return null;
  let end: number | null = Math.max(...here.map((s) => s.close));
  for (let i = 0; ; i++) {
    if (i >= MAX_STRETCHES) { end = null; break; }
    const next = at(end);
    if (next.length === 0) break;
    end = Math.max(...next.map((s) => s.close));
  }
  let start: number | null = Math.min(...here.map((s) => s.open));
  for (let i = 0; ; i++) {
    if (i >= MAX_STRETCHES) { start = null; break; }
    const before = at(start - 1);
    if (before.length === 0) break;
    start = Math.min(...before.map((s) => s.open));
  }
  return { start, end };
}

// --- Dated exclusions running out ----------------------------------------------------------------

/** A calendar whose dated exclusions end within this many days says so (`runsOutSoon`). */
export const RUNS_OUT_WITHIN_DAYS = 60;

/**
 * The last local day a dated rule excludes (`dates`, and the local day in which the latest of
 * `windows` ends); null when the calendar has neither (its yearly and daily rules never run out).
 */
export function lastDateOf(calendar: CalendarRules): string | null {
  let last: number | null = calendar.dates.length ? parseLocalDate(calendar.dates[calendar.dates.length - 1]) : null;
  if (calendar.windows.length > 0) {
    const clock = new WallClock(calendar.timezone);
    const latestEnd = Math.max(...calendar.windows.map((w) => w.to.getTime()));
    const day = Math.floor(clock.localOf(latestEnd - 1) / DAY_MS);
    if (last === null || day > last) last = day;
  }
  return last === null ? null : localDateText(last);
}

/**
 * True when the calendar has dated exclusions and the last of them is less than
 * RUNS_OUT_WITHIN_DAYS days after `now`'s local day (or past): next year's holidays need adding.
 */
export function runsOutSoon(calendar: CalendarRules, now: Date): boolean {
  const last = lastDateOf(calendar);
  if (last === null) return false;
  const today = Math.floor(new WallClock(calendar.timezone).localOf(now.getTime()) / DAY_MS);
  return parseLocalDate(last) - today < RUNS_OUT_WITHIN_DAYS;
}
