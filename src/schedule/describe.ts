import cronstrue from 'cronstrue';
import { cronFields, parseCronExpression, type CronExpression } from './cron-expression.js';
import { slotsBetween } from './slots.js';
import { canonicalTimezone, WallClock } from './timezone.js';

/**
 * An English sentence for a schedule: cronstrue's reading of the expression (5 fields, or 6 with
 * seconds first; L, W and # included; day-of-week rules written in the forms it reads, see
 * `cronstrueFields`), cronql's own words for the year field (7 fields), the zone when it is not
 * UTC, and — where the schedule meets a daylight-saving change of that zone in the coming year —
 * what cronql does then (docs/behaviour.md):
 * a time the clock skips runs as much later as the clock jumped; a repeated time runs once, at its
 * first occurrence, unless the hour field is `*` or a step, which runs both.
 * @throws CronqlError INVALID_CRON_EXPRESSION / INVALID_TIMEZONE, as everywhere else
 */
export function describeSchedule(expression: string, timezone = 'UTC', now = new Date()): string {
  const cron = parseCronExpression(expression);
  const zone = canonicalTimezone(timezone);
  // A page of jobs asks for many, mostly alike: one computation per expression, zone and day.
  const key = `${expression}\u0000${zone}\u0000${now.toISOString().slice(0, 10)}`;
  const known = described.get(key);
  if (known !== undefined) return known;
  const text = describe(cron, expression, zone, now);
  if (described.size >= MAX_CACHED) described.clear();
  described.set(key, text);
  return text;
}

const described = new Map<string, string>();
const MAX_CACHED = 10_000;

function describe(cron: CronExpression, expression: string, zone: string, now: Date): string {
  let text = cronstrue.toString(cronstrueFields(cron, expression), { use24HourTimeFormat: true, verbose: false, throwExceptionOnParseError: true });
  if (cron.years !== null) text += `, ${yearClause(cronFields(expression).split(/\s+/)[6])}`;
  if (zone !== 'UTC') text += ` (${zone} time)`;
  const dst = dstEncounters(cron, zone, now);
  const clauses: string[] = [];
  if (dst.skipped) clauses.push('on the day the clocks spring forward, a time they skip runs as much later as they jumped');
  if (dst.repeated) {
    clauses.push(cron.hourIsWildcardOrStep
      ? 'on the day the clocks fall back, the repeated hour runs twice'
      : 'on the day the clocks fall back, a repeated time runs once, at its first occurrence');
  }
  return clauses.length ? `${text}; ${clauses.join('; ')}` : text;
}

/**
 * The fields cronstrue is given: without the year (cronstrue misreads some years: `1-9999/2`
 * becomes "1901 through 9999"), and with the day-of-week rules as `nL` and `n#k` items, one per
 * weekday — cronstrue refuses `#L` and misreads a `#` after a range (`THU-FRI#2` as "Thursday
 * through second Friday"). The plain items are kept as written.
 */
function cronstrueFields(cron: CronExpression, expression: string): string {
  const fields = cronFields(expression).split(/\s+/);
  if (fields.length === 7) fields.pop();
  const last = fields.length - 1;
  const { lastOfWeekdays, nthWeekdays } = cron.dayRules;
  if (lastOfWeekdays.length > 0 || nthWeekdays.length > 0) {
    const plain = fields[last].split(',').filter((item) => !/[L#]/i.test(item));
    fields[last] = [...plain, ...lastOfWeekdays.map((w) => `${w}L`), ...nthWeekdays.map(([w, k]) => `${w}#${k}`)].join(',');
  }
  return fields.join(' ');
}

/**
 * The year field in words, item by item: "only in 2024", "in 2024, 2026 and 2028", "every 2
 * years from 2024 to 2030", "every 2 years from 2024". `*` never gets here.
 */
function yearClause(field: string): string {
  const values: string[] = [];
  const spans: string[] = [];
  for (const item of field.split(',')) {
    const [base, stepText] = item.split('/');
    const step = Number(stepText ?? 1);
    const every = step === 1 ? 'every year' : `every ${step} years`;
    const [from, to] = base.split('-').map((y) => String(Number(y)));
    if (base === '*') spans.push(every);
    else if (to !== undefined) spans.push(`${every} from ${from} to ${to}`);
    else if (stepText !== undefined) spans.push(`${every} from ${from}`);
    else values.push(from);
  }
  const parts = values.length === 0 ? [] : [`${spans.length === 0 && values.length === 1 ? 'only ' : ''}in ${listed(values)}`];
  return listed([...parts, ...spans]);
}

const listed = (items: string[]): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;

/** Whether the schedule has a slot in a skipped (spring-forward) or a repeated (fall-back) local time in the coming year. */
function dstEncounters(cron: CronExpression, zone: string, now: Date): { skipped: boolean; repeated: boolean } {
  const result = { skipped: false, repeated: false };
  const clock = new WallClock(zone);
  const hours = new Set(cron.hours);
  const minutes = new Set(cron.minutes);
  for (const at of clock.changesBetween(now.getTime(), now.getTime() + 370 * 86_400_000)) {
    // Four hours either side hold every local time a change can skip or repeat.
    for (const slot of slotsBetween(cron, zone, new Date(at - 4 * 3_600_000), new Date(at + 4 * 3_600_000), 30_000)) {
      const local = clock.localOf(slot.getTime());
      const d = new Date(local);
      if (!hours.has(d.getUTCHours()) || !minutes.has(d.getUTCMinutes())) result.skipped = true; // shifted out of a gap
      else if (clock.resolve(local).kind === 'overlap') result.repeated = true;
    }
  }
  return result;
}
