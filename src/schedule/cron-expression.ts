import { CronqlError } from '../errors.js';
import { daySelection, NO_DAY_RULES, selectsDay, type DayRules } from './day-rules.js';

/**
 * A parsed cron expression: for each field, the sorted, de-duplicated values it allows. Immutable
 * (frozen), and plain data, so it can be cached and shared between jobs.
 */
export interface CronExpression {
  /** The expression exactly as given. */
  readonly source: string;
  /** True when the expression had 6 or 7 fields (seconds first); otherwise `seconds` is `[0]`. */
  readonly hasSeconds: boolean;
  /** True when the expression had 7 fields (the seventh is the year). */
  readonly hasYear: boolean;
  readonly seconds: readonly number[];
  readonly minutes: readonly number[];
  readonly hours: readonly number[];
  readonly daysOfMonth: readonly number[];
  /** 1 = January … 12 = December. */
  readonly months: readonly number[];
  /** 0 = Sunday … 6 = Saturday (`7` in the source is folded into `0`). */
  readonly daysOfWeek: readonly number[];
  /** The day-of-month field was `*` or `?`: only then does day-of-week alone decide the day. */
  readonly daysOfMonthWildcard: boolean;
  /** The day-of-week field was `*` or `?`: only then does day-of-month alone decide the day. */
  readonly daysOfWeekWildcard: boolean;
  /**
   * The hour field is `*` or contains a step (`/`). The DST policy uses it: such expressions fire
   * at both instants of a repeated (fall-back) wall-clock time, fixed-hour ones only at the first.
   */
  readonly hourIsWildcardOrStep: boolean;
  /** `L`, `L-n`, `nW`, `LW` in day-of-month and `nL`, `n#k`, `n#L` in day-of-week (see day-rules.ts). */
  readonly dayRules: DayRules;
  /** The years allowed (1–9999), sorted; null when there is no year field or it is `*`. */
  readonly years: readonly number[] | null;
}

interface FieldSpec {
  readonly name: string;
  readonly min: number;
  readonly max: number;
  /** Upper end for `*` and open steps (`a/n`); differs from `max` only for day-of-week (7). */
  readonly openMax: number;
  /** Names accepted for values, e.g. `JAN` → 1; index = value - `nameBase`. */
  readonly names?: readonly string[];
  readonly nameBase?: number;
  /** `?` is accepted as a synonym of `*` (day-of-month and day-of-week only, as in Quartz). */
  readonly allowsQuestionMark?: boolean;
}

const SECOND: FieldSpec = { name: 'second', min: 0, max: 59, openMax: 59 };
const MINUTE: FieldSpec = { name: 'minute', min: 0, max: 59, openMax: 59 };
const HOUR: FieldSpec = { name: 'hour', min: 0, max: 23, openMax: 23 };
const DAY_OF_MONTH: FieldSpec = {
  name: 'day-of-month', min: 1, max: 31, openMax: 31, allowsQuestionMark: true,
};
const MONTH: FieldSpec = {
  name: 'month', min: 1, max: 12, openMax: 12, nameBase: 1,
  names: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
};
/** Croner's range (OCPS 1.2); Quartz's 1970–2099 lies within it. */
const YEAR: FieldSpec = { name: 'year', min: 1, max: 9999, openMax: 9999 };
const DAY_OF_WEEK: FieldSpec = {
  name: 'day-of-week', min: 0, max: 7, openMax: 6, nameBase: 0, allowsQuestionMark: true,
  names: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

/** The macros of Vixie cron that denote a schedule; `@reboot` is not one and is rejected. */
const MACROS: Readonly<Record<string, string>> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** The longest each month can be (February in a leap year), for the "can it ever fire" check. */
const MAX_DAYS_IN_MONTH = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Parses a 5-field (`minute hour day-of-month month day-of-week`), 6-field (seconds first) or
 * 7-field (seconds first, year last, as Quartz, croner and OCPS 1.2 read it) cron expression, or one of the macros `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`,
 * `@midnight`, `@hourly`.
 *
 * Supported per field: `*`, numbers, ranges `a-b`, steps (`/n` after `*`, after a range `a-b`,
 * or after a start value `a`, meaning `a` to the field's end), lists `x,y,z`, names `JAN`–`DEC`
 * and `SUN`–`SAT` (any case), `?` for `*` in the day fields, and `7` for Sunday.
 * Day-of-month and day-of-week combine as in Vixie cron: when both are restricted (neither is
 * literally `*` or `?`; a step such as `1/2` counts as restricted), a day matches if either matches.
 *
 * Day rules, as Quartz, croner and cron-parser accept them (day-rules.ts): `L`, `L-n`, `nW` and `LW`
 * in day-of-month, `nL`, `n#L` (the same) and `n#k` in day-of-week (names allowed: `FRIL`, `SUN#L`,
 * `MON#1`), alone or in a list with plain values; `#` after a range applies to each day of it
 * (`THU-FRI#L`, `SUN-MON#3`), as in croner. `SUN` ending a range is 7 (`SAT-SUN`). A field holding
 * a rule is restricted, and combines with the other day field like any restricted field.
 *
 * The year field (7 fields only): `*`, years 1–9999, ranges, lists, and steps after a start
 * (`2024/2`) or a range (`2024-2030/2`). A step after `*` is refused: the peers disagree on where
 * it starts (croner refuses it, Quartz counts from 1970), so the expression would be ambiguous.
 *
 * Rejected, with `INVALID_CRON_EXPRESSION`: those modifiers anywhere else, `@reboot`,
 * reversed ranges (`5-1`), steps of 0 or longer than the field's span (a step of 90 minutes
 * would only ever hit minute 0, not every 90 minutes), out-of-range values, empty list items,
 * a wrong field count, and expressions that can never fire (`0 0 30 2 *`, `0 0 0 29 2 * 2025`).
 * An expression whose years are all past is valid (it has slots, none ahead): the job rules refuse
 * such a schedule for a new job, with the clock.
 */
export function parseCronExpression(expr: string): CronExpression {
  // Parsed expressions are immutable, so one parse serves every caller (a page of jobs asks
  // each job's next run; every actor is built from one).
  const known = typeof expr === 'string' ? parsed.get(expr) : undefined;
  if (known) return known;
  const expression = parse(expr);
  if (parsed.size >= MAX_PARSED) parsed.clear();
  parsed.set(expr, expression);
  return expression;
}

const parsed = new Map<string, CronExpression>();
/** Bounds the cache of parsed expressions; clearing it only costs parsing again. */
const MAX_PARSED = 10_000;

function parse(expr: string): CronExpression {
  if (typeof expr !== 'string') {
    throw invalid(String(expr), 'the expression must be a string');
  }
  const trimmed = expr.trim();
  const expanded = trimmed.startsWith('@') ? expandMacro(expr, trimmed) : trimmed;
  const fields = expanded === '' ? [] : expanded.split(/\s+/);
  if (fields.length < 5 || fields.length > 7) {
    throw invalid(expr, `expected 5 fields (minute hour day-of-month month day-of-week), 6 ` +
      `(seconds first) or 7 (seconds first, year last), got ${fields.length}`);
  }
  // 6 fields have always meant seconds first; the year only ever comes with seconds (7 fields).
  const hasSeconds = fields.length >= 6;
  const [second, minute, hour, dayOfMonth, month, dayOfWeek, year] = hasSeconds
    ? fields
    : ['0', ...fields];

  const domRules = splitDayRules(expr, dayOfMonth, DAY_OF_MONTH);
  const dowRules = splitDayRules(expr, dayOfWeek, DAY_OF_WEEK);
  const parsed: CronExpression = {
    source: expr,
    hasSeconds,
    seconds: parseField(expr, second, SECOND),
    minutes: parseField(expr, minute, MINUTE),
    hours: parseField(expr, hour, HOUR),
    daysOfMonth: domRules.rest === '' ? Object.freeze([]) : parseField(expr, domRules.rest, DAY_OF_MONTH),
    months: parseField(expr, month, MONTH),
    daysOfWeek: dowRules.rest === '' ? Object.freeze([]) : parseField(expr, dowRules.rest, DAY_OF_WEEK),
    daysOfMonthWildcard: isWildcard(dayOfMonth),
    daysOfWeekWildcard: isWildcard(dayOfWeek),
    hourIsWildcardOrStep: hour === '*' || hour.includes('/'),
    dayRules: domRules.rules === NO_DAY_RULES && dowRules.rules === NO_DAY_RULES
      ? NO_DAY_RULES
      : Object.freeze({ ...domRules.rules, lastOfWeekdays: dowRules.rules.lastOfWeekdays, nthWeekdays: dowRules.rules.nthWeekdays }),
    hasYear: year !== undefined,
    years: year === undefined || year === '*' ? null : parseYears(expr, year),
  };
  assertCanFire(parsed);
  return Object.freeze(parsed);
}

/** The five, six or seven fields of an expression, macros (`@daily`) expanded. */
export function cronFields(expr: string): string {
  const trimmed = expr.trim();
  return trimmed.startsWith('@') ? expandMacro(expr, trimmed) : trimmed;
}

function expandMacro(expr: string, macro: string): string {
  const expansion = MACROS[macro.toLowerCase()];
  if (expansion === undefined) {
    throw invalid(expr, `unsupported macro "${macro}" (supported: ${Object.keys(MACROS).join(', ')})`);
  }
  return expansion;
}

const isWildcard = (field: string): boolean => field === '*' || field === '?';

/**
 * Takes the day rules out of a day field's list: what is left (`rest`, '' when nothing) is parsed
 * as plain values. In any other field, or malformed, a modifier is refused with a clear message.
 */
function splitDayRules(expr: string, field: string, spec: FieldSpec): { rules: DayRules; rest: string } {
  if (!/[LW#]/i.test(field) || /^[a-z]{3}$/i.test(field)) return { rules: NO_DAY_RULES, rest: field };
  const fail = (why: string) => invalid(expr, `${spec.name} field "${field}": ${why}`);
  const lastDayOffsets: number[] = [];
  const nearestWeekdays: number[] = [];
  let lastWeekday = false;
  const lastOfWeekdays: number[] = [];
  const nthWeekdays: [number, number][] = [];
  const rest: string[] = [];
  /** The weekdays (0-6) of the day part of a rule: a day, a range or a step, as in plain values. */
  const weekdays = (days: string, item: string): number[] => {
    if (/^\d+$/.test(days) && Number(days) > 7) throw fail(`"${item}": "${days}" is not a day of the week (0-7 or SUN-SAT)`);
    if (days === '' || days.includes(',')) throw fail(`"${item}" is not nL or n#k (nor n#L)`);
    return [...parseField(expr, days, DAY_OF_WEEK)];
  };
  for (const item of field.split(',')) {
    const u = item.toUpperCase();
    let m: RegExpMatchArray | null;
    if (spec === DAY_OF_MONTH) {
      if (u === 'L') lastDayOffsets.push(0);
      else if (u === 'LW' || u === 'WL') lastWeekday = true;
      else if ((m = u.match(/^L-(\d+)$/))) {
        const n = Number(m[1]);
        if (n < 1 || n > 30) throw fail(`"${item}": L-n takes n from 1 to 30`);
        lastDayOffsets.push(n);
      } else if ((m = u.match(/^(\d+)W$/))) {
        const n = Number(m[1]);
        if (n < 1 || n > 31) throw fail(`"${item}": nW takes a day from 1 to 31`);
        nearestWeekdays.push(n);
      } else if (/[LW#]/.test(u)) throw fail(`"${item}" is not L, L-n, nW or LW (# is for the day-of-week field)`);
      else rest.push(item);
    } else {
      // `n#k`, `n#L`, `nL`; the day may be a range or a step (`THU-FRI#L`): the rule holds for each.
      const rule = u.match(/^(.+)#(\d+|L)$/) ?? u.match(/^((?:\d|[A-Z]{3})(?:-(?:\d|[A-Z]{3}))?)(L)$/);
      if (rule) {
        const days = weekdays(rule[1], item);
        if (rule[2] === 'L') lastOfWeekdays.push(...days);
        else {
          const nth = Number(rule[2]);
          if (nth < 1 || nth > 5) throw fail(`"${item}": n#k takes k from 1 to 5 (or L, the last)`);
          for (const day of days) nthWeekdays.push([day, nth]);
        }
      } else if (/[LW#]/.test(u) && !/^[A-Z]{3}(-[A-Z]{3})?(\/\d+)?$/.test(u)) throw fail(`"${item}" is not nL or n#k (nor n#L; L-n, W and LW are for the day-of-month field)`);
      else rest.push(item);
    }
  }
  const rules: DayRules = Object.freeze({
    lastDayOffsets: Object.freeze([...new Set(lastDayOffsets)]),
    nearestWeekdays: Object.freeze([...new Set(nearestWeekdays)]),
    lastWeekday,
    lastOfWeekdays: Object.freeze([...new Set(lastOfWeekdays)]),
    nthWeekdays: Object.freeze(uniquePairs(nthWeekdays)),
  });
  return { rules, rest: rest.join(',') };
}

/** Returns the sorted, unique, frozen values a field allows. */
function parseField(expr: string, field: string, spec: FieldSpec): readonly number[] {
  const fail = (why: string) => invalid(expr, `${spec.name} field "${field}": ${why}`);
  if (field === '?') {
    if (!spec.allowsQuestionMark) throw fail('"?" is only allowed in the day-of-month and day-of-week fields');
    return Object.freeze(range(spec.min, spec.openMax, 1));
  }
  const values = new Set<number>();
  for (const item of field.split(',')) {
    if (item === '') throw fail('empty list item');
    const parts = item.split('/');
    if (parts.length > 2) throw fail(`"${item}" has more than one "/"`);
    const [base, stepText] = parts;
    const step = stepText === undefined ? 1 : parseStep(stepText, spec, fail);
    let from: number;
    let to: number;
    if (base === '*') {
      [from, to] = [spec.min, spec.openMax];
    } else if (base.includes('-')) {
      const bounds = base.split('-');
      if (bounds.length !== 2) throw fail(`"${base}" is not a range a-b`);
      from = parseValue(bounds[0], spec, fail);
      // `SUN` ending a range is 7, not 0 (`FRI-SUN`), as croner reads it.
      to = spec === DAY_OF_WEEK && bounds[1].toUpperCase() === 'SUN' ? 7 : parseValue(bounds[1], spec, fail);
      if (from > to) throw fail(`range "${base}" is reversed`);
    } else {
      from = parseValue(base, spec, fail);
      // `a/n` means from a to the end of the field, every n (as in cronie and croner).
      to = stepText === undefined ? from : spec.openMax;
    }
    for (const value of range(from, to, step)) values.add(value);
  }
  // Day-of-week 7 is Sunday, like 0.
  const normalised = [...values].map((v) => (spec === DAY_OF_WEEK && v === 7 ? 0 : v));
  return Object.freeze([...new Set(normalised)].sort((a, b) => a - b));
}

/** `L`, `LW`, `15W`, `5L`, `5#3` outside the day fields. */
const QUARTZ_MODIFIER = /^(\d*L|LW|\d+W)$|#/i;

function parseValue(text: string, spec: FieldSpec, fail: (why: string) => CronqlError): number {
  let value: number;
  if (/^\d+$/.test(text)) {
    value = Number(text);
  } else if (/^[a-z]{3}$/i.test(text) && spec.names?.includes(text.toUpperCase())) {
    value = spec.names.indexOf(text.toUpperCase()) + (spec.nameBase ?? 0);
  } else if (text === '') {
    throw fail('missing value');
  } else if (QUARTZ_MODIFIER.test(text)) {
    throw fail(`"${text}": L, W and # are only allowed in the day-of-month (L, L-n, nW, LW) and day-of-week (nL, n#k) fields`);
  } else {
    const kind = spec.names ? `a number or a ${spec.name} name (${spec.names[0]}…)` : 'a number';
    throw fail(`"${text}" is not ${kind}`);
  }
  if (value < spec.min || value > spec.max) {
    throw fail(`${value} is out of range ${spec.min}-${spec.max}`);
  }
  return value;
}

function parseStep(text: string, spec: FieldSpec, fail: (why: string) => CronqlError): number {
  const span = spec.openMax - spec.min + 1;
  if (!/^\d+$/.test(text)) throw fail(`step "${text}" is not a number`);
  const step = Number(text);
  if (step < 1 || step > span) throw fail(`step ${step} is out of range 1-${span}`);
  return step;
}

function range(from: number, to: number, step: number): number[] {
  const values: number[] = [];
  for (let v = from; v <= to; v += step) values.push(v);
  return values;
}

/**
 * Rejects expressions that match no day at all. Over a 28-year cycle every month has every
 * weekday and February has a 29th, so the only way to never fire is a day-of-month restriction
 * (with day-of-week `*`) that no allowed month is long enough for: `0 0 30 2 *`, `0 0 31 4,6 *`.
 * A restricted day-of-week always fires (alone or OR-ed with day-of-month).
 */
function assertCanFire(cron: CronExpression): void {
  if (cron.years !== null) return assertCanFireInYears(cron, cron.years);
  if (cron.daysOfMonthWildcard || !cron.daysOfWeekWildcard) return;
  // L, L-n (n ≤ 27 fits every month; longer ones some month) and LW fire every month; nW when some allowed month has day n.
  const r = cron.dayRules;
  if (r.lastWeekday || r.lastDayOffsets.some((n) => cron.months.some((month) => n < MAX_DAYS_IN_MONTH[month]))) return;
  if (r.nearestWeekdays.some((n) => cron.months.some((month) => n <= MAX_DAYS_IN_MONTH[month]))) return;
  if (cron.daysOfMonth.length === 0) {
    throw invalid(cron.source, `day-of-month "${cron.source}" selects no day in month ${cron.months.join(',')}, so the expression can never fire`);
  }
  const firstDay = cron.daysOfMonth[0];
  if (cron.months.some((month) => firstDay <= MAX_DAYS_IN_MONTH[month])) return;
  throw invalid(cron.source, `day-of-month ${cron.daysOfMonth.join(',')} never occurs in ` +
    `month ${cron.months.join(',')}, so the expression can never fire`);
}

/**
 * With a year field the 28-year argument above does not hold (`0 0 0 29 2 * 2025` never fires,
 * nor does `0 0 0 * 2 MON#5 2026`), so the days are tested one by one. The Gregorian calendar
 * repeats every 400 years, and a year's days depend only on whether it is a leap year and on the
 * weekday of its 1 January: one year of each of those (at most 14) kinds among the allowed ones
 * is enough, each read through a year of the same kind in 2000–2399.
 */
function assertCanFireInYears(cron: CronExpression, years: readonly number[]): void {
  const selection = daySelection(cron);
  const kinds = new Set<string>();
  for (const year of years) {
    const proxy = 2000 + (((year - 2000) % 400) + 400) % 400;
    const kind = `${new Date(Date.UTC(proxy, 1, 29)).getUTCDate()}:${new Date(Date.UTC(proxy, 0, 1)).getUTCDay()}`;
    if (kinds.has(kind)) continue;
    kinds.add(kind);
    for (const month of cron.months) {
      const days = new Date(Date.UTC(proxy, month, 0)).getUTCDate();
      for (let day = 1; day <= days; day++) if (selectsDay(selection, proxy, month, day)) return;
    }
  }
  throw invalid(cron.source, `no allowed day occurs in year ${years.length > 3 ? `${years[0]}…${years[years.length - 1]}` : years.join(',')}, so the expression can never fire`);
}

/** The year field: like other fields, except that a step needs a stated start (see parseCronExpression). */
function parseYears(expr: string, field: string): readonly number[] {
  for (const item of field.split(',')) {
    if (/^\*\/(\d+)$/.test(item) && item !== '*/1') {
      throw invalid(expr, `year field "${field}": "${item}" has no agreed first year (croner refuses it, Quartz counts from 1970); write it, e.g. "2026/2" or "2026-2040/2"`);
    }
  }
  return parseField(expr, field, YEAR);
}

/** `SUN-MON#3,SUN#3` names the third Sunday twice: kept once. */
function uniquePairs(pairs: [number, number][]): [number, number][] {
  const byKey = new Map<string, [number, number]>();
  for (const pair of pairs) if (!byKey.has(pair.join('#'))) byKey.set(pair.join('#'), pair);
  return [...byKey.values()];
}

function invalid(expression: string, why: string): CronqlError {
  return new CronqlError('INVALID_CRON_EXPRESSION', `Invalid cron expression "${expression}": ${why}`, {
    expression,
  });
}
