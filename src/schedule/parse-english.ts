import { CronqlError } from '../errors.js';
import { parseCronExpression } from './cron-expression.js';
import { canonicalTimezone } from './timezone.js';

/**
 * Plain English to a cron expression (pure): "every 5 minutes", "every weekday at 9am",
 * "at 02:30 on the 1st of every month", "every monday and thursday at 18:15", "hourly",
 * "every day at noon in Europe/Berlin" (a zone named at the end wins over the caller's). The
 * phrase is read as clauses — how often, which days, at what time, between which hours, in which
 * zone — and every word must belong to one: anything left over is UNPARSEABLE_SCHEDULE, never a
 * guess. The result is checked by the cron parser like any expression.
 */
export type ParsedPhrase =
  | {
      cronExpression: string;
      /** An interval cron cannot say exactly ("every 45 minutes"): its length in ms; null here. */
      everyMs: null;
      /** The zone the phrase named, if any. */
      timezone: string | null;
    }
  | { cronExpression: null; everyMs: number; timezone: string | null };

export const PHRASE_EXAMPLES = [
  'every 5 minutes',
  'hourly',
  'every day at noon',
  'every weekday at 9am',
  'every monday and thursday at 18:15',
  'at 02:30 on the 1st of every month',
  'on the last day of every month at 23:00',
  'on the first monday of every month at 9am',
  'every january 1st at midnight',
  'every 15 minutes between 9am and 5pm on weekdays',
  'every 45 minutes',
  'every 1 hour 30 minutes',
  'every day at 7:30 in Europe/Berlin',
];

export const MAX_PHRASE_LENGTH = 200;

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const ORDINALS: Record<string, number> = { first: 1, second: 2, third: 3, fourth: 4, fifth: 5 };

/** The longest each month can be (February in a leap year: "every february 29th" fires in leap years). */
const MAX_DAYS = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Days 29 to 31 are missing from some months: "the 31st of every month" would skip April, June,
 * September, November and February — not every month. Refused, naming what can be said.
 */
function assertEveryMonth(input: string, days: number[]): void {
  if (days.some((d) => d < 1 || d > 31)) throw unparseable(input, 'a day of the month is from 1 to 31');
  const missing = days.find((d) => d > 28);
  if (missing !== undefined) {
    throw unparseable(input, `not every month has a ${missing}${missing === 31 ? 'st' : 'th'} (February has 28 or 29 days, four months 30); say "the last day of every month", or a day up to the 28th`);
  }
}

const DAY = String.raw`(?:sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)(?:day|nesday|sday|rsday|urday)?s?`;
const MONTH = String.raw`(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*`;
const TIME = String.raw`(?:noon|midnight|\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)|\d{1,2}[:.]\d{2}|\d{1,2}(?=\s|$))`;
const NTH = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;

function unparseable(text: string, why: string): CronqlError {
  return new CronqlError('UNPARSEABLE_SCHEDULE', `cannot read "${text}" as a schedule (${why}); phrases that work: ${PHRASE_EXAMPLES.map((e) => `"${e}"`).join(', ')}`, {
    field: 'text',
    examples: PHRASE_EXAMPLES,
  });
}

function dayNumber(word: string): number {
  const w = word.replace(/s$/, '');
  const i = DAYS.findIndex((d) => d.startsWith(w.slice(0, 3)));
  return i;
}

function monthNumber(word: string): number {
  return MONTHS.findIndex((m) => m.startsWith(word.slice(0, 3))) + 1;
}

/** "9am", "9:05 pm", "18:15", "noon", "midnight", "7" (24-hour) → [hour, minute], or null when out of range. */
function parseTime(text: string): [number, number] | null {
  const t = text.replace(/\s+/g, '');
  if (t === 'noon') return [12, 0];
  if (t === 'midnight') return [0, 0];
  const m = t.match(/^(\d{1,2})(?:[:.](\d{2}))?(am|pm)?$/);
  if (!m) return null;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  if (minute > 59) return null;
  if (m[3]) {
    if (hour < 1 || hour > 12) return null;
    hour = (hour % 12) + (m[3] === 'pm' ? 12 : 0);
  } else if (hour > 23) return null;
  return [hour, minute];
}

/** How many of each unit the next unit holds: a step of cron's is exact only when it divides it. */
const UNIT_SPAN = { second: 60, minute: 60, hour: 24 } as const;
const NEXT_UNIT = { second: 'minute', minute: 'hour', hour: 'day' } as const;

/**
 * "every N units" becomes a step (`*` over N), which restarts at 0 every minute, hour or day: when N
 * does not divide the unit's span (60 or 24), the last gap of each round is shorter ("every 45
 * minutes" would fire at :00 and :45, 15 minutes apart across the hour). Such a phrase is refused,
 * naming what can be said, never turned into that other schedule. (The step search already knows
 * that N must be at least 1 and below the span.)
 */
function assertExactInterval(input: string, n: number, unit: keyof typeof UNIT_SPAN): void {
  const span = UNIT_SPAN[unit];
  const divisors = Array.from({ length: span - 1 }, (_, i) => i + 1).filter((d) => span % d === 0);
  const sayable = `every N ${unit}s with N one of ${divisors.join(', ')}`;
  if (n < 1 || n >= span) {
    throw unparseable(input, `every ${n} ${unit}s is out of range: say ${sayable}, or "every ${NEXT_UNIT[unit]}"`);
  }
  if (span % n === 0) return;
  const at = Array.from({ length: Math.ceil(span / n) }, (_, i) => i * n);
  const gap = span - at[at.length - 1];
  const example = unit === 'hour' ? `0 ${at.join(',')} * * *` : unit === 'minute' ? `${at.join(',')} * * * *` : `${at.join(',')} * * * * *`;
  throw unparseable(input, `cron cannot repeat every ${n} ${unit}s: a step restarts every ${NEXT_UNIT[unit]}, so it would fire at ` +
    `${unit}s ${listed(at.map(String))}, the last ${gap} ${unit}${gap === 1 ? '' : 's'} before the next; say ${sayable}, ` +
    `or give those ${unit}s as a cron expression ("${example}") if that is what you mean`);
}

const listed = (items: string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

export function parseSchedulePhrase(input: string): ParsedPhrase {
  if (typeof input !== 'string' || input.trim() === '') throw unparseable(String(input ?? ''), 'it is empty');
  if (input.length > MAX_PHRASE_LENGTH) throw unparseable(input.slice(0, 40) + '…', `it is longer than ${MAX_PHRASE_LENGTH} characters`);
  let text = ` ${input.toLowerCase().replace(/[,.;!]+(\s|$)/g, ' ').replace(/\s+/g, ' ').trim()} `;
  const take = (re: RegExp): RegExpMatchArray | null => {
    const m = text.match(re);
    if (m) text = text.replace(m[0], ' ');
    return m;
  };

  // In which zone: "in Europe/Berlin", "in UTC" (at the end).
  let timezone: string | null = null;
  const zone = take(/ in ((?:[a-z_]+\/)+[a-z0-9_+-]+|utc|gmt) $/);
  if (zone) timezone = canonicalTimezone(input.slice(input.toLowerCase().lastIndexOf(zone[1]), input.toLowerCase().lastIndexOf(zone[1]) + zone[1].length));

  const every = intervalOf(text);
  if (every !== null) return { cronExpression: null, everyMs: every, timezone };

  let second = '0';
  let minute: string | null = null;
  let hour: string | null = null;
  let dayOfMonth = '*';
  let month = '*';
  let dayOfWeek = '*';
  let hasSeconds = false;
  let interval = false;

  // Between which hours: "between 9am and 5pm" → hours 9 to 16.
  const between = take(new RegExp(String.raw` (?:between|from) (${TIME}) (?:and|to|until) (${TIME}) `));
  let hourRange: string | null = null;
  if (between) {
    const from = parseTime(between[1]);
    const to = parseTime(between[2]);
    if (!from || !to || from[1] !== 0 || to[1] !== 0 || to[0] <= from[0]) throw unparseable(input, 'the hours of "between … and …" must be whole hours, the first before the second');
    hourRange = `${from[0]}-${to[0] - 1}`;
  }

  let m: RegExpMatchArray | null;
  // "every second monday", "every other week": every other one of something cron cannot count
  // (it has no week number), and "every second" would otherwise be read as the interval.
  if ((m = text.match(new RegExp(String.raw` every (?:second|other|2nd|alternate) (${DAY}|weekdays?|weekends?|weeks?|days?|months?|years?) `)))) {
    throw unparseable(input, `cron cannot say every other ${m[1].replace(/s$/, '')}: it counts days of the month and of the week, not weeks`);
  }

  // How often: every N seconds | minutes | hours; every second | minute | hour; hourly; daily…
  if ((m = take(/ every (\d{1,2}) (seconds?|secs?|minutes?|mins?|hours?|hrs?) /))) {
    const n = Number(m[1]);
    const unit = m[2][0] === 's' ? 'second' : m[2][0] === 'm' ? 'minute' : 'hour';
    // Between given hours, a step of hours restarts at the window's start each day, outside the
    // window: any N within it is exact there ("every 5 hours between 9am and 5pm": 9:00, 14:00).
    if (!(unit === 'hour' && hourRange)) assertExactInterval(input, n, unit);
    else if (n < 1 || n > 23) throw unparseable(input, `every ${n} hours is out of range 1-23`);
    interval = true;
    if (unit === 'second') [hasSeconds, second, minute, hour] = [true, n === 1 ? '*' : `*/${n}`, '*', '*'];
    else if (unit === 'minute') [minute, hour] = [n === 1 ? '*' : `*/${n}`, '*'];
    else [minute, hour] = ['0', n === 1 ? '*' : `*/${n}`];
  } else if ((m = take(/ every (second|minute|hour) | (hourly) /))) {
    interval = true;
    const unit = m[1] ?? 'hour';
    if (unit === 'second') [hasSeconds, second, minute, hour] = [true, '*', '*', '*'];
    else if (unit === 'minute') [minute, hour] = ['*', '*'];
    else [minute, hour] = ['0', '*'];
  }
  if (hourRange) {
    if (!interval || hour === null) throw unparseable(input, '"between … and …" goes with "every N minutes" or "every hour"');
    hour = hour === '*' ? hourRange : `${hourRange}/${hour.slice(2)}`;
  }

  // Which days of the month: the last day, the last weekday, the Nth (and Mth) of every month,
  // the first Monday of every month, the last Friday of every month.
  const ofMonth = String.raw`(?:of |in )?(?:every|each|the) month|monthly`;
  if ((m = take(new RegExp(String.raw` (?:on )?the last (day|weekday) (?:${ofMonth}) `)))) {
    dayOfMonth = m[1] === 'day' ? 'L' : 'LW';
  } else if ((m = take(new RegExp(String.raw` (?:on )?the (first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th) (${DAY}) (?:${ofMonth}) `)))) {
    const day = dayNumber(m[2]);
    const which = m[1] === 'last' ? 'L' : String(ORDINALS[m[1]] ?? Number(m[1].slice(0, 1)));
    // Most months have no fifth one: "of every month" would be untrue.
    if (which === '5') throw unparseable(input, `not every month has a fifth ${DAYS[day]}; say "the last ${DAYS[day]} of every month"`);
    dayOfWeek = which === 'L' ? `${day}L` : `${day}#${which}`;
  } else if ((m = take(new RegExp(String.raw` (?:on )?the ${NTH}(?: day)?((?: and| &|,) (?:the )?\d{1,2}(?:st|nd|rd|th)?)* (?:${ofMonth}) `)))) {
    const days = m[0].match(/\d{1,2}/g)!.map(Number);
    assertEveryMonth(input, days);
    dayOfMonth = days.join(',');
  } else if ((m = take(new RegExp(String.raw` (?:monthly|every month|each month) (?:on )?the ${NTH} `)))) {
    assertEveryMonth(input, [Number(m[1])]);
    dayOfMonth = String(Number(m[1]));
  } else if (take(/ (monthly|every month|each month) /)) {
    dayOfMonth = '1';
  }

  // A date of the year: "every january 1st", "on march 15", "on the 1st of january".
  if ((m = take(new RegExp(String.raw` (?:every |each |on )?(${MONTH}) ${NTH} `)))) {
    month = String(monthNumber(m[1]));
    dayOfMonth = String(Number(m[2]));
  } else if ((m = take(new RegExp(String.raw` (?:every |on )?(?:the )?${NTH} (?:of )?(${MONTH}) `)))) {
    month = String(monthNumber(m[2]));
    dayOfMonth = String(Number(m[1]));
  } else if (take(/ (yearly|annually|every year) /)) {
    if (month === '*') [month, dayOfMonth] = ['1', dayOfMonth === '*' ? '1' : dayOfMonth];
  }
  if (month !== '*' && (Number(month) < 1 || Number(dayOfMonth) < 1 || Number(dayOfMonth) > MAX_DAYS[Number(month)])) {
    throw unparseable(input, `not a date: ${MONTHS[Number(month) - 1] ?? 'that month'} has no day ${dayOfMonth}`);
  }

  // Which days of the week: weekdays, weekends, a list of days.
  if (take(/ (?:every|on|each) (?:weekday|week day|business day|working day)s? | on weekdays | weekdays /)) dayOfWeek = '1-5';
  else if (take(/ (?:every|on|each) weekends? | on weekends /)) dayOfWeek = '0,6';
  else if ((m = take(new RegExp(String.raw` (?:every |on |each )?(${DAY}(?:(?: and| &|,| or)? ${DAY})*) `)))) {
    const days = m[1].split(/ and | & |, | or | /).filter(Boolean).map(dayNumber);
    if (days.some((d) => d < 0)) throw unparseable(input, 'not a day of the week');
    dayOfWeek = [...new Set(days)].sort((a, b) => a - b).join(',');
  } else if (take(/ weekly | every week /)) {
    dayOfWeek = '0';
  }

  // At what time: "at 9am", "at 18:15", "at noon", "noon", "midnight".
  if ((m = take(new RegExp(String.raw` (at |@ )?(${TIME}) `)))) {
    // A bare number is a time only after "at": "every 7 day" is not daily at 07:00.
    if (!m[1] && /^\d+$/.test(m[2])) throw unparseable(input, `"${m[2]}" alone is not a time of day; say "at ${m[2]}" or "at ${m[2]}:00"`);
    if (hour !== null && minute !== null && interval) throw unparseable(input, 'a time of day does not go with "every N minutes"');
    const t = parseTime(m[2]);
    if (!t) throw unparseable(input, `"${m[2]}" is not a time of day`);
    if (hour !== null && interval && hour !== '*') throw unparseable(input, 'a time of day does not go with "every N hours"');
    [hour, minute] = [String(t[0]), String(t[1])];
    interval = false;
  }

  // Filler that says nothing on its own once the clauses are read.
  take(/ (?:every|each) day | daily | everyday /);
  take(/ (?:every|each) /);
  if (text.trim() !== '') throw unparseable(input, `"${text.trim()}" is not understood`);
  if (hour === null || minute === null) {
    const anyDay = dayOfMonth !== '*' || dayOfWeek !== '*' || month !== '*';
    if (!anyDay && !/daily|every day|each day|everyday/.test(input.toLowerCase())) throw unparseable(input, 'it says neither how often nor when');
    [hour, minute] = ['0', '0']; // a day without a time: at midnight
  }
  const fields = [minute, hour, dayOfMonth, month, dayOfWeek];
  const cronExpression = (hasSeconds ? [second, ...fields] : fields).join(' ');
  try {
    parseCronExpression(cronExpression); // what we built must be a valid expression
  } catch (err) {
    // A phrase that names no real day ("the 31st of april") is the phrase's fault, said as such.
    if (err instanceof CronqlError && err.code === 'INVALID_CRON_EXPRESSION') throw unparseable(input, err.message);
    throw err;
  }
  return { cronExpression, everyMs: null, timezone };
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600 };
/** Where a step of the unit restarts: it is exact only when it divides this. */
const UNIT_SPAN_OF: Record<string, number> = { s: 60, m: 60, h: 24 };
const AMOUNT = String.raw`(\d{1,5}) (seconds?|secs?|minutes?|mins?|hours?|hrs?)`;
const WHOLE_INTERVAL = new RegExp(String.raw`^ every ${AMOUNT}(?: (?:and )?${AMOUNT})?(?: (?:and )?${AMOUNT})? $`);

/**
 * A phrase that is only a length of time ("every 45 minutes", "every 7 hours", "every 90 seconds",
 * "every 1 hour 30 minutes") which a cron step cannot repeat exactly — a step restarts every
 * minute, hour or day, so "every N units" is exact only for N dividing 60 (or 24 for hours) — is
 * an INTERVAL: its length in ms. Null for anything else: "every 15 minutes" stays the cron step it
 * is exactly, "every 0 minutes" and phrases with more clauses are read (or refused) below.
 */
function intervalOf(text: string): number | null {
  const m = WHOLE_INTERVAL.exec(text);
  if (!m) return null;
  const amounts: [number, string][] = [];
  for (let i = 1; i < m.length; i += 2) if (m[i] !== undefined) amounts.push([Number(m[i]), m[i + 1][0]]);
  const total = amounts.reduce((sum, [n, unit]) => sum + n * UNIT_SECONDS[unit], 0);
  if (total === 0) return null;
  if (amounts.length === 1) {
    const [[n, unit]] = amounts;
    if (n < UNIT_SPAN_OF[unit] && UNIT_SPAN_OF[unit] % n === 0) return null;
  }
  return total * 1000;
}
