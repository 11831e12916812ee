import { Arg, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { JobRecord } from '../domain/job.js';
import type { CalendarRow } from '../services/calendar.service.js';
import { lastDateOf, runsOutSoon, RUNS_OUT_WITHIN_DAYS } from '../schedule/calendar.js';
import type { GraphQLContext } from './context.type.js';
import { rolesFor } from './auth.js';
import { Calendar } from './calendar.type.js';
import { CalendarInput } from './calendar.input.js';
import { Job } from './job.type.js';
import { LocalDateScalar } from './scalars.js';

type CalendarRecord = CalendarRow & { usedBy?: string[] };

/** Calendars: any token reads them; only ADMIN sets or deletes one. */
@Resolver(() => Calendar)
export class CalendarResolver {
  @Authorized(...rolesFor('Query.calendars'))
  @Query(() => [Calendar], { description: 'Every exclusion calendar, by name.' })
  calendars(@Ctx() ctx: GraphQLContext): Promise<CalendarRecord[]> {
    return ctx.cronql.calendars.list();
  }

  @Authorized(...rolesFor('Query.calendar'))
  @Query(() => Calendar, { nullable: true, description: 'One calendar by name; null when there is none.' })
  calendar(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<CalendarRecord | null> {
    return ctx.cronql.calendars.get(name);
  }

  @Authorized(...rolesFor('Mutation.setCalendar'))
  @Mutation(() => Calendar, { description: 'Creates a calendar, or replaces the one of that name (ADMIN); every instance applies it from its next slot.' })
  setCalendar(@Arg('input', () => CalendarInput) input: CalendarInput, @Ctx() ctx: GraphQLContext): Promise<CalendarRecord> {
    return ctx.cronql.calendars.set(input, ctx.principal.name);
  }

  @Authorized(...rolesFor('Mutation.deleteCalendar'))
  @Mutation(() => Boolean, { description: 'Deletes a calendar (ADMIN); CALENDAR_IN_USE while a live job names it. False when there was none.' })
  deleteCalendar(@Arg('name', () => String) name: string, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return ctx.cronql.calendars.delete(name, ctx.principal.name);
  }

  @FieldResolver(() => [Job], { description: 'The live (not RETIRED) job versions naming it.' })
  async usedBy(@Root() calendar: CalendarRecord, @Ctx() ctx: GraphQLContext): Promise<JobRecord[]> {
    const ids = calendar.usedBy ?? (await ctx.cronql.calendars.usedBy(calendar.name));
    const jobs = await ctx.loaders.job.loadMany(ids);
    return jobs.filter((j): j is JobRecord => j !== null && !(j instanceof Error));
  }

  @FieldResolver(() => LocalDateScalar, { nullable: true, description: 'The last local day a dated rule (dates, windows) excludes; null without dated rules.' })
  lastDate(@Root() calendar: CalendarRecord): string | null {
    return lastDateOf(calendar);
  }

  @FieldResolver(() => Boolean, { description: `True when its dated exclusions end less than ${RUNS_OUT_WITHIN_DAYS} days from today (or have ended): add the next ones.` })
  runsOutSoon(@Root() calendar: CalendarRecord, @Ctx() ctx: GraphQLContext): boolean {
    return runsOutSoon(calendar, ctx.cronql.clock.now());
  }
}
