import { describe, expect, it } from 'vitest';
import { parseCronExpression } from '../../src/schedule/cron-expression.js';
import { SlotMemo } from '../../src/schedule/slot-memo.js';
import { latestSlotBetween, nextSlot } from '../../src/schedule/slots.js';

/**
 * The memo answers exactly what the slot functions answer, whatever the order of the questions:
 * generated instants (increasing, as arming asks, and shuffled), over DST changes and schedules
 * with few slots.
 */
const SCHEDULES: [string, string][] = [
  ['*/5 * * * *', 'UTC'],
  ['30 2 * * *', 'America/New_York'],
  ['0 0 29 2 *', 'Europe/Berlin'],
  ['0 9 * * 1-5', 'Asia/Kolkata'],
  ['0 0 9 1 1 * 2027', 'UTC'],
  ['15 1 * * *', 'Europe/London'],
];

function instants(seed: number, n: number): Date[] {
  // A small deterministic generator: instants over two years, around the DST changes of 2026.
  let x = seed;
  const next = () => ((x = (x * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const base = Date.UTC(2026, 0, 1);
  return Array.from({ length: n }, () => new Date(base + Math.floor(next() * 2 * 365 * 86_400_000)));
}

describe('SlotMemo', () => {
  for (const [source, zone] of SCHEDULES) {
    it(`${source} in ${zone}: next and latestBetween equal nextSlot and latestSlotBetween`, () => {
      const expression = parseCronExpression(source);
      const memo = new SlotMemo();
      const sorted = instants(source.length * 7 + zone.length, 300).sort((a, b) => a.getTime() - b.getTime());
      // Arming asks from instants milliseconds apart: most answers come from the memo.
      const close = sorted.flatMap((t) => [t, new Date(t.getTime() + 1), new Date(t.getTime() + 60_000)]);
      for (const from of [...close, ...instants(3, 200)]) {
        expect(memo.next(expression, zone, from)?.getTime() ?? null).toBe(nextSlot(expression, zone, from)?.getTime() ?? null);
        for (const back of [1_000, 3_600_000, 40 * 86_400_000]) {
          const after = new Date(from.getTime() - back);
          expect(memo.latestBetween(expression, zone, after, from)?.getTime() ?? null).toBe(latestSlotBetween(expression, zone, after, from)?.getTime() ?? null);
        }
      }
    });
  }
});
