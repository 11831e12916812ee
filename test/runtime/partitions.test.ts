import { describe, expect, it } from 'vitest';
import { ownedPartitions, ownersOf, PARTITION_OF_KEY, PARTITIONS, partitionOfKey } from '../../src/domain/partitions.js';
import { useCronql } from '../support/cronql.js';

/** The assignment of jobs to schedulers: the same partition in SQL and in code; rendezvous hashing's promises. */
describe('partitions and their owners', () => {
  const t = useCronql({ role: 'api', listen: false });

  it('the database and the code put every key in the same partition', async () => {
    const keys = Array.from({ length: 60_000 }, (_, i) => `job-${i}-${'é'.repeat(i % 3)}`);
    const res = await t.cronql.pool.query(`SELECT job_key, ${PARTITION_OF_KEY} AS p FROM unnest($1::text[]) AS u(job_key)`, [keys]);
    for (const row of res.rows) expect(row.p).toBe(partitionOfKey(row.job_key));
    const used = new Set(res.rows.map((r) => r.p));
    expect(used.size).toBe(PARTITIONS); // 60,000 keys reach every partition
  });

  const members = (n: number) => Array.from({ length: n }, (_, i) => `scheduler-${i}`);

  it('each partition has `replicas` owners; shares are even; 0 means everyone', () => {
    for (const n of [1, 2, 3, 4, 7]) {
      const m = members(n);
      const counts = new Map(m.map((id) => [id, 0]));
      for (let p = 0; p < PARTITIONS; p++) {
        const owners = ownersOf(p, m, 2);
        expect(owners).toHaveLength(Math.min(2, n));
        for (const o of owners) counts.set(o, counts.get(o)! + 1);
      }
      const expected = (PARTITIONS * Math.min(2, n)) / n;
      for (const c of counts.values()) expect(Math.abs(c - expected) / expected).toBeLessThan(0.1); // 4,096 partitions: about 1 % of spread
      expect(ownersOf(5, m, 0)).toEqual([...m].sort());
    }
  });

  it('a new member takes about its share and nothing moves between the others; a lost one moves only its own', () => {
    const three = members(3);
    const four = [...three, 'scheduler-new'];
    let moved = 0;
    for (let p = 0; p < PARTITIONS; p++) {
      const before = new Set(ownersOf(p, three, 2));
      const after = ownersOf(p, four, 2);
      for (const o of after) if (!before.has(o)) {
        expect(o).toBe('scheduler-new'); // only the newcomer gains
        moved++;
      }
    }
    expect(moved / (PARTITIONS * 2)).toBeGreaterThan(0.15); // about 1/4 of the placements
    expect(moved / (PARTITIONS * 2)).toBeLessThan(0.35);
    const survivors = three.slice(1);
    for (let p = 0; p < PARTITIONS; p++) {
      const before = ownersOf(p, three, 2);
      const after = new Set(ownersOf(p, survivors, 2));
      for (const o of before) if (o !== 'scheduler-0') expect(after.has(o)).toBe(true); // nobody else loses anything
    }
    for (const me of four) {
      const owned = ownedPartitions(me, four, 2);
      for (let p = 0; p < PARTITIONS; p += 7) expect(owned.has(p)).toBe(ownersOf(p, four, 2).includes(me));
    }
  });
});
