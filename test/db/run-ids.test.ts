import { describe, expect, it } from 'vitest';
import { RunIds } from '../../src/db/runs/run-ids.js';

/** A deterministic generator (the same inputs every run). */
function rng(seed: number) {
  return (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
}

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ids = (literal: string): string[] => {
  expect(literal.startsWith('{') && literal.endsWith('}')).toBe(true);
  return literal === '{}' ? [] : literal.slice(1, -1).split(',');
};
/** The millisecond a UUIDv7 says. */
const msOf = (id: string) => parseInt(id.slice(0, 8) + id.slice(9, 13), 16);

describe('run ids made by the fire path (UUIDv7)', () => {
  it('are UUIDv7 in an array literal, each greater than every id before, whatever the clock does', () => {
    const rand = rng(5);
    let now = Date.UTC(2026, 10, 27, 0, 0, 0, 0);
    const gen = new RunIds(() => now);
    let last = '';
    let high = 0; // the latest instant the clock has said
    for (let call = 0; call < 400; call++) {
      // The clock stays, moves on a little or a lot, or goes back (an NTP step, a manual clock).
      const move = rand(6);
      now += move === 0 ? 0 : move === 1 ? -rand(5_000) : move === 2 ? 1 : rand(90_000);
      const n = [0, 1, 2, 500, 1_500][rand(5)];
      high = Math.max(high, now);
      const made = ids(gen.arrayLiteral(n));
      expect(made).toHaveLength(n);
      for (const id of made) {
        expect(id).toMatch(V7);
        expect(id > last).toBe(true);
        // The id's millisecond is the clock's, or — the clock gone back — the latest it said.
        expect(msOf(id)).toBe(high);
        last = id;
      }
    }
  });

  it('takes the next millisecond when a millisecond’s counter is spent, and stays ordered', () => {
    const now = Date.UTC(2026, 10, 27, 0, 0, 0, 0);
    // A 6-bit counter (seeded below 32): a batch of 1,000 in one millisecond spends it many times.
    const gen = new RunIds(() => now, 6);
    const made = [...ids(gen.arrayLiteral(1_000)), ...ids(gen.arrayLiteral(1_000))];
    expect(new Set(made).size).toBe(made.length);
    expect([...made].sort()).toEqual(made);
    const spans = new Set(made.map(msOf));
    expect(spans.size).toBeGreaterThanOrEqual(2_000 / 64);
    expect(Math.min(...spans)).toBe(now);
    // Ahead of the clock only as far as the spent counters took it, one millisecond at a time.
    expect(Math.max(...spans) - now).toBe(spans.size - 1);
  });

  it('differ between generators at the same millisecond (48 random bits and a random counter start)', () => {
    const now = Date.UTC(2026, 10, 27);
    const made = Array.from({ length: 50 }, () => ids(new RunIds(() => now).arrayLiteral(200))).flat();
    expect(new Set(made).size).toBe(made.length);
  });
});
