import { createHash } from 'node:crypto';
import { slotsBetween, UNBOUNDED, type JobSchedule } from './job-schedule.js';

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
 * it; several expressions are sampled as their union), in seconds; null when it has fewer than two
 * slots left. An interval's is its length.
 */
export function shortestIntervalSeconds(schedule: JobSchedule, from: Date): number | null {
  if (schedule.type === 'INTERVAL') return schedule.everyMs / 1000;
  let shortest: number | null = null;
  let previous: number | null = null;
  let seen = 0;
  for (const slot of slotsBetween(schedule, UNBOUNDED, new Date(from.getTime() + 1), new Date(8.64e15))) {
    if (previous !== null) {
      const gap = (slot.getTime() - previous) / 1000;
      if (shortest === null || gap < shortest) shortest = gap;
    }
    previous = slot.getTime();
    if (++seen >= SAMPLE) break;
  }
  return shortest;
}
