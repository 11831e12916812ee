import { Arg, Authorized, Ctx, Int, Query, Resolver } from 'type-graphql';
import { CronqlError } from '../errors.js';
import { canonicalTimezone, nextSlots, parseCronExpression } from '../schedule/index.js';
import type { GraphQLContext } from './context.type.js';
import { LIMITS } from './limits.js';
import { DateTimeScalar } from './scalars.js';

const MAX_PREVIEW_COUNT = LIMITS.maxPreviewCount;

@Resolver()
export class ScheduleResolver {
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
    const n = count ?? 5;
    if (n < 0) throw new CronqlError('BAD_USER_INPUT', 'count must not be negative', { field: 'count' });
    const zone = canonicalTimezone(timezone ?? 'UTC');
    const expression = parseCronExpression(cronExpression);
    return nextSlots(expression, zone, from ?? ctx.cronql.clock.now(), Math.min(n, MAX_PREVIEW_COUNT));
  }
}
