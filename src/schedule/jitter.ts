import { createHash } from 'node:crypto';
import type { CronExpression } from './cron-expression.js';
import { nextSlots } from './slots.js';

/**
 * The offset in [0, jitterSeconds) s, in whole milliseconds, after which a job's slot starts:
 * derived from the job and the slot alone, so every instance, and every restart, computes the
 * same one, and co-due jobs spread evenly over the window.
 */
export function jitterOffsetMs(jobId: string, slot: Date, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return 0;
  const digest = createHash('sha256').update(`${jobId}@${slot.getTime()}`).digest();
  // 48 bits of the digest as a fraction of the window: uniform enough for any window in ms.
  return Math.floor((digest.readUIntBE(0, 6) / 2 ** 48) * jitterSeconds * 1000);
}

/** How many slots `shortestIntervalSeconds` looks at: enough to meet a week's and a DST day's gaps. */
const SAMPLE = 800;

/**
 * The shortest time between two consecutive slots of a schedule among its next slots after
 * `from` (a bounded sample that covers a year of a daily schedule, so the short DST days are in
 * it), in seconds; null when it has fewer than two slots left.
 */
export function shortestIntervalSeconds(expression: CronExpression | string, timezone: string, from: Date): number | null {
  const slots = nextSlots(expression, timezone, from, SAMPLE);
  let shortest: number | null = null;
  for (let i = 1; i < slots.length; i++) {
    const gap = (slots[i].getTime() - slots[i - 1].getTime()) / 1000;
    if (shortest === null || gap < shortest) shortest = gap;
  }
  return shortest;
}
