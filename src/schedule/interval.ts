import { CronqlError } from '../errors.js';

/** The shortest interval: a second (slots are whole seconds, as cron's are). */
export const MIN_EVERY_MS = 1_000;
/** The longest interval: 366 days (a longer one is a yearly cron expression or a one-time job). */
export const MAX_EVERY_MS = 366 * 86_400_000;

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 };

/** "1h30m", "45m", "90s", "2d": units in decreasing order, each once. */
const SHORT = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** ISO 8601 durations of days and time ("PT45M", "P1DT2H", "PT1.5M" is refused: whole seconds only). */
const ISO = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * An interval's length in milliseconds, from "45m", "1h30m", "90s", "2d" or an ISO 8601 duration
 * of days and time ("PT45M", "P1DT12H"). Whole seconds, 1 s to 366 days; months and years are
 * refused (their length varies: a cron expression says "monthly" exactly). Anything else is
 * INVALID_SCHEDULE, naming the field.
 */
export function parseEvery(text: unknown, field = 'every'): number {
  if (typeof text !== 'string') throw invalid(field, String(text), 'must be a string such as "45m", "1h30m", "90s" or "PT45M"');
  const trimmed = text.trim();
  const short = trimmed.toLowerCase().replace(/\s+/g, '');
  const match = SHORT.exec(short) ?? ISO.exec(trimmed.toUpperCase());
  if (!match || trimmed === '' || match.slice(1).every((g) => g === undefined) || /T$/i.test(trimmed)) {
    throw invalid(field, text, 'is not a length of time: use "45m", "1h30m", "90s", "2d" or an ISO 8601 duration such as "PT45M" (days, hours, minutes, whole seconds)');
  }
  const [d, h, m, s] = match.slice(1).map((g) => (g === undefined ? 0 : Number(g)));
  const total = d * UNIT_MS.d + h * UNIT_MS.h + m * UNIT_MS.m + s * UNIT_MS.s;
  if (!Number.isSafeInteger(total) || total < MIN_EVERY_MS || total > MAX_EVERY_MS) {
    throw invalid(field, text, `must be between 1 second and 366 days, got ${Number.isFinite(total) ? `${total / 1000} s` : 'more'}`);
  }
  return total;
}

/** An interval as cronql writes it back: "1h30m", "45m", "90s", "1d12h" (what `parseEvery` reads). */
export function formatEvery(everyMs: number): string {
  let rest = Math.round(everyMs / 1000);
  let out = '';
  for (const [unit, seconds] of [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]] as const) {
    const n = Math.floor(rest / seconds);
    if (n > 0) out += `${n}${unit}`;
    rest -= n * seconds;
  }
  return out || '0s';
}

/** An interval in words: "every 45 minutes", "every 1 hour 30 minutes", "every 90 seconds" → "every 1 minute 30 seconds". */
export function describeEvery(everyMs: number): string {
  let rest = Math.round(everyMs / 1000);
  const parts: string[] = [];
  for (const [unit, seconds] of [['day', 86_400], ['hour', 3_600], ['minute', 60], ['second', 1]] as const) {
    const n = Math.floor(rest / seconds);
    if (n > 0) parts.push(n === 1 ? `1 ${unit}` : `${n} ${unit}s`);
    rest -= n * seconds;
  }
  if (parts.length === 1 && parts[0].startsWith('1 ')) return `every ${parts[0].slice(2)}`;
  return `every ${parts.join(' ')}`;
}

function invalid(field: string, value: string, why: string): CronqlError {
  return new CronqlError('INVALID_SCHEDULE', `${field} "${value}" ${why}`, { field, value });
}
