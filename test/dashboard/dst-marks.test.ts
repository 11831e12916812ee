import { describe, expect, it } from 'vitest';
import { explainSlot, zoneOffsetMs } from '../../src/dashboard/app/dst-marks.js';
import { nextSlots } from '../../src/schedule/index.js';

/**
 * The dashboard's DST marks (src/dashboard/app/dst-marks.ts, pure), checked against the slots
 * cronql's own schedule math gives — the same ones `previewSchedule` returns.
 */
const NY = 'America/New_York';

function marks(expression: string, zone: string, from: string, count: number) {
  return nextSlots(expression, zone, new Date(from), count).map((d) => {
    const iso = d.toISOString();
    return { iso, mark: explainSlot(expression, zone, iso)?.mark ?? null };
  });
}

describe('explainSlot', () => {
  it('knows zone offsets', () => {
    expect(zoneOffsetMs(NY, Date.parse('2026-03-08T06:59:59Z'))).toBe(-5 * 3_600_000);
    expect(zoneOffsetMs(NY, Date.parse('2026-03-08T07:00:00Z'))).toBe(-4 * 3_600_000);
    expect(zoneOffsetMs('Asia/Kolkata', Date.parse('2026-01-01T00:00:00.500Z'))).toBe(5.5 * 3_600_000);
  });

  it('marks 02:30 on the spring-forward day as shifted, and only it', () => {
    const slots = marks('30 2 * * *', NY, '2026-03-06T00:00:00Z', 4);
    expect(slots).toEqual([
      { iso: '2026-03-06T07:30:00.000Z', mark: null },
      { iso: '2026-03-07T07:30:00.000Z', mark: null },
      { iso: '2026-03-08T07:30:00.000Z', mark: 'shifted' },
      { iso: '2026-03-09T06:30:00.000Z', mark: null },
    ]);
    expect(explainSlot('30 2 * * *', NY, '2026-03-08T07:30:00.000Z')?.note).toBe('02:30 does not exist on 2026-03-08 (clocks go forward); runs at 03:30');
  });

  it('does not mark a real 03:15 on that day, nor a seconds expression outside the gap', () => {
    expect(explainSlot('15 3 * * *', NY, '2026-03-08T07:15:00.000Z')).toBeNull();
    // Every 20 minutes: the slots after the gap are real slots of their own local time.
    const slots = marks('0 */20 * * * *', NY, '2026-03-08T06:30:00Z', 6);
    expect(slots.length).toBe(6);
    expect(slots.every((s) => s.mark === null)).toBe(true);
  });

  it('marks both occurrences of a repeated hour on the fall-back day', () => {
    const slots = marks('*/30 * * * *', NY, '2026-11-01T04:50:00Z', 6);
    // 01:00 EDT, 01:30 EDT, 01:00 EST, 01:30 EST repeat; 00:00 EDT and 02:00 EST do not.
    const repeated = slots.filter((s) => s.mark === 'repeated').map((s) => s.iso);
    expect(repeated).toEqual(
      ['2026-11-01T05:00:00.000Z', '2026-11-01T05:30:00.000Z', '2026-11-01T06:00:00.000Z', '2026-11-01T06:30:00.000Z'].filter((iso) => slots.some((s) => s.iso === iso)),
    );
    expect(repeated.length).toBeGreaterThanOrEqual(2);
    expect(explainSlot('30 1 * * *', NY, '2026-11-01T05:30:00.000Z')?.note).toContain('this is the first');
    expect(explainSlot('*/30 * * * *', NY, '2026-11-01T06:30:00.000Z')?.note).toContain('this is the second');
    expect(explainSlot('0 2 * * *', NY, '2026-11-01T07:00:00.000Z')).toBeNull();
  });

  it('marks nothing in a zone without DST, and survives an unknown zone or expression', () => {
    expect(marks('30 2 * * *', 'UTC', '2026-03-06T00:00:00Z', 5).every((s) => s.mark === null)).toBe(true);
    expect(explainSlot('30 2 * * *', 'Not/AZone', '2026-03-08T07:30:00.000Z')).toBeNull();
    expect(explainSlot('30 2 L * *', NY, '2026-03-08T07:30:00.000Z')?.mark).toBe('shifted');
    expect(explainSlot('H 2 * * *', NY, '2026-03-08T07:30:00.000Z')).toBeNull();
  });
});
