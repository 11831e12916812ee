import { Field, ObjectType } from 'type-graphql';
import { DateTimeScalar, LocalDateScalar } from './scalars.js';

@ObjectType('DailyWindow', { description: 'Every local day from start to end ("HH:MM", the calendar\'s zone); end at or before start: the next day.' })
export class DailyWindow {
  @Field(() => String)
  start!: string;

  @Field(() => String)
  end!: string;

  @Field(() => String, { nullable: true })
  reason?: string | null;
}

@ObjectType('CalendarWindow', { description: 'An absolute stretch of time, from (inclusive) to (exclusive).' })
export class CalendarWindow {
  @Field(() => DateTimeScalar)
  from!: Date;

  @Field(() => DateTimeScalar)
  to!: Date;

  @Field(() => String, { nullable: true })
  reason?: string | null;
}

/**
 * A named exclusion calendar. Resolvers return the store's rows (db/calendar-store.ts); `usedBy`,
 * `lastDate` and `runsOutSoon` are computed in calendar.resolver.ts.
 */
@ObjectType('Calendar', { description: 'Named exclusions in their own zone; a slot of a job naming it that it excludes is SKIPPED with code CALENDAR.' })
export class Calendar {
  @Field(() => String)
  name!: string;

  @Field(() => String, { description: 'IANA zone of its days and daily windows, canonical spelling.' })
  timezone!: string;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [LocalDateScalar], { description: 'Excluded local days, in order.' })
  dates!: string[];

  @Field(() => [String], { description: 'Days excluded every year, "MM-DD".' })
  yearly!: string[];

  @Field(() => [DailyWindow])
  dailyWindows!: DailyWindow[];

  @Field(() => [CalendarWindow])
  windows!: CalendarWindow[];

  @Field(() => DateTimeScalar)
  updatedAt!: Date;

  @Field(() => String, { nullable: true, description: 'Role or token name of the caller that last set it.' })
  updatedBy?: string | null;
}
