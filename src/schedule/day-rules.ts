/**
 * The day rules beyond plain values (Quartz's `L`, `W` and `#`, as croner and cron-parser accept
 * them), as plain data, and whether a calendar day matches them. Pure: no clock, no zone — a day
 * is a local calendar date.
 *
 * Day of month: `L` (the last day), `L-n` (n days before it), `nW` (the weekday nearest day n,
 * never leaving the month: a Saturday 1st moves to Monday the 3rd, a Sunday last day to the
 * Friday before), `LW` (the last weekday). Day of week: `nL` (the last weekday n of the month;
 * `n#L` is read the same), `n#k` (the k-th weekday n; months without one are skipped). A rule on a
 * range (`THU-FRI#L`) is held here as one rule per weekday.
 */
export interface DayRules {
  /** `L` is 0, `L-3` is 3: days before the month's last. */
  readonly lastDayOffsets: readonly number[];
  /** `15W` is 15. */
  readonly nearestWeekdays: readonly number[];
  /** `LW`. */
  readonly lastWeekday: boolean;
  /** `5L` is 5 (0 = Sunday). */
  readonly lastOfWeekdays: readonly number[];
  /** `1#2` is [1, 2]: the second Monday. */
  readonly nthWeekdays: readonly (readonly [weekday: number, nth: number])[];
}

export const NO_DAY_RULES: DayRules = Object.freeze({
  lastDayOffsets: Object.freeze([]),
  nearestWeekdays: Object.freeze([]),
  lastWeekday: false,
  lastOfWeekdays: Object.freeze([]),
  nthWeekdays: Object.freeze([]),
});

export const hasDayOfMonthRules = (r: DayRules): boolean => r.lastDayOffsets.length > 0 || r.nearestWeekdays.length > 0 || r.lastWeekday;
export const hasDayOfWeekRules = (r: DayRules): boolean => r.lastOfWeekdays.length > 0 || r.nthWeekdays.length > 0;

export const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate();
const weekdayOf = (year: number, month: number, day: number): number => new Date(Date.UTC(year, month - 1, day)).getUTCDay();

/** The weekday nearest `day` in its month (the day itself when it is one). */
export function nearestWeekday(year: number, month: number, day: number): number {
  const last = daysInMonth(year, month);
  const weekday = weekdayOf(year, month, day);
  if (weekday === 6) return day === 1 ? 3 : day - 1; // Saturday: Friday, or Monday the 3rd
  if (weekday === 0) return day === last ? day - 2 : day + 1; // Sunday: Monday, or the Friday before
  return day;
}

/** Whether the day-of-month rules select (year, month, day). */
export function matchesDayOfMonthRules(r: DayRules, year: number, month: number, day: number): boolean {
  const last = daysInMonth(year, month);
  if (r.lastDayOffsets.some((offset) => day === last - offset)) return true;
  if (r.lastWeekday && day === nearestWeekday(year, month, last)) return true;
  return r.nearestWeekdays.some((n) => n <= last && day === nearestWeekday(year, month, n));
}

/** Whether the day-of-week rules select (year, month, day). */
export function matchesDayOfWeekRules(r: DayRules, year: number, month: number, day: number): boolean {
  const weekday = weekdayOf(year, month, day);
  if (r.lastOfWeekdays.includes(weekday) && day + 7 > daysInMonth(year, month)) return true;
  return r.nthWeekdays.some(([w, nth]) => w === weekday && Math.ceil(day / 7) === nth);
}

/**
 * Which days an expression selects, as the slot search and the "can it ever fire" check both read
 * it: membership tables of the plain values (`daysOfMonth[1..31]`, `daysOfWeek[0..6]`), the
 * wildcards, and the rules.
 */
export interface DaySelection {
  readonly daysOfMonth: readonly boolean[];
  readonly daysOfWeek: readonly boolean[];
  readonly daysOfMonthWildcard: boolean;
  readonly daysOfWeekWildcard: boolean;
  readonly dayRules: DayRules;
  readonly dayOfMonthRules: boolean;
  readonly dayOfWeekRules: boolean;
}

/**
 * Whether (year, month, day) is a day of the selection. Vixie semantics: with both day fields
 * restricted, either may match (a field's rules count as its values); with one a wildcard, the
 * other alone decides.
 */
export function selectsDay(s: DaySelection, year: number, month: number, day: number): boolean {
  let byMonthDay = s.daysOfMonth[day];
  let byWeekDay = s.daysOfWeek[weekdayOf(year, month, day)];
  if (s.dayOfMonthRules && !byMonthDay) byMonthDay = matchesDayOfMonthRules(s.dayRules, year, month, day);
  if (s.dayOfWeekRules && !byWeekDay) byWeekDay = matchesDayOfWeekRules(s.dayRules, year, month, day);
  if (s.daysOfMonthWildcard) return byWeekDay;
  if (s.daysOfWeekWildcard) return byMonthDay;
  return byMonthDay || byWeekDay;
}

/** The selection of parsed day fields (plain values as sorted lists). */
export function daySelection(fields: {
  daysOfMonth: readonly number[];
  daysOfWeek: readonly number[];
  daysOfMonthWildcard: boolean;
  daysOfWeekWildcard: boolean;
  dayRules: DayRules;
}): DaySelection {
  const membership = (values: readonly number[], size: number) => {
    const allowed = new Array<boolean>(size).fill(false);
    for (const v of values) allowed[v] = true;
    return allowed;
  };
  return {
    daysOfMonth: membership(fields.daysOfMonth, 32),
    daysOfWeek: membership(fields.daysOfWeek, 7),
    daysOfMonthWildcard: fields.daysOfMonthWildcard,
    daysOfWeekWildcard: fields.daysOfWeekWildcard,
    dayRules: fields.dayRules,
    dayOfMonthRules: hasDayOfMonthRules(fields.dayRules),
    dayOfWeekRules: hasDayOfWeekRules(fields.dayRules),
  };
}
