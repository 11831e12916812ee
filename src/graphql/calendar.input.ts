import { Field, InputType } from 'type-graphql';
import { DateTimeScalar, LocalDateScalar } from './scalars.js';

@InputType('DailyWindowInput')
export class DailyWindowInput {
  @Field(() => String, { description: 'Local "HH:MM", 00:00–23:59.' })
  start!: string;

  @Field(() => String, { description: 'Local "HH:MM", 00:00–24:00; at or before start: the window ends the next day.' })
  end!: string;

  @Field(() => String, { nullable: true })
  reason?: string | null;
}

@InputType('CalendarWindowInput')
export class CalendarWindowInput {
  @Field(() => DateTimeScalar)
  from!: Date;

  @Field(() => DateTimeScalar, { description: 'Exclusive; after from.' })
  to!: Date;

  @Field(() => String, { nullable: true })
  reason?: string | null;
}

@InputType('CalendarInput', { description: 'A whole calendar: setCalendar replaces the one of that name. Bad values fail with BAD_USER_INPUT (details.field) or INVALID_TIMEZONE.' })
export class CalendarInput {
  @Field(() => String, { description: '1–64 letters, digits and . _ -; what jobs list in calendars.' })
  name!: string;

  @Field(() => String, { nullable: true, defaultValue: 'UTC', description: 'IANA zone of the days and daily windows.' })
  timezone?: string | null;

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field(() => [LocalDateScalar], { nullable: true, description: 'Excluded local days (at most 1000).' })
  dates?: string[] | null;

  @Field(() => [String], { nullable: true, description: '"MM-DD": that day every year (at most 366; 02-29 in leap years only).' })
  yearly?: string[] | null;

  @Field(() => [DailyWindowInput], { nullable: true, description: 'At most 24.' })
  dailyWindows?: DailyWindowInput[] | null;

  @Field(() => [CalendarWindowInput], { nullable: true, description: 'At most 200.' })
  windows?: CalendarWindowInput[] | null;
}
