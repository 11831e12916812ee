/**
 * Benchmark: the schedule math alone (src/schedule), no database.
 *
 *   BENCH_ONLY=slots npm run bench
 *
 * The next slot of `0 9 * * MON-FRI` in America/New_York and of `0 0 29 2 *` (a leap day: a walk
 * of up to four years) in Europe/Berlin, from each of 500 days: time per slot, median of five
 * rounds, beside the same calls in UTC (no zone rules to apply). The goal is the one
 * test/schedule/slots.test.ts used to assert on whatever machine ran it: well under a millisecond
 * a slot.
 */
import { performance } from 'node:perf_hooks';
import { nextSlot, parseCronExpression } from '../src/schedule/index.js';
import { pct, report } from './lib/bench.js';

const SCENARIO = 'slots';
const DAYS = 500;

/** Microseconds per slot over `DAYS` days of both expressions in the two zones; median of 5 rounds. */
function perSlot(weekdayZone: string, leapZone: string): number {
  const weekdays = parseCronExpression('0 9 * * MON-FRI');
  const rounds: number[] = [];
  for (let round = 0; round < 6; round++) {
    const started = performance.now();
    for (let day = 0; day < DAYS; day += 1) {
      const from = new Date(Date.UTC(2026, 0, 1) + day * 86_400_000);
      nextSlot(weekdays, weekdayZone, from);
      nextSlot('0 0 29 2 *', leapZone, from);
    }
    // The first round warms the JIT up and is not counted.
    if (round > 0) rounds.push(((performance.now() - started) * 1_000) / (2 * DAYS));
  }
  return pct(rounds, 0.5);
}

const utc = perSlot('UTC', 'UTC');
const zoned = perSlot('America/New_York', 'Europe/Berlin');
report({ scenario: SCENARIO, figure: 'next slot, New York weekdays and Berlin leap days', value: zoned, baselineName: 'same in UTC', baseline: utc, unit: 'µs', goal: '≤ 1,000 µs a slot', met: zoned <= 1_000 });
