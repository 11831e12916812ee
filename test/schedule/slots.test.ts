import { DateTime, IANAZone } from 'luxon';
import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import {
  latestSlotBetween,
  nextSlot,
  nextSlots,
  parseCronExpression,
  slotsBetween,
  type CronExpression,
} from '../../src/schedule/index.js';

const NY = 'America/New_York';
const BERLIN = 'Europe/Berlin';
const LORD_HOWE = 'Australia/Lord_Howe';

const iso = (dates: Date[]): string[] => dates.map((d) => d.toISOString().replace('.000Z', 'Z'));
const next = (expression: string, zone: string, from: string, count: number): string[] =>
  iso(nextSlots(expression, zone, new Date(from), count));

describe('the DST transitions the tables below rely on (tzdata, read through luxon)', () => {
  it.each([
    // zone, last instant of the old offset + 1 min, offsets in minutes before → after
    [NY, '2026-03-08T07:00:00Z', -300, -240], // 02:00 EST → 03:00 EDT
    [NY, '2026-11-01T06:00:00Z', -240, -300], // 02:00 EDT → 01:00 EST
    [BERLIN, '2026-03-29T01:00:00Z', 60, 120], // 02:00 CET → 03:00 CEST
    [BERLIN, '2026-10-25T01:00:00Z', 120, 60], // 03:00 CEST → 02:00 CET
    [LORD_HOWE, '2026-10-03T15:30:00Z', 630, 660], // Oct 4 02:00 +10:30 → 02:30 +11
    [LORD_HOWE, '2026-04-04T15:00:00Z', 660, 630], // Apr 5 02:00 +11 → 01:30 +10:30
  ])('%s changes offset at %s', (zone, at, before, after) => {
    const instant = Date.parse(at);
    const z = IANAZone.create(zone);
    expect([z.offset(instant - 1000), z.offset(instant)]).toEqual([before, after]);
  });
});

describe('nextSlots: America/New_York', () => {
  it.each([
    // Spring forward, 2026-03-08 02:00 EST → 03:00 EDT.
    ['30 2 * * *', '2026-03-06T12:00:00Z', [
      '2026-03-07T07:30:00Z', // Mar 7 02:30 EST
      '2026-03-08T07:30:00Z', // Mar 8 02:30 does not exist → 03:30 EDT (not skipped)
      '2026-03-09T06:30:00Z', // Mar 9 02:30 EDT
    ]],
    ['30 1 * * *', '2026-03-07T12:00:00Z', [
      '2026-03-08T06:30:00Z', // Mar 8 01:30 EST, before the gap
      '2026-03-09T05:30:00Z', // Mar 9 01:30 EDT
    ]],
    ['*/30 * * * *', '2026-03-08T06:00:00Z', [
      '2026-03-08T06:30:00Z', // 01:30 EST
      '2026-03-08T07:00:00Z', // 02:00 → 03:00 EDT, the same instant as the real 03:00: one slot
      '2026-03-08T07:30:00Z', // 02:30 → 03:30 EDT, likewise
      '2026-03-08T08:00:00Z', // 04:00 EDT
    ]],
    ['0 * * * *', '2026-03-08T05:30:00Z', [
      '2026-03-08T06:00:00Z', // 01:00 EST
      '2026-03-08T07:00:00Z', // 02:00 → 03:00 EDT = real 03:00
      '2026-03-08T08:00:00Z', // 04:00 EDT
    ]],
    ['*/20 30 2 * * *', '2026-03-08T00:00:00Z', [
      '2026-03-08T07:30:00Z', // 02:30:00 → 03:30:00 EDT
      '2026-03-08T07:30:20Z', // 02:30:20 → 03:30:20 EDT
      '2026-03-08T07:30:40Z', // 02:30:40 → 03:30:40 EDT
      '2026-03-09T06:30:00Z', // Mar 9 02:30:00 EDT
    ]],
    // Fall back, 2026-11-01 02:00 EDT → 01:00 EST: 01:00–01:59 happens twice.
    ['30 1 * * *', '2026-10-31T12:00:00Z', [
      '2026-11-01T05:30:00Z', // 01:30 EDT, the first occurrence only (fixed hour)
      '2026-11-02T06:30:00Z', // Nov 2 01:30 EST
    ]],
    ['30 1 * * *', '2026-11-01T05:30:00Z', [
      '2026-11-02T06:30:00Z', // not 06:30Z on Nov 1 (01:30 EST, the second occurrence)
    ]],
    ['0 1,2 * * *', '2026-10-31T12:00:00Z', [
      '2026-11-01T05:00:00Z', // 01:00 EDT, once: a list of hours is a fixed hour
      '2026-11-01T07:00:00Z', // 02:00 EST
      '2026-11-02T06:00:00Z', // Nov 2 01:00 EST
    ]],
    ['30 2 * * *', '2026-10-31T12:00:00Z', [
      '2026-11-01T07:30:00Z', // 02:30 EST (exists once)
      '2026-11-02T07:30:00Z', // Nov 2 02:30 EST
    ]],
    ['*/30 * * * *', '2026-11-01T04:45:00Z', [
      '2026-11-01T05:00:00Z', // 01:00 EDT
      '2026-11-01T05:30:00Z', // 01:30 EDT
      '2026-11-01T06:00:00Z', // 01:00 EST
      '2026-11-01T06:30:00Z', // 01:30 EST
      '2026-11-01T07:00:00Z', // 02:00 EST
    ]],
    // Starting inside the repeated hour: the late 01:00 sorts after the early 01:30.
    ['*/30 * * * *', '2026-11-01T05:15:00Z', [
      '2026-11-01T05:30:00Z', // 01:30 EDT
      '2026-11-01T06:00:00Z', // 01:00 EST
    ]],
    // Starting at 01:45 EDT: the next slot is the second 01:00, a local time already passed.
    ['*/30 * * * *', '2026-11-01T05:45:00Z', [
      '2026-11-01T06:00:00Z', // 01:00 EST
      '2026-11-01T06:30:00Z', // 01:30 EST
    ]],
    ['0 * * * *', '2026-11-01T04:30:00Z', [
      '2026-11-01T05:00:00Z', // 01:00 EDT
      '2026-11-01T06:00:00Z', // 01:00 EST
      '2026-11-01T07:00:00Z', // 02:00 EST
      '2026-11-01T08:00:00Z', // 03:00 EST
    ]],
  ])('%s after %s', (expression, from, expected) => {
    expect(next(expression, NY, from, expected.length)).toEqual(expected);
  });

  it('keeps a steady 30-minute cadence through a whole year, both transitions included', () => {
    const slots = nextSlots('*/30 * * * *', NY, new Date('2026-01-01T04:30:00Z'), 365 * 48);
    expect(slots[0].toISOString()).toBe('2026-01-01T05:00:00.000Z'); // Jan 1 00:00 EST
    expect(slots.at(-1)?.toISOString()).toBe('2027-01-01T04:30:00.000Z'); // Dec 31 23:30 EST
    const steps = new Set(slots.slice(1).map((slot, i) => slot.getTime() - slots[i].getTime()));
    expect([...steps]).toEqual([30 * 60_000]);
  });
});

describe('nextSlots: Europe/Berlin', () => {
  it.each([
    // Spring forward, 2026-03-29 02:00 CET → 03:00 CEST.
    ['30 2 * * *', '2026-03-28T12:00:00Z', [
      '2026-03-29T01:30:00Z', // 02:30 does not exist → 03:30 CEST
      '2026-03-30T00:30:00Z', // Mar 30 02:30 CEST
    ]],
    ['0 * * * *', '2026-03-28T23:30:00Z', [
      '2026-03-29T00:00:00Z', // 01:00 CET
      '2026-03-29T01:00:00Z', // 02:00 → 03:00 CEST = real 03:00
      '2026-03-29T02:00:00Z', // 04:00 CEST
    ]],
    // Fall back, 2026-10-25 03:00 CEST → 02:00 CET: 02:00–02:59 happens twice.
    ['30 2 * * *', '2026-10-24T12:00:00Z', [
      '2026-10-25T00:30:00Z', // 02:30 CEST, first occurrence only
      '2026-10-26T01:30:00Z', // Oct 26 02:30 CET
    ]],
    ['*/30 * * * *', '2026-10-24T23:45:00Z', [
      '2026-10-25T00:00:00Z', // 02:00 CEST
      '2026-10-25T00:30:00Z', // 02:30 CEST
      '2026-10-25T01:00:00Z', // 02:00 CET
      '2026-10-25T01:30:00Z', // 02:30 CET
      '2026-10-25T02:00:00Z', // 03:00 CET
    ]],
  ])('%s after %s', (expression, from, expected) => {
    expect(next(expression, BERLIN, from, expected.length)).toEqual(expected);
  });
});

describe('nextSlots: Australia/Lord_Howe (30-minute DST shift)', () => {
  it.each([
    // Spring forward, 2026-10-04 02:00 +10:30 → 02:30 +11.
    ['15 2 * * *', '2026-10-02T12:00:00Z', [
      '2026-10-02T15:45:00Z', // Oct 3 02:15 +10:30
      '2026-10-03T15:45:00Z', // Oct 4 02:15 does not exist → 02:45 +11
      '2026-10-04T15:15:00Z', // Oct 5 02:15 +11
    ]],
    // A shifted time lands after a later real one: local order 02:00, 02:20, 02:40 gives
    // instants 15:30, 15:50, 15:40, so the first two slots are 15:30 and 15:40.
    ['*/20 2 * * *', '2026-10-03T12:00:00Z', [
      '2026-10-03T15:30:00Z', // 02:00 → 02:30 +11
      '2026-10-03T15:40:00Z', // 02:40 +11
    ]],
    ['*/20 2 * * *', '2026-10-03T12:00:00Z', [
      '2026-10-03T15:30:00Z', // 02:00 → 02:30 +11
      '2026-10-03T15:40:00Z', // 02:40 +11
      '2026-10-03T15:50:00Z', // 02:20 → 02:50 +11
      '2026-10-04T15:00:00Z', // Oct 5 02:00 +11
    ]],
    // Fall back, 2026-04-05 02:00 +11 → 01:30 +10:30: 01:30–01:59 happens twice.
    ['45 1 * * *', '2026-04-04T12:00:00Z', [
      '2026-04-04T14:45:00Z', // Apr 5 01:45 +11, first occurrence only
      '2026-04-05T15:15:00Z', // Apr 6 01:45 +10:30
    ]],
    ['*/15 * * * *', '2026-04-04T14:10:00Z', [
      '2026-04-04T14:15:00Z', // 01:15 +11
      '2026-04-04T14:30:00Z', // 01:30 +11
      '2026-04-04T14:45:00Z', // 01:45 +11
      '2026-04-04T15:00:00Z', // 01:30 +10:30
      '2026-04-04T15:15:00Z', // 01:45 +10:30
      '2026-04-04T15:30:00Z', // 02:00 +10:30
    ]],
  ])('%s after %s', (expression, from, expected) => {
    expect(next(expression, LORD_HOWE, from, expected.length)).toEqual(expected);
  });
});

describe('nextSlots: UTC, seconds, day rules', () => {
  it.each([
    // expression, zone, from, expected (local time = UTC unless noted)
    ['*/5 * * * * *', 'UTC', '2026-01-01T00:00:00Z', [
      '2026-01-01T00:00:05Z', '2026-01-01T00:00:10Z', '2026-01-01T00:00:15Z',
    ]],
    // Sub-second `from`: slots stay on whole seconds and strictly after.
    ['*/5 * * * * *', 'UTC', '2026-01-01T00:00:04.999Z', ['2026-01-01T00:00:05Z']],
    ['30 15 10 * * *', 'UTC', '2026-01-01T12:00:00Z', ['2026-01-02T10:15:30Z']],
    ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', [
      '2028-02-29T00:00:00Z', '2032-02-29T00:00:00Z', '2036-02-29T00:00:00Z',
    ]],
    ['0 0 29 2 *', 'UTC', '2096-03-01T00:00:00Z', ['2104-02-29T00:00:00Z']], // 2100 is no leap year
    ['0 0 29 2 *', BERLIN, '2026-01-01T00:00:00Z', ['2028-02-28T23:00:00Z']], // Feb 29 00:00 CET
    ['@yearly', NY, '2026-06-01T00:00:00Z', ['2027-01-01T05:00:00Z']], // Jan 1 00:00 EST
    ['0 0 31 * *', 'UTC', '2026-04-01T00:00:00Z', ['2026-05-31T00:00:00Z', '2026-07-31T00:00:00Z']],
    // dom only, dow only, and both (Vixie: either matches). Mar 1 2026 is a Sunday.
    ['0 12 1 * *', 'UTC', '2026-02-28T00:00:00Z', ['2026-03-01T12:00:00Z', '2026-04-01T12:00:00Z']],
    ['0 12 * * MON', 'UTC', '2026-02-28T00:00:00Z', ['2026-03-02T12:00:00Z', '2026-03-09T12:00:00Z']],
    ['0 12 1 * MON', 'UTC', '2026-02-28T00:00:00Z', [
      '2026-03-01T12:00:00Z', // the 1st (a Sunday)
      '2026-03-02T12:00:00Z', '2026-03-09T12:00:00Z', '2026-03-16T12:00:00Z',
      '2026-03-23T12:00:00Z', '2026-03-30T12:00:00Z', // Mondays
      '2026-04-01T12:00:00Z', // the 1st (a Wednesday)
    ]],
    // Not "the first Monday": days 1–7 OR any Monday.
    ['0 12 1-7 * 1', 'UTC', '2026-03-06T13:00:00Z', [
      '2026-03-07T12:00:00Z', '2026-03-09T12:00:00Z', '2026-03-16T12:00:00Z',
    ]],
    ['0 12 ? * 7', 'UTC', '2026-02-28T00:00:00Z', ['2026-03-01T12:00:00Z']], // 7 = Sunday
    ['0 9 * jan,JUL Mon-Fri', 'UTC', '2026-06-30T12:00:00Z', [
      '2026-07-01T09:00:00Z', '2026-07-02T09:00:00Z', '2026-07-03T09:00:00Z', // Wed–Fri
      '2026-07-06T09:00:00Z', // Mon
    ]],
  ])('%s in %s after %s', (expression, zone, from, expected) => {
    expect(next(expression, zone, from, expected.length)).toEqual(expected);
  });

  it('accepts a parsed expression and returns nothing for count 0', () => {
    const cron = parseCronExpression('0 9 * * *');
    expect(next('0 9 * * *', 'UTC', '2026-01-01T00:00:00Z', 0)).toEqual([]);
    expect(iso(nextSlots(cron, 'UTC', new Date('2026-01-01T00:00:00Z'), 1))).toEqual([
      '2026-01-01T09:00:00Z',
    ]);
  });

  it('agrees with itself when walked one slot at a time across a fall-back', () => {
    const from = new Date('2026-11-01T03:00:00Z');
    const batch = iso(nextSlots('*/15 * * * *', NY, from, 20));
    const walked: Date[] = [];
    let cursor: Date | null = from;
    for (let i = 0; i < 20 && cursor; i += 1) {
      cursor = nextSlot('*/15 * * * *', NY, cursor);
      if (cursor) walked.push(cursor);
    }
    expect(iso(walked)).toEqual(batch);
  });

  it('gives up after its horizon instead of looping on an expression that never fires', () => {
    const never: CronExpression = { ...parseCronExpression('0 0 * * *'), months: [] };
    expect(nextSlot(never, 'UTC', new Date('2026-01-01T00:00:00Z'))).toBeNull();
  });

  it('finds the next weekday 09:00 in New York and the next 29 February in Berlin from each of 500 days', () => {
    // How fast is `npm run bench` (bench/slots.ts): a speed goal does not belong in a functional test.
    const cron = parseCronExpression('0 9 * * MON-FRI');
    for (let day = 0; day < 500; day += 1) {
      const from = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000);
      const weekday = DateTime.fromJSDate(nextSlot(cron, NY, from)!, { zone: NY });
      expect([weekday.weekday <= 5, weekday.hour, weekday.minute]).toEqual([true, 9, 0]);
      expect(weekday.toMillis() - from.getTime()).toBeGreaterThan(0);
      expect(weekday.toMillis() - from.getTime()).toBeLessThanOrEqual(3 * 86_400_000);
      const leap = DateTime.fromJSDate(nextSlot('0 0 29 2 *', BERLIN, from)!, { zone: BERLIN });
      expect([leap.year, leap.month, leap.day, leap.hour]).toEqual([2028, 2, 29, 0]); // 500 days from 2026 stay before it
    }
  });
});

describe('slotsBetween', () => {
  const between = (expression: string, zone: string, after: string, until: string, limit: number) =>
    iso(slotsBetween(expression, zone, new Date(after), new Date(until), limit));

  it.each([
    // The repeated hour in New York: (01:00 EDT, 02:00 EST].
    ['*/30 * * * *', NY, '2026-11-01T05:00:00Z', '2026-11-01T07:00:00Z', 10, [
      '2026-11-01T05:30:00Z', // 01:30 EDT
      '2026-11-01T06:00:00Z', // 01:00 EST
      '2026-11-01T06:30:00Z', // 01:30 EST
      '2026-11-01T07:00:00Z', // 02:00 EST (until is inclusive)
    ]],
    // At most `limit`, earliest first.
    ['*/30 * * * *', NY, '2026-11-01T05:00:00Z', '2026-11-01T07:00:00Z', 2, [
      '2026-11-01T05:30:00Z', '2026-11-01T06:00:00Z',
    ]],
    // The gap-shifted slot is found even though `until` is before the next local time's instant.
    ['30 2 * * *', NY, '2026-03-08T07:00:00Z', '2026-03-08T07:30:00Z', 10, [
      '2026-03-08T07:30:00Z', // 02:30 → 03:30 EDT
    ]],
    ['*/20 2 * * *', LORD_HOWE, '2026-10-03T15:30:00Z', '2026-10-03T15:45:00Z', 10, [
      '2026-10-03T15:40:00Z', // 02:40 +11 (02:20 → 02:50 is past `until`)
    ]],
    ['0 0 29 2 *', 'UTC', '2026-01-01T00:00:00Z', '2027-12-31T00:00:00Z', 10, []],
    ['* * * * *', 'UTC', '2026-01-01T00:10:00Z', '2026-01-01T00:10:00Z', 10, []],
    ['* * * * *', 'UTC', '2026-01-01T00:10:00Z', '2026-01-01T00:05:00Z', 10, []],
    ['* * * * *', 'UTC', '2026-01-01T00:10:00Z', '2026-01-01T00:20:00Z', 0, []],
  ])('%s in %s, (%s, %s], limit %i', (expression, zone, after, until, limit, expected) => {
    expect(between(expression, zone, after, until, limit)).toEqual(expected);
  });
});

describe('input errors', () => {
  const from = new Date('2026-01-01T00:00:00Z');

  it.each(['Mars/Olympus_Mons', '+02:00', '', 'Local'])('zone %j → INVALID_TIMEZONE', (zone) => {
    expect(codeOf(() => nextSlots('* * * * *', zone, from, 1))).toBe('INVALID_TIMEZONE');
    expect(codeOf(() => slotsBetween('* * * * *', zone, from, from, 1))).toBe('INVALID_TIMEZONE');
  });

  it.each(['* * * *', '0 0 30 2 *', '0 0 L-40 * *'])('expression %j → INVALID_CRON_EXPRESSION', (expr) => {
    expect(codeOf(() => nextSlot(expr, 'UTC', from))).toBe('INVALID_CRON_EXPRESSION');
  });

  it('rejects invalid dates and counts as programming errors', () => {
    expect(() => nextSlots('* * * * *', 'UTC', new Date('nope'), 1)).toThrow(RangeError);
    expect(() => nextSlots('* * * * *', 'UTC', from, -1)).toThrow(RangeError);
    expect(() => nextSlots('* * * * *', 'UTC', from, 1.5)).toThrow(RangeError);
    expect(() => slotsBetween('* * * * *', 'UTC', from, from, Number.NaN)).toThrow(RangeError);
  });
});

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof CronqlError ? err.code : `not a CronqlError: ${String(err)}`;
  }
  return undefined;
}

describe('latestSlotBetween (what a late wake-up fires)', () => {
  const at = (iso: string) => new Date(iso);
  it.each([
    ['* * * * * *', 'UTC', '2026-06-01T12:00:00Z', '2026-06-01T12:00:05.400Z', '2026-06-01T12:00:05.000Z'],
    ['*/10 * * * * *', 'UTC', '2026-06-01T12:00:10Z', '2026-06-01T12:00:41Z', '2026-06-01T12:00:40.000Z'],
    // A week-long gap of an hourly job: the last hour, not the first one after the gap.
    ['0 * * * *', 'UTC', '2026-06-01T00:00:00Z', '2026-06-08T05:30:00Z', '2026-06-08T05:00:00.000Z'],
    // A yearly job, the previous slot months back.
    ['0 0 1 1 *', 'Europe/Berlin', '2020-01-01T00:00:00Z', '2026-06-01T00:00:00Z', '2025-12-31T23:00:00.000Z'],
    // The repeated hour: a stepped hour's later 01:30 (EST) is the latest.
    ['*/30 * * * *', 'America/New_York', '2026-11-01T05:00:00Z', '2026-11-01T06:45:00Z', '2026-11-01T06:30:00.000Z'],
  ])('%s in %s after %s until %s → %s', (expr, zone, after, until, expected) => {
    expect(latestSlotBetween(expr, zone, at(after), at(until))?.toISOString()).toBe(expected);
  });

  it('is null when no slot falls in the window (bounds are exclusive, inclusive)', () => {
    expect(latestSlotBetween('0 0 1 1 *', 'UTC', at('2026-01-01T00:00:00Z'), at('2026-12-31T23:59:59Z'))).toBeNull();
    expect(latestSlotBetween('0 * * * *', 'UTC', at('2026-06-01T00:00:00Z'), at('2026-06-01T01:00:00Z'))?.toISOString()).toBe(
      '2026-06-01T01:00:00.000Z',
    );
  });
});
