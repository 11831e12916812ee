import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import { parseSchedulePhrase } from '../../src/schedule/parse-english.js';

/** Plain English to cron: a table of phrases with the expression each must give, and phrases refused. */
const PHRASES: [phrase: string, expression: string, zone?: string][] = [
  ['every 5 minutes', '*/5 * * * *'],
  ['every minute', '* * * * *'],
  ['every 1 minute', '* * * * *'],
  ['every 30 seconds', '*/30 * * * * *'],
  ['every second', '* * * * * *'],
  ['every 2 hours', '0 */2 * * *'],
  ['every hour', '0 * * * *'],
  ['hourly', '0 * * * *'],
  ['daily', '0 0 * * *'],
  ['every day', '0 0 * * *'],
  ['weekly', '0 0 * * 0'],
  ['monthly', '0 0 1 * *'],
  ['yearly', '0 0 1 1 *'],
  ['annually', '0 0 1 1 *'],
  ['every day at noon', '0 12 * * *'],
  ['at midnight', '0 0 * * *'],
  ['every day at midnight', '0 0 * * *'],
  ['every weekday at 9am', '0 9 * * 1-5'],
  ['every weekday at 9:30 am', '30 9 * * 1-5'],
  ['on weekdays at 17:45', '45 17 * * 1-5'],
  ['every weekend at 10:30', '30 10 * * 0,6'],
  ['at 02:30 on the 1st of every month', '30 2 1 * *'],
  ['on the 1st of every month at 02:30', '30 2 1 * *'],
  ['on the 15th of each month at 6pm', '0 18 15 * *'],
  ['on the 1st and 15th of every month at 8am', '0 8 1,15 * *'],
  ['every monday and thursday at 18:15', '15 18 * * 1,4'],
  ['every monday, wednesday and friday at 7am', '0 7 * * 1,3,5'],
  ['every sunday at 6pm', '0 18 * * 0'],
  ['on fridays at 4:05 pm', '5 16 * * 5'],
  ['every tue at 9', '0 9 * * 2'],
  ['at 9:05 pm', '5 21 * * *'],
  ['at 12am', '0 0 * * *'],
  ['at 12pm', '0 12 * * *'],
  ['every day at 7:30 in Europe/Berlin', '30 7 * * *', 'Europe/Berlin'],
  ['every day at noon in Europe/Berlin', '0 12 * * *', 'Europe/Berlin'],
  ['every weekday at 9am in america/new_york', '0 9 * * 1-5', 'America/New_York'],
  ['hourly in UTC', '0 * * * *', 'UTC'],
  ['on the last day of every month at 23:00', '0 23 L * *'],
  ['on the last weekday of the month at 17:00', '0 17 LW * *'],
  ['on the first monday of every month at 9am', '0 9 * * 1#1'],
  ['on the third wednesday of each month at 10am', '0 10 * * 3#3'],
  ['on the last friday of every month at 16:00', '0 16 * * 5L'],
  ['every january 1st at midnight', '0 0 1 1 *'],
  ['on march 15 at 9am', '0 9 15 3 *'],
  ['every 15 minutes between 9am and 5pm on weekdays', '*/15 9-16 * * 1-5'],
  ['every hour between 8am and 6pm', '0 8-17 * * *'],
  ['every 10 minutes on weekdays', '*/10 * * * 1-5'],
  ['every 5 minutes on mondays', '*/5 * * * 1'],
  ['Every Weekday At 9AM.', '0 9 * * 1-5'],
];

const REFUSED = [
  '',
  'sometimes',
  'every blue moon',
  'every 0 minutes',
  'at 25:00',
  'at 13pm',
  'every day at 9am and then some',
  'every 5 minutes at 9am',
  'between 5pm and 9am every hour',
  'on the 32nd of every month',
  'x'.repeat(201),
  'every fortnight',
  'at 9:75',
];

describe('parseSchedule: phrases people write', () => {
  it.each(PHRASES)('%j → %s', (phrase, expression, zone) => {
    const parsed = parseSchedulePhrase(phrase);
    expect(parsed.cronExpression).toBe(expression);
    expect(parsed.timezone).toBe(zone ?? null);
  });

  it.each(REFUSED.map((p) => [p]))('%j is refused with UNPARSEABLE_SCHEDULE and examples that parse', (phrase) => {
    let error: unknown;
    try {
      parseSchedulePhrase(phrase);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CronqlError);
    expect((error as CronqlError).code).toBe('UNPARSEABLE_SCHEDULE');
    const examples = (error as CronqlError).details!.examples as string[];
    for (const example of examples) expect(() => parseSchedulePhrase(example)).not.toThrow();
  });

  it('a zone named in the phrase that does not exist is an INVALID_TIMEZONE', () => {
    expect(() => parseSchedulePhrase('every day at noon in Mars/Olympus')).toThrow(expect.objectContaining({ code: 'INVALID_TIMEZONE' }));
  });
});
