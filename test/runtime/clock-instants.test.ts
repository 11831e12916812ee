import { describe, expect, it } from 'vitest';
import { SystemClock } from '../../src/runtime/clock.js';
import { eventually } from '../support/cronql.js';

/**
 * The system clock keeps co-due alarms together (one heap entry per instant): what an alarm sees
 * must not change — alarms of one instant in the order they were set, instants in time order, a
 * cancelled alarm never woken, and an alarm set while its instant's alarms fire woken after them.
 */
describe('the system clock, alarms of one instant', () => {
  it('wakes co-due alarms in the order they were set, instants in time order, never a cancelled one', async () => {
    const clock = new SystemClock();
    const fired: string[] = [];
    const t = Date.now();
    const a = new Date(t - 30);
    const b = new Date(t - 20);
    const alarms = [];
    // Interleaved: b, a, b, a …; some cancelled, before and after others of their instant.
    for (let i = 0; i < 200; i++) alarms.push(clock.setAlarm(i % 2 ? a : b, () => fired.push(`${i % 2 ? 'a' : 'b'}${i}`)));
    for (const i of [0, 1, 57, 58, 198, 199]) alarms[i].cancel();
    await eventually(() => fired.length === 194, 5_000);
    const expected = [
      ...Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 2 === 1 && ![1, 57, 199].includes(i)).map((i) => `a${i}`),
      ...Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 2 === 0 && ![0, 58, 198].includes(i)).map((i) => `b${i}`),
    ];
    expect(fired).toEqual(expected);
    clock.close();
  });

  it('an alarm set for an instant while its alarms fire, or cancelled by one of them, is handled in order', async () => {
    const clock = new SystemClock();
    const fired: string[] = [];
    const at = new Date(Date.now() - 10);
    let later: { cancel(): void } | undefined;
    clock.setAlarm(at, () => {
      fired.push('first');
      clock.setAlarm(at, () => fired.push('set while firing'));
      later?.cancel();
    });
    clock.setAlarm(at, () => fired.push('second'));
    later = clock.setAlarm(at, () => fired.push('cancelled by the first'));
    clock.setAlarm(at, () => fired.push('third'));
    await eventually(() => fired.length === 4, 5_000);
    expect(fired).toEqual(['first', 'second', 'third', 'set while firing']);
    clock.close();
  });

  it('keeps the live alarms of compacted instants, in order, and the count of those kept', async () => {
    const clock = new SystemClock();
    const fired: number[] = [];
    const t = Date.now();
    // Due already (they fire on the next turn): cancelling synchronously before it, 2,500 of 3,000
    // compacts the heap (over 1,000 cancelled and half of all) while they wait.
    const alarms = Array.from({ length: 3_000 }, (_, i) => clock.setAlarm(new Date(t - 100 + (i % 3)), () => fired.push(i)));
    for (let i = 0; i < 3_000; i++) if (i % 6 !== 0) alarms[i].cancel();
    // Compacted once at 1,500 cancelled of 3,000 (1,500 kept); the 1,000 cancelled after it wait for their turn.
    expect((clock as unknown as { size: number }).size).toBe(1_500);
    await eventually(() => fired.length === 500, 5_000);
    const live = Array.from({ length: 500 }, (_, k) => k * 6);
    // Instants in time order (i % 3), each instant's alarms in the order they were set.
    expect(fired).toEqual([...live.filter((i) => i % 3 === 0), ...live.filter((i) => i % 3 === 1), ...live.filter((i) => i % 3 === 2)]);
    alarms[0].cancel(); // fired: a no-op
    clock.close();
  });
});
