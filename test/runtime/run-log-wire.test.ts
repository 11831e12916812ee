import { describe, expect, it } from 'vitest';
import { decodeRanges, encodeRanges, RANGES_PER_NOTIFY } from '../../src/runtime/run-log-wire.js';

/** The run-log notification stays within NOTIFY's 8,000 bytes, and only its own shape is read. */
describe('run log notifications', () => {
  const id = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

  it('a batch of any size is split into payloads under 8,000 bytes that decode to the same ranges', () => {
    const instance = 'i'.repeat(200); // the longest instance id allowed
    for (const n of [1, RANGES_PER_NOTIFY - 1, RANGES_PER_NOTIFY, RANGES_PER_NOTIFY + 1, 2_000]) {
      const ranges = Array.from({ length: n }, (_, i) => ({ runId: id(i), from: 1 + (i % 7), to: 1_001 }));
      const payloads = encodeRanges(instance, ranges);
      expect(payloads).toHaveLength(Math.ceil(n / RANGES_PER_NOTIFY));
      for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThan(8_000);
      expect(payloads.flatMap((p) => decodeRanges(p)!.ranges)).toEqual(ranges);
      expect(decodeRanges(payloads[0])!.instanceId).toBe(instance);
    }
  });

  it('anything else is not a message', () => {
    const bad = [
      'not json',
      '{}',
      '{"i":"x"}',
      '{"i":1,"r":[]}',
      '{"i":"x","r":[["not-a-uuid",1,2]]}',
      `{"i":"x","r":[["${id(1)}",0,2]]}`,
      `{"i":"x","r":[["${id(1)}",3,2]]}`,
      `{"i":"x","r":[["${id(1)}",1.5,2]]}`,
      `{"i":"x","r":[["${id(1)}",1]]}`,
      JSON.stringify({ i: 'x', r: Array.from({ length: RANGES_PER_NOTIFY + 1 }, () => [id(1), 1, 1]) }),
    ];
    for (const payload of bad) expect(decodeRanges(payload), payload).toBeNull();
  });
});
