import { describe, expect, it } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import { DEFAULT_SETTINGS, NO_SCHEDULE_EXTRAS, type JobSnapshot } from '../../src/domain/job.js';
import { planExcludedSlot } from '../../src/runtime/calendar-skips.js';
import { validateCalendarRules } from '../../src/schedule/calendar.js';

/**
 * What becomes of an excluded slot (pure): the same plan whatever the kind of schedule — here an
 * INTERVAL job and a job of two expressions — and whoever asks, from the span's start.
 */
const job = (fields: Partial<JobSnapshot>): JobSnapshot => ({
  id: '00000000-0000-4000-8000-000000000001',
  jobKey: 'plan',
  version: 1,
  target: 'log',
  scheduleType: ScheduleType.RECURRING,
  cronExpression: null,
  runAt: null,
  timezone: 'UTC',
  status: 'ACTIVE' as JobSnapshot['status'],
  ...DEFAULT_SETTINGS,
  ...NO_SCHEDULE_EXTRAS,
  calendars: ['freeze'],
  pausedUntil: null,
  revision: 1,
  updatedAt: new Date('2026-01-01T00:00:00Z'),
  ...fields,
});

const freeze = validateCalendarRules({ name: 'freeze', windows: [{ from: new Date('2026-05-01T00:00:00Z'), to: new Date('2026-05-03T00:00:00Z') }] });

describe('planExcludedSlot', () => {
  it('an INTERVAL job every 45 minutes: 100 rows, the 101st the summary of the rest of the span, then none', () => {
    const every45 = job({ scheduleType: ScheduleType.INTERVAL, everyMs: 45 * 60_000, anchorAt: new Date('2026-04-30T23:15:00Z') });
    const slot = (k: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + k * 45 * 60_000);
    expect(planExcludedSlot(every45, new Date('2026-04-30T23:15:00Z'), [freeze])).toBeNull();
    expect(planExcludedSlot(every45, slot(0), [freeze])).toMatchObject({ recorded: 'row', row: { code: 'CALENDAR', details: { calendar: 'freeze' } } });
    // 48 h / 45 min = 64 slots: never more than 100, so no summary at all.
    expect(planExcludedSlot(every45, slot(63), [freeze])!.recorded).toBe('row');
    expect(planExcludedSlot(every45, slot(64), [freeze])).toBeNull();
    const every10 = job({ scheduleType: ScheduleType.INTERVAL, everyMs: 10 * 60_000, anchorAt: new Date('2026-04-30T00:00:00Z') });
    const at = (k: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + k * 10 * 60_000);
    expect(planExcludedSlot(every10, at(99), [freeze])!.recorded).toBe('row');
    const summary = planExcludedSlot(every10, at(100), [freeze])!;
    expect(summary.recorded).toBe('summary');
    // 288 slots in 48 h; the summary stands for the 101st to the 288th.
    expect(summary.row!.details).toMatchObject({ summary: { count: 188, countIsLowerBound: false, from: at(100).toISOString(), to: at(287).toISOString() } });
    expect(planExcludedSlot(every10, at(101), [freeze])).toMatchObject({ recorded: 'summarised', row: null });
  });

  it('two expressions naming the same instant count it once', () => {
    const two = job({ cronExpression: '*/10 * * * *', cronExpressions: ['*/10 * * * *', '*/30 * * * *'] });
    const at = (k: number) => new Date(Date.parse('2026-05-01T00:00:00Z') + k * 10 * 60_000);
    expect(planExcludedSlot(two, at(99), [freeze])!.recorded).toBe('row');
    expect(planExcludedSlot(two, at(100), [freeze])!.recorded).toBe('summary');
  });

  it('counts from when the job version last changed, if inside the span', () => {
    const changed = job({ cronExpression: '*/10 * * * *', cronExpressions: ['*/10 * * * *'], updatedAt: new Date('2026-05-02T00:00:00Z') });
    const at = (k: number) => new Date(Date.parse('2026-05-02T00:00:00Z') + k * 10 * 60_000);
    expect(planExcludedSlot(changed, at(99), [freeze])!.recorded).toBe('row');
    // The 101st slot since the change (16:40), though the 245th of the span: the summary.
    expect(planExcludedSlot(changed, at(100), [freeze])).toMatchObject({ recorded: 'summary', row: { details: { summary: { count: 44 } } } });
  });
});
