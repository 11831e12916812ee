import { describe, expect, it } from 'vitest';
import { nextSlots, nextSlotsExplained } from '../../src/schedule/index.js';

/**
 * What DST did to each previewed slot (`previewScheduleSlots`), from the walk that found the slot:
 * SHIFTED out of a spring-forward gap, REPEATED in a fall-back hour. (The dashboard shows these
 * marks as they come; it computed them itself before.)
 */
const NY = 'America/New_York';

function marks(expression: string, zone: string, from: string, count: number) {
  return nextSlotsExplained(expression, zone, new Date(from), count).map((s) => ({ iso: s.at.toISOString(), mark: s.dst?.mark ?? null }));
}

describe('nextSlotsExplained', () => {
  it('gives the slots nextSlots gives', () => {
    for (const [expression, zone, from] of [
      ['30 2 * * *', NY, '2026-03-06T00:00:00Z'],
      ['*/30 * * * *', NY, '2026-11-01T04:50:00Z'],
      ['0 */20 * * * *', NY, '2026-03-08T06:30:00Z'],
      ['15 1 * * 0', 'Europe/Berlin', '2026-10-20T00:00:00Z'],
    ] as const) {
      const plain = nextSlots(expression, zone, new Date(from), 12).map((d) => d.toISOString());
      expect(nextSlotsExplained(expression, zone, new Date(from), 12).map((s) => s.at.toISOString())).toEqual(plain);
    }
  });

  it('marks 02:30 on the spring-forward day as SHIFTED, and only it', () => {
    expect(marks('30 2 * * *', NY, '2026-03-06T00:00:00Z', 4)).toEqual([
      { iso: '2026-03-06T07:30:00.000Z', mark: null },
      { iso: '2026-03-07T07:30:00.000Z', mark: null },
      { iso: '2026-03-08T07:30:00.000Z', mark: 'SHIFTED' },
      { iso: '2026-03-09T06:30:00.000Z', mark: null },
    ]);
    const shifted = nextSlotsExplained('30 2 * * *', NY, new Date('2026-03-08T00:00:00Z'), 1)[0];
    expect(shifted.dst).toEqual({ mark: 'SHIFTED', note: '02:30 does not exist on 2026-03-08 (clocks go forward); runs at 03:30' });
  });

  it('does not mark a real 03:15 on that day, nor a seconds expression whose slots after the gap are real', () => {
    expect(marks('15 3 * * *', NY, '2026-03-08T00:00:00Z', 1)).toEqual([{ iso: '2026-03-08T07:15:00.000Z', mark: null }]);
    const slots = marks('0 */20 * * * *', NY, '2026-03-08T06:30:00Z', 6);
    expect(slots).toHaveLength(6);
    expect(slots.every((s) => s.mark === null)).toBe(true);
  });

  it('marks both occurrences of a repeated hour on the fall-back day, first and second', () => {
    const slots = marks('*/30 * * * *', NY, '2026-11-01T04:50:00Z', 6);
    // 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST repeat; 00:00 EDT and 02:00 EST do not.
    expect(slots.filter((s) => s.mark === 'REPEATED').map((s) => s.iso)).toEqual([
      '2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T06:30:00.000Z',
    ]);
    const notes = nextSlotsExplained('*/30 * * * *', NY, new Date('2026-11-01T04:50:00Z'), 6).map((s) => s.dst?.note ?? null);
    expect(notes[1]).toBe('01:30 occurs twice on 2026-11-01 (clocks go back); this is the first');
    expect(notes[3]).toBe('01:30 occurs twice on 2026-11-01 (clocks go back); this is the second');
    expect(nextSlotsExplained('30 1 * * *', NY, new Date('2026-11-01T00:00:00Z'), 1)[0].dst?.note).toContain('this is the first');
    expect(marks('0 2 * * *', NY, '2026-11-01T00:00:00Z', 1)).toEqual([{ iso: '2026-11-01T07:00:00.000Z', mark: null }]);
  });

  it('marks nothing in a zone without DST, and SHIFTED/REPEATED in other zones and offsets', () => {
    expect(marks('30 2 * * *', 'UTC', '2026-03-06T00:00:00Z', 5).every((s) => s.mark === null)).toBe(true);
    // Berlin goes forward at 02:00 on 2026-03-29 and back at 03:00 on 2026-10-25; Lord Howe by 30 minutes.
    expect(marks('30 2 * * *', 'Europe/Berlin', '2026-03-28T12:00:00Z', 2).map((s) => s.mark)).toEqual(['SHIFTED', null]);
    expect(marks('30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2).map((s) => s.mark)).toEqual(['REPEATED', null]);
    expect(nextSlotsExplained('15 2 * * *', 'Australia/Lord_Howe', new Date('2026-10-03T00:00:00Z'), 1)[0].dst?.note).toBe(
      '02:15 does not exist on 2026-10-04 (clocks go forward); runs at 02:45',
    );
  });
});
