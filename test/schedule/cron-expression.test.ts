import { describe, expect, it } from 'vitest';
import { CronqlError } from '../../src/errors.js';
import { parseCronExpression } from '../../src/schedule/index.js';
import { thrownBy } from '../support/thrown.js';

const ALL_MINUTES = Array.from({ length: 60 }, (_, i) => i);

describe('parseCronExpression: accepted syntax', () => {
  it.each([
    // expression, field, expected values
    ['* * * * *', 'minutes', ALL_MINUTES],
    ['5 * * * *', 'minutes', [5]],
    ['05 * * * *', 'minutes', [5]],
    ['1-4 * * * *', 'minutes', [1, 2, 3, 4]],
    ['*/15 * * * *', 'minutes', [0, 15, 30, 45]],
    ['10-30/10 * * * *', 'minutes', [10, 20, 30]],
    ['50/4 * * * *', 'minutes', [50, 54, 58]],
    ['7,3,3,1-2 * * * *', 'minutes', [1, 2, 3, 7]],
    ['0 */6 * * *', 'hours', [0, 6, 12, 18]],
    ['0 0 1,15,31 * *', 'daysOfMonth', [1, 15, 31]],
    ['0 0 * JAN,mar,Dec *', 'months', [1, 3, 12]],
    ['0 0 * jun-AUG *', 'months', [6, 7, 8]],
    ['0 0 * */4 *', 'months', [1, 5, 9]],
    ['0 0 * * MON-FRI', 'daysOfWeek', [1, 2, 3, 4, 5]],
    ['0 0 * * sun,Sat', 'daysOfWeek', [0, 6]],
    ['0 0 * * 7', 'daysOfWeek', [0]],
    ['0 0 * * 5-7', 'daysOfWeek', [0, 5, 6]],
    ['0 0 * * 0,7', 'daysOfWeek', [0]],
    ['0 0 * * */2', 'daysOfWeek', [0, 2, 4, 6]],
    ['0 0 * * MON/2', 'daysOfWeek', [1, 3, 5]],
    ['0 0 ? * MON', 'daysOfMonth', Array.from({ length: 31 }, (_, i) => i + 1)],
    ['*/5 * * * * *', 'seconds', [0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]],
    ['* * * * *', 'seconds', [0]],
  ] as const)('%s → %s %j', (expression, field, values) => {
    expect(parseCronExpression(expression)[field]).toEqual(values);
  });

  it('keeps the source, counts the fields, and is frozen', () => {
    const five = parseCronExpression('  0 9 * * MON-FRI ');
    expect(five.source).toBe('  0 9 * * MON-FRI ');
    expect(five.hasSeconds).toBe(false);
    expect(Object.isFrozen(five)).toBe(true);
    expect(Object.isFrozen(five.minutes)).toBe(true);

    const six = parseCronExpression('30\t0 9 * * *');
    expect(six.hasSeconds).toBe(true);
    expect([six.seconds, six.minutes, six.hours]).toEqual([[30], [0], [9]]);
  });

  it.each([
    ['0 * * * *', true],
    ['*/30 * * * *', true],
    ['0 */2 * * *', true],
    ['0 1-23/2 * * *', true],
    ['0 5/6 * * *', true],
    ['30 2 * * *', false],
    ['0 1,2 * * *', false],
    ['0 0-23 * * *', false],
    ['@hourly', true],
    ['@daily', false],
  ] as const)('hourIsWildcardOrStep(%s) = %s', (expression, expected) => {
    expect(parseCronExpression(expression).hourIsWildcardOrStep).toBe(expected);
  });

  it.each([
    ['* * * * *', true, true],
    ['0 0 ? * ?', true, true],
    ['0 0 1 * *', false, true],
    ['0 0 * * 1', true, false],
    ['0 0 1 * 1', false, false],
    // Only a literal `*` or `?` is a wildcard: `*/2` restricts the field.
    ['0 0 */2 * *', false, true],
  ] as const)('day wildcards of %s: dom %s, dow %s', (expression, dom, dow) => {
    const cron = parseCronExpression(expression);
    expect([cron.daysOfMonthWildcard, cron.daysOfWeekWildcard]).toEqual([dom, dow]);
  });

  it.each([
    ['@yearly', '0 0 1 1 *'],
    ['@annually', '0 0 1 1 *'],
    ['@MONTHLY', '0 0 1 * *'],
    ['@weekly', '0 0 * * 0'],
    ['@daily', '0 0 * * *'],
    ['@midnight', '0 0 * * *'],
    ['@hourly', '0 * * * *'],
  ])('macro %s means %s', (macro, expansion) => {
    const { source: _a, ...fromMacro } = parseCronExpression(macro);
    const { source: _b, ...fromFields } = parseCronExpression(expansion);
    expect(fromMacro).toEqual(fromFields);
  });
});

describe('parseCronExpression: rejected input', () => {
  it.each([
    // expression, a fragment the message must contain
    ['', 'expected 5 fields'],
    ['   ', 'expected 5 fields'],
    ['* * * *', 'got 4'],
    ['0 0 0 * * * * *', 'got 8'], // 7 fields are seconds first, year last (cron-forms.test.ts)
    ['60 * * * *', 'minute field "60": 60 is out of range 0-59'],
    ['0 24 * * *', 'hour field "24"'],
    ['0 0 0 * *', 'day-of-month field "0": 0 is out of range 1-31'],
    ['0 0 32 * *', 'day-of-month field "32"'],
    ['0 0 * 13 *', 'month field "13"'],
    ['0 0 * 0 *', 'month field "0"'],
    ['0 0 * * 8', 'day-of-week field "8": 8 is out of range 0-7'],
    ['60 * * * * *', 'second field "60"'],
    ['1,,2 * * * *', 'minute field "1,,2": empty list item'],
    ['1, * * * *', 'empty list item'],
    ['5-1 * * * *', 'range "5-1" is reversed'],
    ['1-2-3 * * * *', 'is not a range'],
    ['-5 * * * *', 'missing value'],
    ['*/0 * * * *', 'step 0 is out of range 1-60'],
    ['*/90 * * * *', 'step 90 is out of range 1-60'],
    ['*/x * * * *', 'step "x" is not a number'],
    ['*/2/3 * * * *', 'more than one "/"'],
    ['1.5 * * * *', 'minute field "1.5": "1.5" is not a number'],
    ['+1 * * * *', 'is not a number'],
    ['0 ? * * *', '"?" is only allowed in the day-of-month and day-of-week fields'],
    ['0 0 * JANUARY *', 'is not a number or a month name'],
    ['0 0 * * MONDAY', 'is not a number or a day-of-week name'],
    ['0 0 * MON *', 'month field "MON"'],
    // L, W and # only where they mean something, and well formed.
    ['L 0 * * *', 'only allowed in the day-of-month'],
    ['0 L * * *', 'only allowed in the day-of-month'],
    ['0 0 * L *', 'only allowed in the day-of-month'],
    ['0 0 32W * *', 'nW takes a day from 1 to 31'],
    ['0 0 0W * *', 'nW takes a day from 1 to 31'],
    ['0 0 L-31 * *', 'L-n takes n from 1 to 30'],
    ['0 0 5#2 * *', 'is not L, L-n, nW or LW'],
    ['0 0 * * 8L', 'is not a day of the week'],
    ['0 0 * * 1#6', 'n#k takes k from 1 to 5'],
    ['0 0 * * 1#0', 'n#k takes k from 1 to 5'],
    ['0 0 * * LW', 'is not nL or n#k'],
    ['0 0 * * L', 'is not nL or n#k'],
    ['0 0 31W 2 *', 'can never fire'],
    ['@reboot', 'unsupported macro "@reboot"'],
    ['@every 5m', 'unsupported macro'],
    // Never fire: no allowed month is long enough for any allowed day (leap years included).
    ['0 0 30 2 *', 'can never fire'],
    ['0 0 31 4 *', 'can never fire'],
    ['0 0 31 APR,JUN,SEP,NOV *', 'can never fire'],
    ['0 0 30,31 FEB *', 'can never fire'],
  ])('%j is rejected (%s)', (expression, fragment) => {
    const error = thrownBy(() => parseCronExpression(expression));
    expect(error).toBeInstanceOf(CronqlError);
    const cronqlError = error as CronqlError;
    expect(cronqlError.code).toBe('INVALID_CRON_EXPRESSION');
    expect(cronqlError.message).toContain(fragment);
    expect(cronqlError.details).toEqual({ expression });
  });

  it.each([
    '0 0 29 2 *', // leap day: fires every 4 (at most 8) years
    '0 0 31 * *', // only in 31-day months
    '0 0 30 2 MON', // dom never, but OR-ed with Mondays
    '0 0 31 4,5 *', // April never, May does
  ])('%s can fire, so it is accepted', (expression) => {
    expect(() => parseCronExpression(expression)).not.toThrow();
  });
});

