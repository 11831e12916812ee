import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { RunEndTally } from '../../src/metrics/run-end-tally.js';

/** The two metrics the tally feeds, in a registry of their own; `tally`: through it, else directly. */
function metrics(tally: boolean) {
  const registry = new Registry();
  let ends: RunEndTally | undefined;
  const finished = new Counter({ name: 'finished', help: 'h', labelNames: ['status', 'target', 'trigger'] as const, registers: [registry], collect: () => ends?.flush() });
  const duration = new Histogram({ name: 'duration', help: 'h', labelNames: ['target', 'status'] as const, buckets: [0.01, 0.1, 1, 10], registers: [registry], collect: () => ends?.flush() });
  if (tally) ends = new RunEndTally(finished, duration);
  const add = (status: string, target: string, trigger: string, seconds: number | null) => {
    if (ends) return ends.add(status, target, trigger, seconds);
    finished.inc({ status, target, trigger });
    if (seconds !== null) duration.observe({ target, status }, seconds);
  };
  /**
   * The exposition's samples, in a fixed order (the tally adds label sets in another order), values
   * to 12 digits (a sum of durations added in another order differs in its last bits).
   */
  const read = async () =>
    (await registry.metrics())
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.replace(/ ([^ ]+)$/, (_, v: string) => ` ${Number(Number(v).toPrecision(12))}`))
      .sort();
  return { add, read, finished };
}

describe('the ends of runs counted for the metrics (RunEndTally)', () => {
  it('a scrape reads what counting each end at once would have: every label set, count and duration, across scrapes', async () => {
    const direct = metrics(false);
    const tallied = metrics(true);
    const statuses = ['SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED'];
    const targets = ['log', 'http', 'a "quoted" \\ target'];
    const triggers = ['SCHEDULED', 'MANUAL', 'RETRY'];
    let seed = 7;
    const pick = <T>(xs: T[]) => xs[(seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % xs.length];
    for (const n of [0, 1, 500, 3_000]) {
      for (let i = 0; i < n; i++) {
        const end = [pick(statuses), pick(targets), pick(triggers), pick([null, 0, 0.005, 0.5, 3, 42])] as const;
        direct.add(...end);
        tallied.add(...end);
      }
      expect(await tallied.read()).toEqual(await direct.read());
    }
  });

  it('nobody scraping: the ends are handed on a second after 20,000 wait (memory stays bounded)', async () => {
    vi.useFakeTimers();
    try {
      const { add, finished } = metrics(true);
      // Read without `collect` (the counter's own values): nothing handed on yet, then all of them.
      const own = () => Object.values((finished as unknown as { hashMap: Record<string, { value: number }> }).hashMap).reduce((sum, v) => sum + v.value, 0);
      for (let i = 0; i < 19_999; i++) add('SUCCEEDED', 'log', 'SCHEDULED', 0.001);
      vi.advanceTimersByTime(60_000);
      expect(own()).toBe(0);
      for (let i = 0; i < 1_000; i++) add('SUCCEEDED', 'log', 'SCHEDULED', 0.001);
      vi.advanceTimersByTime(999);
      expect(own()).toBe(0);
      vi.advanceTimersByTime(1);
      expect(own()).toBe(20_999);
    } finally {
      vi.useRealTimers();
    }
  });
});
