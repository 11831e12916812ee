import { Arg, Authorized, Ctx, Field, Int, ObjectType, Query, Resolver } from 'type-graphql';
import { describeSchedule } from '../schedule/describe.js';
import { parseSchedulePhrase } from '../schedule/parse-english.js';
import { CronqlError } from '../errors.js';
import { canonicalTimezone, nextSlots, nextSlotsExplained, parseCronExpression } from '../schedule/index.js';
import type { GraphQLContext } from './context.type.js';
import { DstMark } from './enums.js';
import { LIMITS } from './limits.js';
import { DateTimeScalar } from './scalars.js';

const MAX_PREVIEW_COUNT = LIMITS.maxPreviewCount;

/** How many slots `parseSchedule` shows. */
const PARSED_PREVIEW = 5;

@ObjectType('ParsedSchedule', { description: 'A schedule read from plain English.' })
export class ParsedSchedule {
  @Field(() => String)
  cronExpression!: string;

  @Field(() => String, { description: 'The zone named in the text, else the one asked for.' })
  timezone!: string;

  @Field(() => String)
  description!: string;

  @Field(() => [DateTimeScalar], { description: 'The next five slots, in the zone, as UTC instants.' })
  next!: Date[];
}

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
  @Authorized()
  @Query(() => String, { description: 'An English sentence for a cron expression in a zone, with what DST does to it where it matters.' })
  describeSchedule(
    @Arg('cronExpression', () => String) cronExpression: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Ctx() ctx: GraphQLContext,
  ): string {
    return describeSchedule(cronExpression, timezone ?? 'UTC', ctx.cronql.clock.now());
  }

  @Authorized()
  @Query(() => ParsedSchedule, { description: 'Plain English ("every weekday at 9am", "every 5 minutes", "… in Europe/Berlin") to a cron expression; UNPARSEABLE_SCHEDULE with examples otherwise.' })
  parseSchedule(
    @Arg('text', () => String) text: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Ctx() ctx: GraphQLContext,
  ): ParsedSchedule {
    const parsed = parseSchedulePhrase(text);
    const zone = parsed.timezone ?? canonicalTimezone(timezone ?? 'UTC');
    const now = ctx.cronql.clock.now();
    return {
      cronExpression: parsed.cronExpression,
      timezone: zone,
      description: describeSchedule(parsed.cronExpression, zone, now),
      next: nextSlots(parsed.cronExpression, zone, now, PARSED_PREVIEW),
    };
  }

  /** The same slot math and DST policy as the runtime (src/schedule), without creating a job. */
  @Authorized()
  @Query(() => [DateTimeScalar], {
    description: `The next \`count\` slots (at most ${MAX_PREVIEW_COUNT}) strictly after \`from\` (default: now), as UTC instants.`,
  })
  previewSchedule(
    @Arg('cronExpression', () => String) cronExpression: string,
    @Arg('timezone', () => String, { nullable: true, defaultValue: 'UTC' }) timezone: string | null,
    @Arg('count', () => Int, { nullable: true, defaultValue: 5 }) count: number | null,
    @Arg('from', () => DateTimeScalar, { nullable: true }) from: Date | null,
    @Ctx() ctx: GraphQLContext,
  ): Date[] {
    const { expression, zone, start, n } = previewArgs(cronExpression, timezone, count, from, ctx);
    return nextSlots(expression, zone, start, n);
  }

  /** previewSchedule's slots, each with what DST did to it (from the same walk of the schedule). */
  @Authorized()
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

/** The arguments both previews take, checked. */
function previewArgs(cronExpression: string, timezone: string | null, count: number | null, from: Date | null, ctx: GraphQLContext) {
  const n = count ?? 5;
  if (n < 0) throw new CronqlError('BAD_USER_INPUT', 'count must not be negative', { field: 'count' });
  const zone = canonicalTimezone(timezone ?? 'UTC');
  const expression = parseCronExpression(cronExpression);
  return { expression, zone, start: from ?? ctx.cronql.clock.now(), n: Math.min(n, MAX_PREVIEW_COUNT) };
}
