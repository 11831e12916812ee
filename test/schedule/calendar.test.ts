import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import {
  excludedSpan,
  exclusionAmong,
  exclusionOf,
  lastDateOf,
  runsOutSoon,
  validateCalendarRules,
  type CalendarRules,
  type CalendarRulesInput,
} from '../../src/schedule/calendar.js';
import { thrownBy as thrown } from '../support/thrown.js';

const MIN = 60_000;
const DAY = 86_400_000;

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const calendar = (rules: Partial<CalendarRulesInput>): CalendarRules => validateCalendarRules({ name: 'c', ...rules });
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

/**
 * The reference: every minute of a stretch of real time with the wall clock's reading (luxon,
 * not cronql's WallClock), and "the first instant the clock reads L or later" found by scanning.
 */
function reference(zone: string, from: number, until: number) {
  const minutes: number[] = [];
  const readings: number[] = [];
  for (let t = from; t < until; t += MIN) {
    const d = DateTime.fromMillis(t, { zone });
    minutes.push(t);
    readings.push(Date.UTC(d.year, d.month - 1, d.day, d.hour, d.minute));
  }
  // The highest reading so far: the first instant reading L or later is the first whose running
  // maximum reaches L (a binary search); after a given instant, a scan from there.
  const highest: number[] = [];
  for (const r of readings) highest.push(Math.max(r, highest.length ? highest[highest.length - 1] : -Infinity));
  const firstReading = (local: number, after?: number): number => {
    if (after !== undefined) {
      for (let i = (after - from) / MIN; i < minutes.length; i++) if (readings[i] >= local) return minutes[i];
      throw new Error('reference range too short');
    }
    let lo = 0;
    let hi = minutes.length - 1;
    if (highest[hi] < local || highest[0] >= local) throw new Error('reference range too short');
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (highest[mid] >= local) hi = mid;
      else lo = mid;
    }
    return minutes[hi];
  };
  /** Whether the daily window [start, end) (minutes of the day) excludes `t`, by the definition. */
  const inDaily = (start: number, end: number, t: number): boolean => {
    const day0 = Math.floor(t / DAY) - 2;
    for (let day = day0; day < day0 + 4; day++) {
      const open = firstReading(day * DAY + start * MIN);
      const close = firstReading(day * DAY + end * MIN + (end <= start ? DAY : 0), open);
      if (open <= t && t < close) return true;
    }
    return false;
  };
  /** Whether the local day `date` (YYYY-MM-DD) excludes `t`. */
  const inDay = (date: string, t: number): boolean => {
    const local = Date.parse(`${date}T00:00:00Z`);
    return firstReading(local) <= t && t < firstReading(local + DAY);
  };
  return { inDaily, inDay };
}

/** Stretches of time around DST changes (and a zone without DST), with room for the reference. */
const AROUND = [
  ['America/New_York', '2026-03-08T00:00:00Z'],
  ['America/New_York', '2026-11-01T00:00:00Z'],
  ['Europe/Berlin', '2026-03-29T00:00:00Z'],
  ['Europe/Berlin', '2026-10-25T00:00:00Z'],
  ['Australia/Lord_Howe', '2026-04-05T00:00:00Z'], // a half-hour change
  ['America/Santiago', '2026-04-05T00:00:00Z'], // changes at midnight
  ['America/Santiago', '2026-09-06T00:00:00Z'],
  ['Asia/Kolkata', '2026-06-01T00:00:00Z'],
] as const;

describe('daily windows, against a brute-force reference', () => {
  it('agree with the definition on generated windows and instants around DST changes', () => {
    const next = random(26);
    let checked = 0;
    let excluded = 0;
    for (const [zone, around] of AROUND) {
      const center = Date.parse(around);
      const ref = reference(zone, center - 4 * DAY, center + 5 * DAY);
      for (let w = 0; w < 12; w++) {
        // Times near the changes (00:00–04:00) half of the time: the cases DST can break.
        const pick = () => (next() < 0.5 ? Math.floor(next() * 240) : Math.floor(next() * 1440));
        const start = pick();
        let end = pick();
        if (end === start) end = (start + 30) % 1440;
        const cal = calendar({ timezone: zone, dailyWindows: [{ start: hhmm(start), end: hhmm(end) }] });
        for (let k = 0; k < 40; k++) {
          const t = center - DAY + Math.floor(next() * 3 * DAY / MIN) * MIN;
          const expected = ref.inDaily(start, end, t);
          const got = exclusionOf(cal, t) !== null;
          if (got !== expected) throw new Error(`${zone} daily ${hhmm(start)}-${hhmm(end)} at ${new Date(t).toISOString()}: expected ${expected}`);
          checked++;
          if (expected) excluded++;
        }
      }
    }
    expect(checked).toBe(AROUND.length * 12 * 40);
    expect(excluded).toBeGreaterThan(checked / 10);
  });

  it('a local day (dates, yearly) is the stretch between two first readings of 00:00', () => {
    const next = random(27);
    for (const [zone, around] of AROUND) {
      const center = Date.parse(around);
      const ref = reference(zone, center - 4 * DAY, center + 5 * DAY);
      const day = DateTime.fromMillis(center, { zone }).toISODate()!;
      const cal = calendar({ timezone: zone, dates: [day], yearly: [] });
      const yearlyCal = calendar({ timezone: zone, yearly: [day.slice(5)] });
      for (let k = 0; k < 60; k++) {
        const t = center - DAY + Math.floor(next() * 3 * DAY / MIN) * MIN;
        const expected = ref.inDay(day, t);
        expect(exclusionOf(cal, t) !== null, `${zone} ${day} at ${new Date(t).toISOString()}`).toBe(expected);
        expect(exclusionOf(yearlyCal, t) !== null).toBe(expected);
      }
    }
  });

  it('on the spring-forward day, 01:30–02:30 in New York is the half hour before the jump', () => {
    const cal = calendar({ timezone: 'America/New_York', dailyWindows: [{ start: '01:30', end: '02:30' }] });
    // 01:30 EST = 06:30Z; the clock jumps at 07:00Z from 02:00 EST to 03:00 EDT.
    expect(exclusionOf(cal, Date.parse('2026-03-08T06:29:59Z'))).toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-03-08T06:30:00Z'))).toEqual({ calendar: 'c', rule: 'daily 01:30-02:30' });
    expect(exclusionOf(cal, Date.parse('2026-03-08T06:59:59Z'))).not.toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-03-08T07:00:00Z'))).toBeNull(); // 03:00 EDT
    // On the fall-back day it is one stretch of two hours: 01:30 EDT (05:30Z) to 02:30 EST (07:30Z),
    // the repeated 01:00–01:30 EST included.
    expect(exclusionOf(cal, Date.parse('2026-11-01T05:29:59Z'))).toBeNull();
    for (const t of ['05:30', '06:00', '06:15', '06:45', '07:29']) expect(exclusionOf(cal, Date.parse(`2026-11-01T${t}:00Z`)), t).not.toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-11-01T07:30:00Z'))).toBeNull();
  });

  it('a window crossing midnight runs from one local day into the next', () => {
    const cal = calendar({ timezone: 'Europe/Berlin', dailyWindows: [{ start: '22:00', end: '06:00', reason: 'backups' }] });
    // 22:00 CET = 21:00Z; 06:00 CET = 05:00Z.
    expect(exclusionOf(cal, Date.parse('2026-01-14T20:59:00Z'))).toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-01-14T21:00:00Z'))).toEqual({ calendar: 'c', rule: 'daily 22:00-06:00 (backups)' });
    expect(exclusionOf(cal, Date.parse('2026-01-14T23:30:00Z'))).not.toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-01-15T04:59:59Z'))).not.toBeNull();
    expect(exclusionOf(cal, Date.parse('2026-01-15T05:00:00Z'))).toBeNull();
    expect(excludedSpan([cal], Date.parse('2026-01-15T02:00:00Z'))).toEqual({ start: Date.parse('2026-01-14T21:00:00Z'), end: Date.parse('2026-01-15T05:00:00Z') });
  });
});

describe('rules, their text and spans', () => {
  const holidays = calendar({
    name: 'us-holidays',
    timezone: 'America/New_York',
    dates: ['2026-11-26', '2026-12-25'],
    yearly: ['01-01'],
    windows: [{ from: new Date('2026-12-20T00:00:00Z'), to: new Date('2027-01-03T00:00:00Z'), reason: 'freeze' }],
  });

  it('names the calendar and the first rule that excludes', () => {
    expect(exclusionOf(holidays, new Date('2026-11-26T15:00:00Z'))).toEqual({ calendar: 'us-holidays', rule: 'date 2026-11-26' });
    expect(exclusionOf(holidays, new Date('2026-11-27T04:59:59Z'))).toEqual({ calendar: 'us-holidays', rule: 'date 2026-11-26' }); // 23:59:59 EST
    expect(exclusionOf(holidays, new Date('2026-11-27T05:00:00Z'))).toBeNull();
    expect(exclusionOf(holidays, new Date('2026-12-25T12:00:00Z'))).toEqual({ calendar: 'us-holidays', rule: 'date 2026-12-25' });
    expect(exclusionOf(holidays, new Date('2026-12-22T12:00:00Z'))).toEqual({
      calendar: 'us-holidays',
      rule: 'window 2026-12-20T00:00:00.000Z/2027-01-03T00:00:00.000Z (freeze)',
    });
    expect(exclusionOf(holidays, new Date('2028-01-01T12:00:00Z'))).toEqual({ calendar: 'us-holidays', rule: 'yearly 01-01' });
    expect(exclusionOf(holidays, new Date('2027-01-03T00:00:00Z'))).toBeNull(); // window's end is exclusive; 2027-01-02 19:00 EST
  });

  it('a span joins stretches that touch, across calendars', () => {
    const weekend = calendar({ name: 'w', timezone: 'America/New_York', dates: ['2026-11-27'] });
    expect(exclusionAmong([weekend, holidays], new Date('2026-11-26T15:00:00Z'))).toEqual({ calendar: 'us-holidays', rule: 'date 2026-11-26' });
    expect(excludedSpan([weekend, holidays], new Date('2026-11-27T15:00:00Z'))).toEqual({
      start: Date.parse('2026-11-26T05:00:00Z'),
      end: Date.parse('2026-11-28T05:00:00Z'),
    });
    expect(excludedSpan([weekend], new Date('2026-11-26T15:00:00Z'))).toBeNull();
    // Two daily windows covering the whole day exclude all time: the span has no end.
    const always = calendar({ dailyWindows: [{ start: '00:00', end: '12:00' }, { start: '12:00', end: '00:00' }] });
    expect(excludedSpan([always], new Date('2026-01-01T00:00:00Z'))).toEqual({ start: null, end: null });
  });

  it('02-29 is a yearly day of leap years only', () => {
    const leap = calendar({ yearly: ['02-29'] });
    expect(exclusionOf(leap, new Date('2028-02-29T12:00:00Z'))).not.toBeNull();
    expect(exclusionOf(leap, new Date('2027-02-28T12:00:00Z'))).toBeNull();
    expect(exclusionOf(leap, new Date('2027-03-01T12:00:00Z'))).toBeNull();
  });

  it('lastDate: the latest dated exclusion, and whether it comes within 60 days', () => {
    expect(lastDateOf(holidays)).toBe('2027-01-02'); // the freeze ends at 2027-01-02 19:00 local
    expect(lastDateOf(calendar({ yearly: ['12-25'], dailyWindows: [{ start: '01:00', end: '02:00' }] }))).toBeNull();
    expect(runsOutSoon(holidays, new Date('2026-10-01T00:00:00Z'))).toBe(false); // 93 days ahead
    expect(runsOutSoon(holidays, new Date('2026-11-10T00:00:00Z'))).toBe(true);
    expect(runsOutSoon(holidays, new Date('2027-06-01T00:00:00Z'))).toBe(true); // past
    expect(runsOutSoon(calendar({ yearly: ['12-25'] }), new Date('2026-12-24T00:00:00Z'))).toBe(false);
  });
});

describe('validation', () => {
  it('refuses every generated bad input with a clear code naming the field', () => {
    const cases: [Partial<CalendarRulesInput>, string, string][] = [
      [{ name: '' }, 'BAD_USER_INPUT', 'name'],
      [{ name: '-x' }, 'BAD_USER_INPUT', 'name'],
      [{ name: 'a'.repeat(65) }, 'BAD_USER_INPUT', 'name'],
      [{ name: 'has space' }, 'BAD_USER_INPUT', 'name'],
      [{ name: 7 }, 'BAD_USER_INPUT', 'name'],
      [{ timezone: 'Mars/Olympus' }, 'INVALID_TIMEZONE', 'timezone'],
      [{ timezone: '+02:00' }, 'INVALID_TIMEZONE', 'timezone'],
      ...['2026-02-30', '2026-13-01', '2026-00-10', '26-12-25', '2026-12-25T00:00', '1969-12-31', '', 'tomorrow', '2026-2-3'].map(
        (d): [Partial<CalendarRulesInput>, string, string] => [{ dates: ['2026-12-25', d] }, 'BAD_USER_INPUT', 'dates[1]'],
      ),
      ...['02-30', '13-01', '00-01', '04-31', '12-25-2026', '1225', '12/25'].map(
        (d): [Partial<CalendarRulesInput>, string, string] => [{ yearly: [d] }, 'BAD_USER_INPUT', 'yearly[0]'],
      ),
      ...['25:00', '24:00', '12:60', '9:00', '09:00:00', 'noon', ''].map(
        (t): [Partial<CalendarRulesInput>, string, string] => [{ dailyWindows: [{ start: t, end: '10:00' }] }, 'BAD_USER_INPUT', 'dailyWindows[0].start'],
      ),
      ...['25:00', '24:01', '10:5'].map(
        (t): [Partial<CalendarRulesInput>, string, string] => [{ dailyWindows: [{ start: '09:00', end: t }] }, 'BAD_USER_INPUT', 'dailyWindows[0].end'],
      ),
      [{ dailyWindows: [{ start: '09:00', end: '09:00' }] }, 'BAD_USER_INPUT', 'dailyWindows[0]'],
      [{ dailyWindows: [{ start: '00:00', end: '24:00' }] }, 'BAD_USER_INPUT', 'dailyWindows[0]'],
      [{ dailyWindows: [{ start: '09:00', end: '10:00', reason: 'x'.repeat(201) }] }, 'BAD_USER_INPUT', 'dailyWindows[0].reason'],
      [{ windows: [{ from: new Date('2026-12-02T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') }] }, 'BAD_USER_INPUT', 'windows[0]'],
      [{ windows: [{ from: new Date('2026-12-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') }] }, 'BAD_USER_INPUT', 'windows[0]'],
      [{ windows: [{ from: new Date(Number.NaN), to: new Date('2026-12-01T00:00:00Z') }] }, 'BAD_USER_INPUT', 'windows[0]'],
      [{ dates: Array.from({ length: 1001 }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * DAY).toISOString().slice(0, 10)) }, 'BAD_USER_INPUT', 'dates'],
      [{ windows: Array.from({ length: 201 }, (_, i) => ({ from: new Date(i * DAY), to: new Date(i * DAY + 1) })) }, 'BAD_USER_INPUT', 'windows'],
    ];
    for (const [input, code, field] of cases) {
      const err = thrown(() => validateCalendarRules({ name: 'ok', ...input }));
      expect(err, JSON.stringify(input).slice(0, 80)).toMatchObject({ code });
      if (code === 'BAD_USER_INPUT') expect((err as { details: { field: string } }).details.field).toBe(field);
    }
  });

  it('keeps good input, sorted and each once; canonical zone; 24:00 as an end', () => {
    expect(
      validateCalendarRules({
        name: 'ok.Name_1',
        timezone: 'america/new_york',
        dates: ['2026-12-25', '2026-11-26', '2026-12-25'],
        yearly: ['12-25', '01-01', '02-29'],
        dailyWindows: [{ start: '18:00', end: '24:00', reason: '' }],
      }),
    ).toEqual({
      name: 'ok.Name_1',
      timezone: 'America/New_York',
      dates: ['2026-11-26', '2026-12-25'],
      yearly: ['01-01', '02-29', '12-25'],
      dailyWindows: [{ start: '18:00', end: '24:00', reason: null }],
      windows: [],
    });
  });
});
