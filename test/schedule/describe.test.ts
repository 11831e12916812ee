import { describe, expect, it } from 'vitest';
import { describeSchedule } from '../../src/schedule/describe.js';
import { parseCronExpression } from '../../src/schedule/index.js';

/**
 * Descriptions of the forms cronstrue refuses or misreads (`#L`, a `#` after a range, the year
 * field): cronql writes the day-of-week rules in the forms cronstrue reads, and the year clause
 * itself. Every expression the parser accepts in the generated sets gets a sentence.
 */
const NOW = new Date('2026-03-01T00:00:00Z');
const WEEKDAYS = ['0', '1', '2', '3', '4', '5', '6', '7', 'SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const RULES = ['#1', '#2', '#3', '#4', '#5', '#L', 'L'];

const accepted = (expressions: string[]) => expressions.filter((e) => {
  try {
    parseCronExpression(e);
    return true;
  } catch {
    return false;
  }
});

describe('describeSchedule of #L, # on ranges and years', () => {
  it.each([
    ['0 0 * * SUN#L', 'At 00:00, on the last Sunday of the month'],
    ['0 0 * * 0#L', 'At 00:00, on the last Sunday of the month'],
    ['0 0 * * 7#L', 'At 00:00, on the last Sunday of the month'],
    ['0 0 * * 5#L', 'At 00:00, on the last Friday of the month'],
    ['0 0 0 * 2 THU-FRI#L', 'At 00:00, on the last Thursday and Friday of the month, only in February'],
    ['0 0 * * THU-FRI#2', 'At 00:00, on the second Thursday and second Friday of the month'],
    ['0 0 0 * * SUN-MON#3,MON-TUE#1', 'At 00:00, on the third Sunday, third Monday, first Monday, and first Tuesday of the month'],
    ['0 0 0 1 1 * 2024-2030/2', 'At 00:00, on day 1 of the month, only in January, every 2 years from 2024 to 2030'],
    ['0 0 0 1 1 * 2024,2026,2028', 'At 00:00, on day 1 of the month, only in January, in 2024, 2026 and 2028'],
    ['0 0 0 1 1 * 2030', 'At 00:00, on day 1 of the month, only in January, only in 2030'],
    ['0 0 0 1 1 * 2027/3', 'At 00:00, on day 1 of the month, only in January, every 3 years from 2027'],
    ['0 0 0 1 1 * 2027-2029', 'At 00:00, on day 1 of the month, only in January, every year from 2027 to 2029'],
    ['0 0 0 1 1 * 2026,2030-2040/5', 'At 00:00, on day 1 of the month, only in January, in 2026 and every 5 years from 2030 to 2040'],
    ['0 0 0 1 1 * 1-9999/2', 'At 00:00, on day 1 of the month, only in January, every 2 years from 1 to 9999'],
    ['0 0 0 1 1 * *', 'At 00:00, on day 1 of the month, only in January'],
    ['0 30 9 * * SUN#L 2027', 'At 09:30, on the last Sunday of the month, only in 2027'],
  ])('%s → %s', (expression, text) => {
    expect(describeSchedule(expression, 'UTC', NOW)).toBe(text);
  });

  it('keeps what it said before for the forms it read already', () => {
    expect(describeSchedule('0 0 * * 0L', 'UTC', NOW)).toBe('At 00:00, on the last Sunday of the month');
    expect(describeSchedule('0 9 * * 1#1', 'UTC', NOW)).toBe('At 09:00, on the first Monday of the month');
    expect(describeSchedule('0 0 L * *', 'UTC', NOW)).toBe('At 00:00, on the last day of the month');
    expect(describeSchedule('*/10 * * * * *', 'UTC', NOW)).toBe('Every 10 seconds');
  });

  it('every accepted day-of-week rule, alone, on a range, in a list, with a year: a sentence, never a throw', () => {
    const singles = WEEKDAYS.flatMap((w) => RULES.map((r) => `0 0 * * ${w}${r}`));
    const ranges = WEEKDAYS.flatMap((a) => WEEKDAYS.flatMap((b) => ['#2', '#L', 'L'].map((r) => `0 0 12 * * ${a}-${b}${r}`)));
    const lists = ['1,2#L', 'SAT-SUN#L,SUN#1', '1-5/2#1,0L', 'MON,WED#3,FRI-SUN#L', '*#1'].map((f) => `0 9 * * ${f}`);
    const years = ['2026', '2026-2030', '2026/2', '2026-2040/7', '2026,2028,2031-2033', '*', '1-9999/2', '9999']
      .flatMap((y) => [`0 0 0 1 1 * ${y}`, `0 0 12 * * SUN#L ${y}`, `*/15 0 0 L * * ${y}`, `0 0 0 15W * MON-TUE#2 ${y}`]);
    const all = accepted([...singles, ...ranges, ...lists, ...years]);
    expect(all.length).toBeGreaterThan(300);
    for (const expression of all) {
      for (const zone of ['UTC', 'America/New_York']) {
        const text = describeSchedule(expression, zone, NOW);
        expect(text, expression).toMatch(/^(At|Every|Seconds|Minutes) /);
        expect(text, expression).not.toMatch(/#|undefined|NaN/);
        if (/#L|\dL|[A-Z]L/i.test(expression.split(' ')[5])) expect(text, expression).toContain('last');
        if (/ [\d,/-]+$/.test(expression)) expect(text, expression).toMatch(/(in|from|to) \d+(,| |$)/);
      }
    }
  });
});
