import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { describeSchedule } from '../schedule/describe.js';
import { parseSchedulePhrase } from '../schedule/parse-english.js';
import { CronqlError } from '../errors.js';
import { canonicalTimezone, nextSlots, nextSlotsExplained, parseCronExpression } from '../schedule/index.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { DstMark, ScheduleType } from './enums.js';
import { slotsBetween, UNBOUNDED } from '../schedule/job-schedule.js';
import { describeEvery, formatEvery } from '../schedule/interval.js';
import { previewedSchedule } from '../services/schedule-preview.js';
import { LIMITS } from './limits.js';
import { DateTimeScalar } from './scalars.js';

const MAX_PREVIEW_COUNT = LIMITS.maxPreviewCount;

/** How many slots `parseSchedule` shows. */
const PARSED_PREVIEW = 5;

@ObjectType('ParsedSchedule', { description: 'A schedule read from plain English.' })
export class ParsedSchedule {
  @Field(() => ScheduleType, { description: 'RECURRING (a cron expression) or INTERVAL (a length of time cron cannot repeat exactly, e.g. "every 45 minutes").' })
  scheduleType!: ScheduleType;

  @Field(() => String, { nullable: true, description: 'RECURRING: the expression; null for an INTERVAL answer.' })
  cronExpression!: string | null;

  @Field(() => String, { nullable: true, description: 'INTERVAL: the length, e.g. "45m"; null for a RECURRING answer.' })
  every!: string | null;

  @Field(() => DateTimeScalar, { nullable: true, description: 'INTERVAL: the anchor `next` was computed from (now, on its second); a job created from it anchors at its own creation unless told.' })
  anchorAt!: Date | null;

  @Field(() => String, { description: 'The zone named in the text, else the one asked for.' })
  timezone!: string;

  @Field(() => String)
  description!: string;

  @Field(() => [DateTimeScalar], { description: 'The next five slots, in the zone, as UTC instants.' })
  next!: Date[];
}

/** An instant on its whole second (slots are whole seconds). */
const onItsSecond = (at: Date) => new Date(Math.floor(at.getTime() / 1000) * 1000);

@ObjectType('PreviewedSlot', { description: 'A slot of previewScheduleSlots, with what daylight-saving time did to it.' })
export class PreviewedSlot {
  @Field(() => DateTimeScalar)
  at!: Date;

  @Field(() => DstMark, { nullable: true, description: 'Null: DST did nothing to this slot.' })
  dstMark!: DstMark | null;

  @Field(() => String, { nullable: true, description: 'Why, in words, e.g. "02:30 does not exist on 2026-03-08 (clocks go forward); runs at 03:30".' })
  dstNote!: string | null;
}

@Resolver()
export class ScheduleResolver {
  @Authorized(...rolesFor('Query.describeSchedule'))
  @Query(() => String, { description: 'An English sentence for a cron expression in a zone, with what DST does to it where it matters.' })
  describeSchedule(
    @Arg('cronExpression', () => String) cronExpression: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Ctx() ctx: GraphQLContext,
  ): string {
    return describeSchedule(cronExpression, timezone ?? 'UTC', ctx.cronql.clock.now());
  }

  @Authorized(...rolesFor('Query.parseSchedule'))
  @Query(() => ParsedSchedule, { description: 'Plain English ("every weekday at 9am", "every 5 minutes", "… in Europe/Berlin") to a cron expression; UNPARSEABLE_SCHEDULE with examples otherwise.' })
  parseSchedule(
    @Arg('text', () => String) text: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Ctx() ctx: GraphQLContext,
  ): ParsedSchedule {
    const parsed = parseSchedulePhrase(text);
    const zone = parsed.timezone ?? canonicalTimezone(timezone ?? 'UTC');
    const now = ctx.cronql.clock.now();
    if (parsed.cronExpression === null) {
      const anchorAt = onItsSecond(now);
      const schedule = { type: 'INTERVAL', everyMs: parsed.everyMs, anchorAt } as const;
      return {
        scheduleType: ScheduleType.INTERVAL,
        cronExpression: null,
        every: formatEvery(parsed.everyMs),
        anchorAt,
        timezone: zone,
        description: capitalised(describeEvery(parsed.everyMs)),
        next: [...take(slotsBetween(schedule, UNBOUNDED, new Date(now.getTime() + 1), new Date(8.64e15)), PARSED_PREVIEW)],
      };
    }
    return {
      scheduleType: ScheduleType.RECURRING,
      cronExpression: parsed.cronExpression,
      every: null,
      anchorAt: null,
      timezone: zone,
      description: describeSchedule(parsed.cronExpression, zone, now),
      next: nextSlots(parsed.cronExpression, zone, now, PARSED_PREVIEW),
    };
  }

  /** The same slot math and DST policy as the runtime (src/schedule), without creating a job. */
  @Authorized(...rolesFor('Query.previewSchedule'))
  @Query(() => [DateTimeScalar], {
    description:
      `The next \`count\` slots (at most ${MAX_PREVIEW_COUNT}) strictly after \`from\` (default: now), as UTC instants, of one ` +
      'expression (cronExpression), several (cronExpressions: their union, each instant once) or an interval (every, from anchorAt, default now). ' +
      'Pure: no job, no calendars or bounds.',
  })
  previewSchedule(
    @Arg('cronExpression', () => String, { nullable: true }) cronExpression: string | null,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Arg('count', () => Int, { nullable: true, defaultValue: 5 }) count: number | null,
    @Arg('from', () => DateTimeScalar, { nullable: true }) from: Date | null,
    @Arg('every', () => String, { nullable: true, description: 'An interval: "45m", "1h30m", "90s", "PT45M".' }) every: string | null,
    @Arg('anchorAt', () => DateTimeScalar, { nullable: true, description: 'The interval\'s first slot (default: now, on its second).' }) anchorAt: Date | null,
    @Arg('cronExpressions', () => [String], { nullable: true, description: 'Several expressions: their union.' }) cronExpressions: string[] | null,
    @Ctx() ctx: GraphQLContext,
  ): Date[] {
    const now = ctx.cronql.clock.now();
    const n = previewCount(count);
    const start = from ?? now;
    const schedule = previewedSchedule({ cronExpression, cronExpressions, every, anchorAt, timezone }, now);
    if (schedule.type === 'RECURRING' && schedule.expressions.length === 1) return nextSlots(schedule.expressions[0], schedule.timezone, start, n);
    return [...take(slotsBetween(schedule, UNBOUNDED, new Date(start.getTime() + 1), new Date(8.64e15)), n)];
  }

  /** previewSchedule's slots, each with what DST did to it (from the same walk of the schedule). */
  @Authorized(...rolesFor('Query.previewScheduleSlots'))
  @Query(() => [PreviewedSlot], {
    description: `previewSchedule's slots (at most ${MAX_PREVIEW_COUNT}), each marked where daylight-saving time moved it (a gap) or repeated its local time.`,
  })
  previewScheduleSlots(
    @Arg('cronExpression', () => String) cronExpression: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Arg('count', () => Int, { nullable: true, defaultValue: 5 }) count: number | null,
    @Arg('from', () => DateTimeScalar, { nullable: true }) from: Date | null,
    @Ctx() ctx: GraphQLContext,
  ): PreviewedSlot[] {
    const { expression, zone, start, n } = previewArgs(cronExpression, timezone, count, from, ctx);
    return nextSlotsExplained(expression, zone, start, n).map(({ at, dst }) => ({
      at,
      dstMark: dst ? DstMark[dst.mark] : null,
      dstNote: dst?.note ?? null,
    }));
  }
}

/** How many slots a preview shows: `count` (default 5), at most MAX_PREVIEW_COUNT. */
function previewCount(count: number | null): number {
  const n = count ?? 5;
  if (n < 0) throw new CronqlError('BAD_USER_INPUT', 'count must not be negative', { field: 'count' });
  return Math.min(n, MAX_PREVIEW_COUNT);
}

/** The arguments both cron previews take, checked. */
function previewArgs(cronExpression: string, timezone: string | null, count: number | null, from: Date | null, ctx: GraphQLContext) {
  const zone = canonicalTimezone(timezone ?? 'UTC');
  const expression = parseCronExpression(cronExpression);
  return { expression, zone, start: from ?? ctx.cronql.clock.now(), n: previewCount(count) };
}

/** The first `n` of a lazy sequence. */
function* take<T>(items: Iterable<T>, n: number): Generator<T> {
  if (n <= 0) return;
  let i = 0;
  for (const item of items) {
    yield item;
    if (++i >= n) return;
  }
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
