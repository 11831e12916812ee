import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { nextSlots, parseCronExpression } from '../../src/schedule/index.js';

/**
 * L, W and # checked against a brute-force reference written independently of the slot math:
 * every calendar day of several years is tested with the plain definitions (the last day of the
 * month, the weekday nearest a day without leaving the month, the k-th weekday), and the local
 * time of day is placed in the zone by luxon — in UTC and in two DST zones.
 */
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin'];

type DayTest = (y: number, m: number, d: number) => boolean;
const dim = (y: number, m: number) => DateTime.utc(y, m, 1).daysInMonth!;
const dow = (y: number, m: number, d: number) => DateTime.utc(y, m, d).weekday % 7; // 0 = Sunday
const isWeekday = (y: number, m: number, d: number) => dow(y, m, d) >= 1 && dow(y, m, d) <= 5;

/** The weekday nearest day n of the month, by search: the closest weekday in the month, earlier first on a tie. */
function nearestWeekdayRef(y: number, m: number, n: number): number | null {
  if (n > dim(y, m)) return null;
  for (let distance = 0; distance < 4; distance++) {
    for (const d of [n - distance, n + distance]) if (d >= 1 && d <= dim(y, m) && isWeekday(y, m, d)) return d;
  }
  return null;
}

const CASES: [expr: string, day: DayTest][] = [
  ['0 12 L * *', (y, m, d) => d === dim(y, m)],
  ['0 12 L-1 * *', (y, m, d) => d === dim(y, m) - 1],
  ['30 9 L-3 * *', (y, m, d) => d === dim(y, m) - 3],
  ['0 12 LW * *', (y, m, d) => {
    let last = dim(y, m);
    while (!isWeekday(y, m, last)) last--;
    return d === last;
  }],
  ['0 12 15W * *', (y, m, d) => d === nearestWeekdayRef(y, m, 15)],
  ['0 12 1W * *', (y, m, d) => d === nearestWeekdayRef(y, m, 1)],
  ['0 12 31W * *', (y, m, d) => d === nearestWeekdayRef(y, m, 31)],
  ['0 12 30W * *', (y, m, d) => d === nearestWeekdayRef(y, m, 30)],
  ['0 12 * * 5L', (y, m, d) => dow(y, m, d) === 5 && d + 7 > dim(y, m)],
  ['0 12 * * FRIL', (y, m, d) => dow(y, m, d) === 5 && d + 7 > dim(y, m)],
  ['0 12 * * 0L', (y, m, d) => dow(y, m, d) === 0 && d + 7 > dim(y, m)],
  ['0 12 * * 1#1', (y, m, d) => dow(y, m, d) === 1 && d <= 7],
  ['30 9 * * MON#2', (y, m, d) => dow(y, m, d) === 1 && d > 7 && d <= 14],
  ['0 12 * * 4#5', (y, m, d) => dow(y, m, d) === 4 && d > 28], // months without a fifth Thursday are skipped
  ['0 12 * * 1#1,5L', (y, m, d) => (dow(y, m, d) === 1 && d <= 7) || (dow(y, m, d) === 5 && d + 7 > dim(y, m))],
  ['0 12 1,L * *', (y, m, d) => d === 1 || d === dim(y, m)],
  ['0 12 L 2 *', (y, m, d) => m === 2 && d === dim(y, m)], // 28 or 29
  // Both day fields restricted: either may match (as for plain values).
  ['0 12 L * 1#1', (y, m, d) => d === dim(y, m) || (dow(y, m, d) === 1 && d <= 7)],
];

function reference(expr: string, day: DayTest, zone: string, from: DateTime, count: number): string[] {
  const [minute, hour] = expr.split(' ').map(Number);
  const out: string[] = [];
  for (let t = from.setZone(zone).startOf('day'); out.length < count; t = t.plus({ days: 1 })) {
    if (!day(t.year, t.month, t.day)) continue;
    const at = DateTime.fromObject({ year: t.year, month: t.month, day: t.day, hour, minute }, { zone });
    if (at.toMillis() > from.toMillis()) out.push(at.toUTC().toISO({ suppressMilliseconds: true })!);
  }
  return out;
}

describe('L, W and # against the brute-force reference', () => {
  // 2024 and 2028 are leap years, 2100 is not; each run covers several years of months.
  for (const start of ['2023-12-15T00:00:00Z', '2027-11-20T00:00:00Z', '2099-12-01T00:00:00Z']) {
    for (const zone of ZONES) {
      it.each(CASES)(`%s from ${start.slice(0, 10)} in ${zone}`, (expr, day) => {
        const from = DateTime.fromISO(start, { zone: 'utc' });
        const count = expr.includes('#5') ? 8 : 30;
        const got = nextSlots(expr, zone, from.toJSDate(), count).map((d) => d.toISOString().replace('.000Z', 'Z'));
        expect(got).toEqual(reference(expr, day, zone, from, count));
      });
    }
  }

  it('month ends and weekends, spelled out', () => {
    const days = (expr: string, from: string, n: number) => nextSlots(expr, 'UTC', new Date(from), n).map((d) => d.toISOString().slice(0, 10));
    expect(days('0 0 L 2 *', '2024-01-01T00:00:00Z', 2)).toEqual(['2024-02-29', '2025-02-28']);
    expect(days('0 0 L 2 *', '2100-01-01T00:00:00Z', 1)).toEqual(['2100-02-28']);
    expect(days('0 0 L * *', '2026-04-01T00:00:00Z', 3)).toEqual(['2026-04-30', '2026-05-31', '2026-06-30']);
    // 2026-08-01 is a Saturday: 1W is Monday the 3rd, not Friday July 31st.
    expect(days('0 0 1W * *', '2026-07-15T00:00:00Z', 1)).toEqual(['2026-08-03']);
    // 2026-05-31 is a Sunday: 31W is Friday the 29th; LW too.
    expect(days('0 0 31W * *', '2026-05-15T00:00:00Z', 1)).toEqual(['2026-05-29']);
    expect(days('0 0 LW * *', '2026-05-15T00:00:00Z', 1)).toEqual(['2026-05-29']);
    // 31W in a 30-day month does not fire that month.
    expect(days('0 0 31W * *', '2026-06-01T00:00:00Z', 1)).toEqual(['2026-07-31']);
    // A fifth Monday: 2026 has them in March, June, August, November.
    expect(days('0 0 * * 1#5', '2026-01-01T00:00:00Z', 4)).toEqual(['2026-03-30', '2026-06-29', '2026-08-31', '2026-11-30']);
  });

  it('parses into plain data, frozen', () => {
    const cron = parseCronExpression('0 0 L-2,15W * 5L');
    expect(cron.dayRules).toEqual({ lastDayOffsets: [2], nearestWeekdays: [15], lastWeekday: false, lastOfWeekdays: [5], nthWeekdays: [] });
    expect(Object.isFrozen(cron.dayRules)).toBe(true);
    expect(cron.daysOfMonthWildcard).toBe(false);
  });
});
