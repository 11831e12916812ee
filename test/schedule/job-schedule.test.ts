import { describe, expect, it } from 'vitest';
import { slotsBetween as cronSlotsBetween } from '../../src/schedule/index.js';
import {
  lastSlot,
  latestSlotBetween,
  latestSlotsBetween,
  nextSlot,
  slotsBetween,
  UNBOUNDED,
  type JobSchedule,
  type ScheduleBounds,
} from '../../src/schedule/job-schedule.js';
import { describeEvery, formatEvery, parseEvery } from '../../src/schedule/interval.js';
import { SlotMemo } from '../../src/schedule/slot-memo.js';
import { thrownBy } from '../support/thrown.js';

/**
 * The slot math of a job's schedule checked against brute force, on generated schedules, bounds
 * and windows: an interval's slots by stepping k = 0, 1, 2 … from the anchor; several
 * expressions' slots as the sorted, de-duplicated union of each expression's own (cron's slots are
 * checked against their own reference in slots.test.ts); bounds as a filter.
 */
let seed = 20261127;
const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
const BASE = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;

const EXPRESSIONS = ['0 9 * * 1-5', '0 12 * * 0,6', '*/20 * * * *', '0 */3 * * *', '30 2 * * *', '0 9 * * *', '15,45 * * * *', '0 0 1 * *'];
const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin'];

function randomSchedule(): JobSchedule {
  if (rand(2) === 0) {
    const everyMs = [1, 7, 90, 45 * 60, 7 * 3600, 86_400 + 1][rand(6)] * 1000;
    return { type: 'INTERVAL', everyMs, anchorAt: new Date(BASE + rand(48) * HOUR + rand(3600) * 1000) };
  }
  const count = 1 + rand(3);
  const expressions = Array.from({ length: count }, () => EXPRESSIONS[rand(EXPRESSIONS.length)]);
  return { type: 'RECURRING', expressions: [...new Set(expressions)], timezone: ZONES[rand(ZONES.length)] };
}

function randomBounds(): ScheduleBounds {
  const at = () => new Date(BASE + rand(20 * 24) * HOUR + rand(3600) * 1000);
  const kind = rand(4);
  if (kind === 0) return UNBOUNDED;
  const [a, b] = [at(), at()].sort((x, y) => x.getTime() - y.getTime());
  return { startAt: kind !== 2 ? a : null, endAt: kind !== 1 ? b : null };
}

/** Every slot in (after, until] by brute force, inside the bounds. */
function reference(schedule: JobSchedule, bounds: ScheduleBounds, after: number, until: number): number[] {
  let all: number[];
  if (schedule.type === 'INTERVAL') {
    all = [];
    for (let t = schedule.anchorAt.getTime(); t <= until; t += schedule.everyMs) if (t > after) all.push(t);
  } else if (schedule.type === 'RECURRING') {
    const union = new Set<number>();
    for (const e of schedule.expressions) for (const d of cronSlotsBetween(e, schedule.timezone, new Date(after), new Date(until), 1_000_000)) union.add(d.getTime());
    all = [...union].sort((x, y) => x - y);
  } else if (schedule.type === 'ONE_TIME') all = [schedule.runAt.getTime()].filter((t) => t > after && t <= until);
  else all = [];
  return all.filter((t) => (!bounds.startAt || t >= bounds.startAt.getTime()) && (!bounds.endAt || t <= bounds.endAt.getTime()));
}

describe('a job schedule against brute force (generated)', () => {
  it('slotsBetween, nextSlot, latestSlotsBetween agree with the reference over windows of days', () => {
    const memo = new SlotMemo();
    for (let i = 0; i < 100; i++) {
      const schedule = schedule_(i);
      const bounds = randomBounds();
      const from = BASE + rand(10 * 24) * HOUR + rand(3600) * 1000;
      const to = from + (1 + rand(4 * 24)) * HOUR;
      const expected = reference(schedule, bounds, from - 1, to);
      const label = JSON.stringify({ schedule, bounds, from: new Date(from), to: new Date(to) });
      expect(([...slotsBetween(schedule, bounds, new Date(from), new Date(to))]).map((d) => d.getTime()), label).toEqual(expected);
      // nextSlot walks the same slots one by one (with and without the shared memo).
      const walked: number[] = [];
      for (let at = nextSlot(schedule, bounds, new Date(from - 1)); at && at.getTime() <= to; at = nextSlot(schedule, bounds, at, i % 2 ? memo : undefined)) walked.push(at.getTime());
      expect(walked, label).toEqual(expected);
      const count = 1 + rand(5);
      expect(latestSlotsBetween(schedule, bounds, new Date(from - 1), new Date(to), count).map((d) => d.getTime()), label).toEqual(expected.slice(-count));
      expect(latestSlotBetween(schedule, bounds, new Date(from - 1), new Date(to), memo)?.getTime() ?? null, label).toBe(expected.at(-1) ?? null);
    }
  });

  it('lastSlot: the last slot up to endAt; none for an endless schedule', () => {
    for (let i = 0; i < 60; i++) {
      const schedule = schedule_(i);
      const endAt = new Date(BASE + (24 + rand(10 * 24)) * HOUR + rand(3600) * 1000);
      const startAt = rand(2) ? new Date(BASE + rand(24) * HOUR) : null;
      const expected = reference(schedule, { startAt, endAt }, BASE - 40 * 24 * HOUR, endAt.getTime()).at(-1) ?? null;
      expect(lastSlot(schedule, { startAt, endAt })?.getTime() ?? null, JSON.stringify({ schedule, startAt, endAt })).toBe(expected);
      expect(lastSlot(schedule, { startAt, endAt: null })).toBeNull();
    }
    // Expressions that all name their years end with the latest of their last slots.
    const years: JobSchedule = { type: 'RECURRING', expressions: ['0 0 9 1 1 * 2027', '0 0 9 1 6 * 2026'], timezone: 'UTC' };
    expect(lastSlot(years, UNBOUNDED)?.toISOString()).toBe('2027-01-01T09:00:00.000Z');
    expect(lastSlot({ ...years, expressions: [...years.expressions, '0 9 * * *'] }, UNBOUNDED)).toBeNull();
  });

  it('two expressions naming the same instant give one slot', () => {
    const schedule: JobSchedule = { type: 'RECURRING', expressions: ['0 9 * * 1-5', '0 9 * * MON'], timezone: 'Europe/Berlin' };
    const slots = [...slotsBetween(schedule, UNBOUNDED, new Date('2026-03-02T00:00:00Z'), new Date('2026-03-08T23:59:59Z'))];
    expect(slots.map((d) => d.toISOString())).toEqual(['02', '03', '04', '05', '06'].map((d) => `2026-03-${d}T08:00:00.000Z`));
  });

  it('an interval keeps its absolute spacing across a DST change', () => {
    const schedule: JobSchedule = { type: 'INTERVAL', everyMs: 45 * 60_000, anchorAt: new Date('2026-03-08T05:00:00Z') };
    const slots = [...slotsBetween(schedule, UNBOUNDED, new Date('2026-03-08T05:00:00Z'), new Date('2026-03-08T09:00:00Z'))].map((d) => d.getTime());
    expect(new Set(slots.slice(1).map((t, i) => t - slots[i]))).toEqual(new Set([45 * 60_000]));
    expect(slots).toHaveLength(6);
    // No slot before the anchor, whatever the window.
    expect(nextSlot(schedule, UNBOUNDED, new Date('2020-01-01T00:00:00Z'))?.toISOString()).toBe('2026-03-08T05:00:00.000Z');
  });
});

/** A schedule for round i (the two kinds alternate, so each is well covered). */
function schedule_(i: number): JobSchedule {
  for (;;) {
    const s = randomSchedule();
    if ((s.type === 'INTERVAL') === (i % 2 === 0)) return s;
  }
}

describe('every: the length of an interval', () => {
  it.each([
    ['45m', 45 * 60_000], ['1h30m', 90 * 60_000], ['90s', 90_000], ['2d', 2 * 86_400_000], ['PT45M', 45 * 60_000],
    ['P1DT2H', 26 * 3_600_000], ['1s', 1000], ['366d', 366 * 86_400_000], [' 1H 30M ', 90 * 60_000],
  ] as const)('%j is %i ms, and reads back as it writes', (text, ms) => {
    expect(parseEvery(text)).toBe(ms);
    expect(parseEvery(formatEvery(ms))).toBe(ms);
  });

  it.each(['', '0s', '0m', 'PT0S', '367d', 'P1M', 'P1Y', 'PT1.5S', '45', 'm', '45x', '1m1h', 'PT', 'P', 'every 45 minutes', '-5m', '9999999999999d'])(
    '%j is refused with INVALID_SCHEDULE naming the field',
    (text) => {
      expect(thrownBy(() => parseEvery(text))).toMatchObject({ code: 'INVALID_SCHEDULE', details: { field: 'every' } });
    },
  );

  it('non-strings are refused too', () => {
    for (const value of [null, undefined, 45, {}]) expect(thrownBy(() => parseEvery(value))).toMatchObject({ code: 'INVALID_SCHEDULE' });
  });

  it('in words', () => {
    expect(describeEvery(45 * 60_000)).toBe('every 45 minutes');
    expect(describeEvery(3_600_000)).toBe('every hour');
    expect(describeEvery(90 * 60_000)).toBe('every 1 hour 30 minutes');
  });
});
