import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import { parseSchedulePhrase } from '../../src/schedule/parse-english.js';
import { describeSchedule } from '../../src/schedule/describe.js';
import { slotsBetween } from '../../src/schedule/index.js';
import { thrownBy } from '../support/thrown.js';

/**
 * parseSchedule never answers a phrase with a different schedule: each phrase below, generated
 * over every N a unit can take and every spelling the grammar reads, is either refused with
 * UNPARSEABLE_SCHEDULE or exact. What "exact" means, per kind of phrase (slots computed in UTC,
 * where the wall clock is the instant line; in a DST zone the DST policy of docs/behaviour.md
 * applies on top):
 * - every N seconds / minutes / hours: over a window of many rounds of the next unit, every two
 *   consecutive slots are exactly N units apart (no short gap where the step restarts);
 * - … between H1 and H2: the same within each day's window, the first slot at H1 and none at or
 *   after H2 (the window repeats daily, so the gap across the night is not N);
 * - daily / weekly / monthly / yearly (the calendar units, N = 1 only: "every 2 days" and the like
 *   are not in the grammar and are refused): consecutive slots are one calendar day / 7 days /
 *   one calendar month / one calendar year apart, at the same time, the same weekday / day of
 *   the month / date;
 * - on day D of every month, on the k-th or last weekday of every month: a slot in every calendar
 *   month of the window, on that day;
 * - a date of the year (month and day): a slot every year that has the date (29 February: the
 *   leap years), on it.
 */
const UNITS = {
  second: { ms: 1_000, span: 60, spellings: ['second', 'seconds', 'sec', 'secs'], window: 2 * 3_600_000 },
  minute: { ms: 60_000, span: 60, spellings: ['minute', 'minutes', 'min', 'mins'], window: 3 * 86_400_000 },
  hour: { ms: 3_600_000, span: 24, spellings: ['hour', 'hours', 'hr', 'hrs'], window: 40 * 86_400_000 },
} as const;
/** Units the grammar has no "every N" clause for, and the N to try. */
const CALENDAR_UNITS = { day: 31, week: 53, month: 12, year: 10, fortnight: 3 } as const;

const FROM = new Date('2026-01-01T00:00:00Z');

/** The phrase's slots in [FROM, FROM + window), or the refusal. */
function anyOutcome(phrase: string, windowMs: number): { refused: CronqlError } | { everyMs: number } | { expression: string; slots: number[] } {
  const error = thrownBy(() => parseSchedulePhrase(phrase));
  if (error !== undefined) {
    expect(error, phrase).toBeInstanceOf(CronqlError);
    expect((error as CronqlError).code, phrase).toBe('UNPARSEABLE_SCHEDULE');
    return { refused: error as CronqlError };
  }
  const parsed = parseSchedulePhrase(phrase);
  if (parsed.cronExpression === null) return { everyMs: parsed.everyMs };
  const { cronExpression } = parsed;
  const slots = slotsBetween(cronExpression, 'UTC', new Date(FROM.getTime() - 1), new Date(FROM.getTime() + windowMs - 1), 1_000_000).map((d) => d.getTime());
  return { expression: cronExpression, slots };
}

/** The phrase's cron slots, or the refusal (an interval answer fails the test). */
function outcome(phrase: string, windowMs: number): { refused: CronqlError } | { expression: string; slots: number[] } {
  const got = anyOutcome(phrase, windowMs);
  if ('everyMs' in got) throw new Error(`${phrase}: answered as an interval`);
  return got;
}

const gaps = (slots: number[]) => slots.slice(1).map((t, i) => t - slots[i]);

describe('every N <unit>: refused, an INTERVAL of exactly N units, or consecutive slots exactly N units apart', () => {
  for (const [unit, u] of Object.entries(UNITS)) {
    const phrases = u.spellings.flatMap((spelling) => Array.from({ length: u.span + 1 }, (_, i) => [`every ${i} ${spelling}`, i] as const));
    it(`${unit}s: N from 0 to ${u.span}, spelled ${u.spellings.join(', ')}`, () => {
      let exact = 0;
      for (const [phrase, n] of phrases) {
        const got = anyOutcome(phrase, u.window);
        if ('refused' in got) {
          // Refused only when it says no length at all.
          expect(n, `${phrase} was refused`).toBe(0);
          continue;
        }
        if ('everyMs' in got) {
          // An INTERVAL exactly when a cron step cannot say it: N from the span up, or not a divisor of it.
          expect(n >= u.span || u.span % n !== 0, `${phrase} was answered as an interval`).toBe(true);
          expect(got.everyMs, phrase).toBe(n * u.ms);
          continue;
        }
        exact++;
        expect(got.slots.length, phrase).toBeGreaterThan(u.window / (n * u.ms) - 2);
        expect(new Set(gaps(got.slots)), `${phrase} → ${got.expression}`).toEqual(new Set([n * u.ms]));
      }
      // The divisors are accepted, in every spelling.
      const divisors = Array.from({ length: u.span - 1 }, (_, i) => i + 1).filter((d) => u.span % d === 0);
      expect(exact).toBe(divisors.length * u.spellings.length);
    });
  }

  it('45 minutes, 7 hours, 90 seconds and 1 hour 30 minutes alone are intervals (cron cannot repeat them exactly)', () => {
    expect(parseSchedulePhrase('every 45 minutes')).toEqual({ cronExpression: null, everyMs: 45 * 60_000, timezone: null });
    expect(parseSchedulePhrase('every 7 hours in Europe/Paris')).toEqual({ cronExpression: null, everyMs: 7 * 3_600_000, timezone: 'Europe/Paris' });
    expect(parseSchedulePhrase('every 90 seconds').everyMs).toBe(90_000);
    expect(parseSchedulePhrase('every 1 hour and 30 minutes').everyMs).toBe(90 * 60_000);
    expect(parseSchedulePhrase('every 15 minutes')).toEqual({ cronExpression: '*/15 * * * *', everyMs: null, timezone: null });
  });

  it('45 minutes and 7 hours with days name what can be said instead', () => {
    const minutes = thrownBy(() => parseSchedulePhrase('every 45 minutes on weekdays')) as CronqlError;
    expect(minutes.code).toBe('UNPARSEABLE_SCHEDULE');
    expect(minutes.message).toContain('it would fire at minutes 0 and 45, the last 15 minutes before the next');
    expect(minutes.message).toContain('N one of 1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30');
    expect(minutes.message).toContain('"0,45 * * * *"');
    const hours = thrownBy(() => parseSchedulePhrase('every 7 hours on mondays')) as CronqlError;
    expect(hours.message).toContain('hours 0, 7, 14 and 21, the last 3 hours before the next');
    expect(hours.message).toContain('"0 0,7,14,21 * * *"');
  });

  it.each(Object.entries(CALENDAR_UNITS))('every N %ss is not in the grammar: refused for every N up to %i', (unit, max) => {
    for (let n = 0; n <= max; n++) {
      for (const phrase of [`every ${n} ${unit}`, `every ${n} ${unit}s`]) {
        expect('refused' in outcome(phrase, 86_400_000), phrase).toBe(true);
      }
    }
  });
});

describe('every N <unit> between H1 and H2: exact within each day\'s window', () => {
  const windows: [from: string, to: string, h1: number, h2: number][] = [['9am', '5pm', 9, 17], ['0', '23', 0, 23], ['10pm', '11pm', 22, 23]];
  for (const [unit, span] of [['minute', 60], ['hour', 24]] as const) {
    for (const [fromText, toText, h1, h2] of windows) {
      it(`every N ${unit}s between ${fromText} and ${toText}`, () => {
        for (let n = 1; n <= span; n++) {
          const phrase = `every ${n} ${unit}s between ${fromText} and ${toText}`;
          const got = outcome(phrase, 10 * 86_400_000);
          if ('refused' in got) {
            // Minutes restart every hour inside the window; hours only outside it.
            expect(unit === 'minute' ? n >= 60 || 60 % n !== 0 : n > 23, `${phrase} was refused`).toBe(true);
            continue;
          }
          const byDay = new Map<number, number[]>();
          for (const t of got.slots) byDay.set(Math.floor(t / 86_400_000), [...(byDay.get(Math.floor(t / 86_400_000)) ?? []), t]);
          expect(byDay.size, phrase).toBe(10);
          for (const [day, slots] of byDay) {
            expect(slots[0] - day * 86_400_000, `${phrase}: first of the day`).toBe(h1 * 3_600_000);
            expect(slots[slots.length - 1] - day * 86_400_000, `${phrase}: last of the day`).toBeLessThan(h2 * 3_600_000);
            const step = n * (unit === 'minute' ? 60_000 : 3_600_000);
            expect(slots[slots.length - 1] + step - day * 86_400_000, `${phrase}: no room for one more`).toBeGreaterThanOrEqual(h2 * 3_600_000);
            for (const gap of gaps(slots)) expect(gap, `${phrase} → ${got.expression}`).toBe(step);
          }
        }
      });
    }
  }
});

describe('the calendar phrases are exact in calendar terms', () => {
  const YEARS = 9 * 366 * 86_400_000;
  const dt = (t: number) => DateTime.fromMillis(t, { zone: 'utc' });

  it.each([
    ['daily', { days: 1 }], ['every day', { days: 1 }], ['every day at 7:30', { days: 1 }],
    ['weekly', { weeks: 1 }], ['every week', { weeks: 1 }], ['every friday at 18:00', { weeks: 1 }],
    ['monthly', { months: 1 }], ['every month', { months: 1 }], ['on the 28th of every month at 9am', { months: 1 }],
    ['yearly', { years: 1 }], ['annually', { years: 1 }], ['every year', { years: 1 }], ['every march 31st at noon', { years: 1 }],
  ] as const)('%s: each slot is the one before plus %j', (phrase, step) => {
    const got = outcome(phrase, YEARS);
    if ('refused' in got) throw got.refused;
    expect(got.slots.length).toBeGreaterThanOrEqual(8);
    for (let i = 1; i < got.slots.length; i++) expect(dt(got.slots[i]).toISO()).toBe(dt(got.slots[i - 1]).plus(step).toISO());
  });

  it('on day D of every month: D from 1 to 31, each spelling, refused or a slot in every month on day D', () => {
    for (let d = 1; d <= 31; d++) {
      for (const phrase of [`on the ${d}${suffix(d)} of every month`, `on the ${d} of each month at 9am`, `every month on the ${d}${suffix(d)}`, `monthly on the ${d}${suffix(d)}`]) {
        const got = outcome(phrase, YEARS);
        if ('refused' in got) {
          expect(d > 28, `${phrase} was refused`).toBe(true);
          expect(got.refused.message).toContain('not every month has');
          continue;
        }
        const months = got.slots.map((t) => dt(t).toFormat('yyyy-MM'));
        expect(new Set(months).size, phrase).toBe(months.length);
        expect(months.length, phrase).toBeGreaterThanOrEqual(9 * 12);
        for (const t of got.slots) expect(dt(t).day, phrase).toBe(d);
      }
    }
  });

  it('the k-th and the last weekday of every month: refused, or a slot in every month, on that weekday', () => {
    const ordinals = ['first', 'second', 'third', 'fourth', 'fifth', 'last', '1st', '2nd', '3rd', '4th', '5th'];
    for (const ordinal of ordinals) {
      for (const day of ['sunday', 'monday', 'wednesday', 'saturday']) {
        const phrase = `on the ${ordinal} ${day} of every month at 9am`;
        const got = outcome(phrase, YEARS);
        if ('refused' in got) {
          expect(/fifth|5th/.test(ordinal), `${phrase} was refused`).toBe(true);
          continue;
        }
        const months = got.slots.map((t) => dt(t).toFormat('yyyy-MM'));
        expect(new Set(months).size, phrase).toBe(months.length);
        expect(months.length, phrase).toBeGreaterThanOrEqual(9 * 12);
        for (const t of got.slots) expect(dt(t).weekday % 7, phrase).toBe(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].indexOf(day));
      }
    }
  });

  it('every date of the year, and the days no month has: refused, or a slot each year that has the date', () => {
    const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
    for (const [i, month] of months.entries()) {
      for (let d = 1; d <= 32; d++) {
        for (const phrase of [`every ${month} ${d}${suffix(d)}`, `on the ${d}${suffix(d)} of ${month} at 6am`]) {
          const got = outcome(phrase, YEARS);
          const length = DateTime.utc(2024, i + 1, 1).daysInMonth!; // 2024: a leap year
          if ('refused' in got) {
            expect(d > length, `${phrase} was refused`).toBe(true);
            continue;
          }
          const years = got.slots.map((t) => dt(t).year);
          const hour = dt(got.slots[0]).hour;
          const having = Array.from({ length: 10 }, (_, k) => 2026 + k)
            .filter((y) => DateTime.utc(y, i + 1, 1).daysInMonth! >= d && DateTime.utc(y, i + 1, d, hour).toMillis() < FROM.getTime() + YEARS);
          expect(years, phrase).toEqual(having);
          for (const t of got.slots) expect([dt(t).month, dt(t).day], phrase).toEqual([i + 1, d]);
        }
      }
    }
  });
});

describe('other phrases that would mean another schedule are refused', () => {
  it.each([
    ['every second monday', 'every other monday'],
    ['every second tuesday at 9am', 'every other tuesday'],
    ['every other week', 'every other week'],
    ['every other day at noon', 'every other day'],
    ['every 2nd month', 'every other month'],
    ['on the 31st of every month', 'not every month has a 31st'],
    ['on the 1st and 30th of every month', 'not every month has a 30th'],
    ['on the fifth friday of every month', 'not every month has a fifth friday'],
    ['on february 30', 'february has no day 30'],
    ['every 7 day', '"7" alone is not a time of day'],
    ['every 2 week', '"2" alone is not a time of day'],
    ['every 3 month at noon', '"3" alone is not a time of day'],
    ['on the 31st of april at 9am', 'april has no day 31'],
  ])('%j (%s)', (phrase, fragment) => {
    const error = thrownBy(() => parseSchedulePhrase(phrase)) as CronqlError;
    expect(error).toBeInstanceOf(CronqlError);
    expect(error.code).toBe('UNPARSEABLE_SCHEDULE');
    expect(error.message).toContain(fragment);
  });

  it('every expression a phrase gives has a description', () => {
    for (const phrase of ['every 15 seconds', 'every 20 minutes between 9am and 5pm on weekdays', 'on the last friday of every month at 16:00', 'every february 29th']) {
      expect(describeSchedule(parseSchedulePhrase(phrase).cronExpression!, 'UTC', FROM)).toMatch(/^[A-Z]/);
    }
  });
});

function suffix(d: number): string {
  if (d % 100 >= 11 && d % 100 <= 13) return 'th';
  return ['th', 'st', 'nd', 'rd'][d % 10] ?? 'th';
}
