import { describe, expect, it } from 'vitest';
import { dueSlots, nextDueSlots, type DueJob } from '../../src/domain/due-slots.js';
import { JobStatus, ScheduleType } from '../../src/domain/enums.js';
import { validateCalendarRules } from '../../src/schedule/calendar.js';

/** The one rule of the slots that will run (domain/due-slots.ts), case by case. */
const hourly: DueJob = {
  scheduleType: ScheduleType.RECURRING, cronExpression: '0 * * * *', cronExpressions: ['0 * * * *'], runAt: null, timezone: 'UTC',
  everyMs: null, anchorAt: null, startAt: null, endAt: null, status: JobStatus.ACTIVE, pausedUntil: null, skipRemaining: 0, runsLeft: null, calendars: [],
};
const at = (h: number) => new Date(Date.UTC(2026, 5, 1, h));
const hours = (slots: Iterable<Date>) => [...slots].map((d) => d.getUTCHours());
const NOW = new Date(Date.UTC(2026, 5, 1, 7, 30));

describe('dueSlots', () => {
  it('is the schedule in the window when nothing is subtracted', () => {
    expect(hours(dueSlots(hourly, at(8), at(12), NOW))).toEqual([8, 9, 10, 11, 12]);
  });

  it('drops what a calendar excludes (an absolute window, [from, to))', () => {
    const freeze = validateCalendarRules({ name: 'freeze', windows: [{ from: at(10), to: at(12), reason: 'release' }] });
    expect(hours(dueSlots({ ...hourly, calendars: [freeze] }, at(8), at(14), NOW))).toEqual([8, 9, 12, 13, 14]);
  });

  it('skips the next N from now, even those before the window, and not the excluded ones', () => {
    const freeze = validateCalendarRules({ name: 'freeze', windows: [{ from: at(8), to: at(9) }] });
    // From 07:30: 08 is excluded (no skip used), 09 and 10 are skipped; the window starts at 10.
    expect(hours(dueSlots({ ...hourly, calendars: [freeze], skipRemaining: 2 }, at(10), at(13), NOW))).toEqual([11, 12, 13]);
  });

  it('stops after the runs maxRuns leaves, counted from now', () => {
    expect(hours(dueSlots({ ...hourly, runsLeft: 3 }, at(9), at(20), NOW))).toEqual([9, 10]);
    expect(hours(dueSlots({ ...hourly, runsLeft: 0 }, at(8), at(20), NOW))).toEqual([]);
  });

  it('starts a job paused until an instant at that instant (its slot included); paused for good or retired: none', () => {
    expect(hours(dueSlots({ ...hourly, status: JobStatus.PAUSED, pausedUntil: at(10) }, at(8), at(12), NOW))).toEqual([10, 11, 12]);
    expect(hours(dueSlots({ ...hourly, status: JobStatus.PAUSED }, at(8), at(12), NOW))).toEqual([]);
    expect(hours(dueSlots({ ...hourly, status: JobStatus.RETIRED }, at(8), at(12), NOW))).toEqual([]);
  });

  it('keeps to the bounds', () => {
    expect(hours(dueSlots({ ...hourly, startAt: at(9), endAt: at(11) }, at(8), at(14), NOW))).toEqual([9, 10, 11]);
  });

  it('nextDueSlots: the first N strictly after now', () => {
    expect(hours(nextDueSlots({ ...hourly, skipRemaining: 1 }, at(8), 3))).toEqual([10, 11, 12]);
  });
});
