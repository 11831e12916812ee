import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import { lastSlot, nextSlots, parseCronExpression, slotsBetween } from '../../src/schedule/index.js';
import { thrownBy } from '../support/thrown.js';

/**
 * The cron forms croner accepts beyond the Quartz day rules: `#L` (`SUN#L`, the last Sunday), a
 * `#` after a range (each day of it, that occurrence), `SUN` ending a range, and the optional
 * seventh field, the year. Checked three ways: croner's own test vectors (its test/pattern.test.ts
 * and test/new-edge-cases.test.ts), the neighbours of each form, and a brute-force reference
 * written independently of the slot math — every calendar day of a window of years tested with
 * the plain definitions, its time of day placed in the zone by luxon.
 */
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin'];

type DayTest = (y: number, m: number, d: number) => boolean;
// The calendar by the platform's Date (luxon places times in zones below): tens of thousands of
// days are tested per case, and a luxon DateTime per day made this file take a minute and a half
// on a loaded machine.
const dim = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const dow = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).getUTCDay(); // 0 = Sunday
/** Weekday w, for the k-th time in its month (k = 'L': for the last time). */
const nth = (w: number, k: number | 'L'): DayTest => (y, m, d) =>
  dow(y, m, d) === w && (k === 'L' ? d + 7 > dim(y, m) : Math.ceil(d / 7) === k);
const any = (...tests: DayTest[]): DayTest => (y, m, d) => tests.some((t) => t(y, m, d));
const inYears = (years: (y: number) => boolean, day: DayTest): DayTest => (y, m, d) => years(y) && day(y, m, d);

/** 7-field expressions (seconds first, year last) and the days they mean; the time is fields 0-2. */
const CASES: [expr: string, day: DayTest][] = [
  ['0 0 12 * * SUN#L', nth(0, 'L')],
  ['0 0 12 * * 0#L', nth(0, 'L')],
  ['0 0 12 * * 7#L', nth(0, 'L')],
  ['0 0 12 * * 5#L', nth(5, 'L')],
  ['0 0 12 * * fri#l', nth(5, 'L')],
  ['0 0 12 * * SUNL', nth(0, 'L')],
  ['0 30 9 * 2 THU-FRI#L', (y, m, d) => m === 2 && any(nth(4, 'L'), nth(5, 'L'))(y, m, d)],
  ['0 0 12 * * 4-5L', any(nth(4, 'L'), nth(5, 'L'))],
  ['0 0 12 * * SAT-SUN#L,SUN#1', any(nth(6, 'L'), nth(0, 'L'), nth(0, 1))],
  ['0 0 12 * * SUN-MON#3,MON-TUE#1', any(nth(0, 3), nth(1, 3), nth(1, 1), nth(2, 1))],
  ['0 0 12 * * THU-FRI#2', any(nth(4, 2), nth(5, 2))],
  ['0 0 12 * * 1-5/2#1', any(nth(1, 1), nth(3, 1), nth(5, 1))],
  ['0 0 12 * * MON-WED#5', any(nth(1, 5), nth(2, 5), nth(3, 5))],
  ['0 0 12 * * 1,2#L', (y, m, d) => dow(y, m, d) === 1 || nth(2, 'L')(y, m, d)],
  ['0 0 12 * * SAT-SUN', (y, m, d) => dow(y, m, d) === 6 || dow(y, m, d) === 0],
  ['0 0 12 * * FRI-SUN', (y, m, d) => [5, 6, 0].includes(dow(y, m, d))],
  // Both day fields restricted: either matches, as for plain values.
  ['0 0 12 L * SUN#L', (y, m, d) => d === dim(y, m) || nth(0, 'L')(y, m, d)],
  // The year field.
  ['0 0 0 1 1 * 2024-2030/2', inYears((y) => [2024, 2026, 2028, 2030].includes(y), (y, m, d) => m === 1 && d === 1)],
  ['0 0 0 1 1 * 2024,2026,2028', inYears((y) => [2024, 2026, 2028].includes(y), (y, m, d) => m === 1 && d === 1)],
  ['0 0 0 1 1 * *', (y, m, d) => m === 1 && d === 1],
  ['0 0 0 1 1 * 1-9999/2', inYears((y) => y % 2 === 1, (y, m, d) => m === 1 && d === 1)],
  ['0 15 6 L * * 2025-2027', inYears((y) => y >= 2025 && y <= 2027, (y, m, d) => d === dim(y, m))],
  ['0 0 12 29 2 * 2024-2040', inYears((y) => y <= 2040, (y, m, d) => m === 2 && d === 29)],
  ['0 0 12 * * MON#5 2025/3', inYears((y) => y >= 2025 && (y - 2025) % 3 === 0, nth(1, 5))],
  ['0 0 12 * 2 SUN#L 2024,2027-2029', inYears((y) => y === 2024 || (y >= 2027 && y <= 2029), (y, m, d) => m === 2 && nth(0, 'L')(y, m, d))],
  ['30 0 12 15W * * 2026', inYears((y) => y === 2026, (y, m, d) => {
    for (const c of [15, 14, 16]) if (dow(y, m, c) >= 1 && dow(y, m, c) <= 5) return d === c;
    return false;
  })],
];

/** The next `count` slots after `from`, by testing every day from there on (up to 60 years). */
function reference(expr: string, day: DayTest, zone: string, from: DateTime, count: number): string[] {
  const [second, minute, hour] = expr.split(' ').map(Number);
  const out: string[] = [];
  // Each calendar day in the zone from `from`'s own on, stepped as dates (a day is not always 24 h there).
  const first = from.setZone(zone);
  const end = Date.UTC(first.year + 60, first.month - 1, first.day);
  for (let c = Date.UTC(first.year, first.month - 1, first.day); out.length < count && c < end; c += 86_400_000) {
    const t = new Date(c);
    const [year, month, date] = [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
    if (!day(year, month, date)) continue;
    const at = DateTime.fromObject({ year, month, day: date, hour, minute, second }, { zone });
    if (at.toMillis() > from.toMillis()) out.push(at.toUTC().toISO({ suppressMilliseconds: true })!);
  }
  return out;
}

const iso = (d: Date) => d.toISOString().replace('.000Z', 'Z');
const days = (expr: string, from: string, n: number) => nextSlots(expr, 'UTC', new Date(from), n).map((d) => d.toISOString().slice(0, 10));

describe('#L, # on ranges and the year field against the brute-force reference', () => {
  for (const start of ['2023-12-15T00:00:00Z', '2027-11-20T00:00:00Z']) {
    for (const zone of ZONES) {
      it.each(CASES)(`%s from ${start.slice(0, 10)} in ${zone}`, (expr, day) => {
        const from = DateTime.fromISO(start, { zone: 'utc' });
        const count = 24;
        const got = nextSlots(expr, zone, from.toJSDate(), count).map(iso);
        expect(got).toEqual(reference(expr, day, zone, from, count));
      });
    }
  }
});

describe("croner's vectors", () => {
  // test/pattern.test.ts: from 2023-12-30 (1703891808380) and 2023-08-09 (1691536579072).
  it.each([
    ['0 0 0 * 2 SUN#L', 1703891808380, ['2024-02-25']],
    ['0 0 0 * 2 THU#L', 1703891808380, ['2024-02-29']],
    ['0 0 0 * 2 FRI#L', 1703891808380, ['2024-02-23']],
    ['0 0 0 * 2 THU-FRI#L', 1703891808380, ['2024-02-23']],
    ['0 0 0 * * SAT-SUN#L,SUN#1', 1691536579072, ['2023-08-26', '2023-08-27', '2023-09-03', '2023-09-24', '2023-09-30']],
    ['0 0 0 * * SUN-MON#3,MON-TUE#1', 1691536579072, ['2023-08-20', '2023-08-21', '2023-09-04', '2023-09-05']],
  ] as const)('%s', (expr, from, expected) => {
    expect(days(expr, new Date(from).toISOString(), expected.length)).toEqual(expected);
  });

  // test/new-edge-cases.test.ts, test/ocps-1.3.test.ts, test/impossible-patterns.test.ts.
  it('the year field: steps on a range, lists, 1-9999/2, and years that are past', () => {
    expect(days('0 0 0 1 1 * 2024-2030/2', '2023-12-31T00:00:00Z', 5)).toEqual(['2024-01-01', '2026-01-01', '2028-01-01', '2030-01-01']);
    expect(days('0 0 0 1 1 * 2024,2026,2028', '2023-12-31T00:00:00Z', 4)).toEqual(['2024-01-01', '2026-01-01', '2028-01-01']);
    expect(days('0 0 0 1 1 * 1-9999/2', '2024-01-01T00:00:01Z', 3)).toEqual(['2025-01-01', '2027-01-01', '2029-01-01']);
    expect(days('* * * * * * 2014', '2025-06-01T00:00:00Z', 1)).toEqual([]);
    expect(days('0 0 1 1 * * 2010-2015', '2025-06-01T00:00:00Z', 1)).toEqual([]);
    expect(days('0 0 1 1 * * 2030', '2025-06-01T00:00:00Z', 1)).toEqual(['2030-01-01']);
    expect(days('15 30 12 * * * 2025', '2025-12-31T00:00:00Z', 3)).toEqual(['2025-12-31']);
    // "*/2" in the year: croner refuses it (it would start at year 0).
    expect(thrownBy(() => parseCronExpression('0 0 0 1 1 * */2'))).toMatchObject({ code: 'INVALID_CRON_EXPRESSION' });
  });

  it('a year far ahead is found, past the 30-year horizon of other expressions', () => {
    expect(nextSlots('0 0 0 1 1 * 2090', 'UTC', new Date('2026-01-01T00:00:00Z'), 2).map(iso)).toEqual(['2090-01-01T00:00:00Z']);
    expect(days('0 0 0 29 2 * 2100-2200', '2026-01-01T00:00:00Z', 2)).toEqual(['2104-02-29', '2108-02-29']);
    expect(days('0 0 0 1 1 * 9998-9999', '9997-06-01T00:00:00Z', 3)).toEqual(['9998-01-01', '9999-01-01']);
  });
});

describe('lastSlot: the last slot of a year-bounded schedule', () => {
  it.each([
    ['* * * * * * 2026', 'UTC', '2026-12-31T23:59:59Z'],
    ['0 30 1 * * * 2026', 'America/New_York', '2026-12-31T06:30:00Z'],
    ['0 0 0 29 2 * 2024-2030', 'UTC', '2028-02-29T00:00:00Z'],
    ['* * * 1-30 12 * 2026-9999', 'UTC', '9999-12-30T23:59:59Z'],
    ['0 0 12 * * SUN#L 2026,2027', 'Europe/Berlin', '2027-12-26T11:00:00Z'],
    ['*/30 * 1 * 11 * 2026', 'America/New_York', '2026-11-30T06:59:30Z'], // 01:59:30 EST
    ['0 0 0 1 1 * 1-9999/2', 'UTC', '9999-01-01T00:00:00Z'],
  ])('%s in %s ends at %s', (expression, zone, last) => {
    expect(iso(lastSlot(expression, zone)!)).toBe(last);
  });

  it('is the last of all the slots, checked by enumerating them', () => {
    for (const [expression] of CASES) {
      const years = parseCronExpression(expression).years;
      if (years === null || years[years.length - 1] > 2045) continue;
      for (const zone of ZONES) {
        const all = slotsBetween(expression, zone, new Date(Date.UTC(years[0] - 1, 11, 1)), new Date(Date.UTC(years[years.length - 1] + 1, 1, 1)), 100_000);
        expect(all.length, expression).toBeGreaterThan(0);
        expect(iso(lastSlot(expression, zone)!), `${expression} in ${zone}`).toBe(iso(all[all.length - 1]));
      }
    }
  });

  it('is null without a year field, or with *', () => {
    expect(lastSlot('0 9 * * *', 'UTC')).toBeNull();
    expect(lastSlot('0 0 9 * * * *', 'UTC')).toBeNull();
  });
});

describe('field counts: 5, 6 (seconds first) and 7 (seconds first, year last)', () => {
  it('6 fields keep meaning seconds first; 7 add the year', () => {
    const six = parseCronExpression('30 0 9 * * *');
    expect([six.hasSeconds, six.hasYear, six.seconds, six.minutes, six.hours, six.years]).toEqual([true, false, [30], [0], [9], null]);
    const seven = parseCronExpression('30 0 9 * * * 2026-2028');
    expect([seven.hasSeconds, seven.hasYear, seven.seconds, seven.minutes, seven.hours, seven.years]).toEqual([true, true, [30], [0], [9], [2026, 2027, 2028]]);
    const five = parseCronExpression('0 9 * * *');
    expect([five.hasSeconds, five.hasYear, five.years]).toEqual([false, false, null]);
  });

  it('a year field of * means what the 6 fields without it mean', () => {
    const from = new Date('2026-03-01T00:00:00Z');
    for (const [seven, six] of [['0 0 0 * * * *', '0 0 0 * * *'], ['*/20 * * 1W * MON#1 *', '*/20 * * 1W * MON#1']]) {
      expect(nextSlots(seven, 'Europe/Berlin', from, 50)).toEqual(nextSlots(six, 'Europe/Berlin', from, 50));
    }
  });

  it('names, neighbours and the parsed rules', () => {
    expect(parseCronExpression('0 0 * * SUN#L').dayRules).toMatchObject({ lastOfWeekdays: [0], nthWeekdays: [] });
    expect(parseCronExpression('0 0 * * SAT-SUN#L,SUN#1').dayRules).toMatchObject({ lastOfWeekdays: [0, 6], nthWeekdays: [[0, 1]] });
    expect(parseCronExpression('0 0 * * SUN-MON#3,MON-TUE#1,1#1').dayRules.nthWeekdays).toEqual([[0, 3], [1, 3], [1, 1], [2, 1]]);
    expect(parseCronExpression('0 0 * * SAT-SUN').daysOfWeek).toEqual([0, 6]);
    expect(parseCronExpression('0 0 0 1 1 * 2026/1000').years).toEqual([2026, 3026, 4026, 5026, 6026, 7026, 8026, 9026]);
  });
});

describe('rejected, with INVALID_CRON_EXPRESSION and a message that says why', () => {
  it.each([
    ['0 0 0 1 1 * */2', 'no agreed first year'],
    ['0 0 0 1 1 * */5', 'write it, e.g. "2026/2"'],
    ['0 0 0 1 1 * 0', 'year field "0": 0 is out of range 1-9999'],
    ['0 0 0 1 1 * 10000', 'out of range 1-9999'],
    ['0 0 0 1 1 * 2030-2025', 'range "2030-2025" is reversed'],
    ['0 0 0 1 1 * ?', '"?" is only allowed in the day-of-month and day-of-week fields'],
    ['0 0 0 1 1 * L', 'only allowed in the day-of-month'],
    ['0 0 0 1 1 * 2024,', 'empty list item'],
    ['0 0 0 1 1 * 2024 1', 'got 8'],
    ['0 0 * * SUN#6', 'n#k takes k from 1 to 5'],
    ['0 0 * * SUN#0', 'n#k takes k from 1 to 5'],
    ['0 0 * * SUN#', 'is not nL or n#k'],
    ['0 0 * * #L', 'is not nL or n#k'],
    ['0 0 * * 8#L', 'is not a day of the week'],
    ['0 0 * * SUN#L#1', 'only allowed in the day-of-month'],
    ['0 0 * * FRI-MON#L', 'reversed'],
    ['0 0 L#1 * *', 'is not L, L-n, nW or LW'],
    // Never fire: no allowed day in any allowed year.
    ['0 0 0 29 2 * 2025', 'can never fire'],
    ['0 0 0 29 2 * 2097-2103', 'can never fire'], // 2100 is not a leap year
    ['0 0 0 * 2 MON#5 2026', 'can never fire'],
    ['0 0 0 31 4 * 2024-2030', 'can never fire'],
  ])('%j (%s)', (expression, fragment) => {
    const error = thrownBy(() => parseCronExpression(expression));
    expect(error).toBeInstanceOf(CronqlError);
    expect((error as CronqlError).code).toBe('INVALID_CRON_EXPRESSION');
    expect((error as CronqlError).message).toContain(fragment);
  });

  it.each([
    '0 0 0 29 2 * 2024', // a leap year
    '0 0 0 29 2 * 2100-2104', // 2104 is one
    '0 0 0 * 2 MON#5 2016', // February 2016 had five Mondays
    '0 0 0 30 2 MON 2026', // day 30 never, but OR-ed with Mondays
  ])('%s can fire, so it is accepted', (expression) => {
    expect(() => parseCronExpression(expression)).not.toThrow();
  });
});
