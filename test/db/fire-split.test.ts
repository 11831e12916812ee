import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { RunStore } from '../../src/db/run-store.js';
import { FIRE_PARTS, FIRE_SPLIT_MIN, splitByJob, type DueSlot } from '../../src/db/runs/fire.js';
import { OverlapPolicy } from '../../src/domain/enums.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/** A deterministic generator (the same inputs every run). */
function rng(seed: number) {
  return (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
}

const hex = (n: number) => n.toString(16).padStart(12, '0');
const job = { jobKey: 'k', version: 1, target: 'log', payload: null, overlap: OverlapPolicy.SKIP };

/** Co-due slots of many jobs are recorded by several statements at once: how they are cut. */
describe('splitting co-due slots across statements', () => {
  it('cuts by ranges of job ids: every slot once, a job’s slots together, each part in job order', () => {
    const rand = rng(11);
    for (let round = 0; round < 36; round++) {
      const size = [1, 10, FIRE_SPLIT_MIN - 1, FIRE_SPLIT_MIN, FIRE_SPLIT_MIN + 1, 5_000][round % 6] + rand(50);
      // Some jobs with several slots (a catch-up), some runs of one job id to cross a cut.
      const slots: DueSlot[] = Array.from({ length: size }, (_, i) => ({
        jobId: `00000000-0000-4000-8000-${hex(rand(4) === 0 ? rand(20) : rand(1_000_000))}`,
        slot: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3)),
        job,
      }));
      const parts = splitByJob(slots);
      if (size < FIRE_SPLIT_MIN) {
        expect(parts).toEqual([slots]);
        continue;
      }
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.length).toBeLessThanOrEqual(FIRE_PARTS);
      // A permutation of the input: the same objects, each once.
      const seen = new Set(parts.flat());
      expect(seen.size).toBe(slots.length);
      expect(parts.flat().length).toBe(slots.length);
      expect(slots.every((s) => seen.has(s))).toBe(true);
      const owner = new Map<string, number>();
      parts.forEach((part, p) => {
        for (let i = 1; i < part.length; i++) expect(part[i - 1].jobId <= part[i].jobId).toBe(true);
        for (const s of part) {
          expect(owner.get(s.jobId) ?? p).toBe(p);
          owner.set(s.jobId, p);
        }
        // Balanced: no part is left with a sliver of the work.
        expect(part.length).toBeGreaterThan(slots.length / (2 * FIRE_PARTS));
      });
    }
  });

  describe('two instances recording the same co-due slots, each in parts', () => {
    let db: TestDatabase;
    let pool: Pool;
    const at = new Date('2026-11-24T12:00:00.000Z');
    beforeAll(async () => {
      db = await createTestDatabase();
      pool = createPool(db.url);
    });
    afterAll(async () => {
      await pool.end();
      await db.drop();
    });

    it('never deadlock, and record and claim every slot exactly once', async () => {
      const n = FIRE_SPLIT_MIN + 700;
      const ids = (
        await pool.query(
          `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
           SELECT gen_random_uuid(), 'split-' || i, 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $2, $2 FROM generate_series(1, $1) AS i RETURNING id`,
          [n, at],
        )
      ).rows.map((r) => r.id as string);
      const stores = ['split-a', 'split-b'].map((instanceId) => new RunStore({ pool, instanceId, now: () => at, publish: () => {} }));
      for (let minute = 0; minute < 3; minute++) {
        const slot = new Date(at.getTime() + minute * 60_000);
        // Each instance's slots in a different order: the cut and the statements' order do not depend on it.
        const order = (k: number) => (k === 0 ? ids : [...ids].reverse());
        const outcomes = await Promise.all(stores.map((store, k) => Promise.all(order(k).map((jobId) => store.fire({ jobId, slot, job })))));
        const claimed = outcomes.flat().filter((o) => o.kind === 'claimed');
        expect(claimed).toHaveLength(n);
        expect(outcomes.flat().filter((o) => o.kind === 'taken')).toHaveLength(n);
        const rows = await pool.query<{ n: number; runners: number }>(
          `SELECT count(*)::int AS n, count(DISTINCT (job_definition_id, runner_instance_id))::int AS runners FROM cron_job_runs WHERE scheduled_at = $1`,
          [slot],
        );
        expect(rows.rows[0]).toEqual({ n, runners: n });
        await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE scheduled_at = $1`, [slot]);
      }
    });
  });
});
