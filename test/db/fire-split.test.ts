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

/** `n` ACTIVE jobs keyed `${prefix}-1`…; their ids. */
async function activeJobs(pool: Pool, n: number, prefix: string, at: Date): Promise<string[]> {
  const res = await pool.query(
    `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at)
     SELECT gen_random_uuid(), $3 || '-' || i, 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $2, $2 FROM generate_series(1, $1) AS i RETURNING id`,
    [n, at, prefix],
  );
  return res.rows.map((r) => r.id as string);
}
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

  it('orders slots in any order as sorting by job id does (uuids alike in their first 32 bits, a job several times, ids that are not lowercase uuids)', () => {
    const rand = rng(23);
    const byText = (a: DueSlot, b: DueSlot) => (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0);
    const uuid = (prefix: number) => `${prefix.toString(16).padStart(8, '0')}-${hex(rand(65_536)).slice(8)}-4000-8000-${hex(rand(1_000_000_000))}`;
    for (const [size, odd] of [[FIRE_SPLIT_MIN, ''], [10_000, ''], [10_000, 'ABCDEF12-0000-4000-8000-000000000000'], [3_000, 'short'], [3_000, 'zz000000-0000-4000-8000-000000000000']] as const) {
      const ids = Array.from({ length: size }, () => {
        const r = rand(10);
        // A tenth share a few prefixes (ties in the first 32 bits); some ids come again (a job's several slots).
        return r === 0 ? uuid(rand(3) * 0x10000000) : r === 1 ? `00000000-0000-4000-8000-${hex(rand(20))}` : uuid(rand(2 ** 31) * 2 + rand(2));
      });
      if (odd) ids[rand(size)] = odd;
      const slots: DueSlot[] = ids.map((jobId, i) => ({ jobId, slot: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 3)), job }));
      const parts = splitByJob(slots);
      // The same objects in the same order as a stable sort by the ids' text.
      const sorted = [...slots].sort(byText);
      const got = parts.flat();
      expect(got.map((s) => s.jobId)).toEqual(sorted.map((s) => s.jobId));
      expect(got.every((s, i) => s === sorted[i])).toBe(true);
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
      const ids = await activeJobs(pool, n, 'split', at);
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

    it('gives the runs of a batch in parts ids made in job order: each part’s after the part before (no two statements at one index edge)', async () => {
      const n = FIRE_SPLIT_MIN + 700;
      const jobIds = await activeJobs(pool, n, 'ids', at);
      const store = new RunStore({ pool, instanceId: 'ids', now: () => at, publish: () => {} });
      const rand = rng(3);
      for (let minute = 0; minute < 3; minute++) {
        const slot = new Date(at.getTime() + (100 + minute) * 60_000);
        const order = [...jobIds].sort(() => rand(3) - 1);
        const outcomes = await Promise.all(order.map((jobId) => store.fire({ jobId, slot, job })));
        expect(outcomes.every((o) => o.kind === 'claimed')).toBe(true);
        const rows = (
          await pool.query<{ id: string; job: string }>(`SELECT id, job_definition_id AS job FROM cron_job_runs WHERE scheduled_at = $1 ORDER BY id`, [slot])
        ).rows;
        expect(rows).toHaveLength(n);
        // UUIDv7 on any PostgreSQL version, and in id order the runs are in their jobs' order:
        // the parts' ids do not interleave.
        for (const r of rows) expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(rows.map((r) => r.job)).toEqual([...jobIds].sort());
        await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE scheduled_at = $1`, [slot]);
      }
    });

    it('answers each slot with its own run, whatever order the slots come in and whichever were taken', async () => {
      const n = 300;
      const ids = await activeJobs(pool, n, 'order', at);
      const sorted = [...ids].sort();
      const rand = rng(7);
      const shuffled = [...ids].sort(() => rand(3) - 1);
      const [mine, other] = ['order-a', 'order-b'].map((instanceId) => new RunStore({ pool, instanceId, now: () => at, publish: () => {} }));
      const orders = { 'job order': sorted, 'reverse job order': [...sorted].reverse(), shuffled };
      let minute = 10;
      for (const [name, order] of Object.entries(orders)) {
        for (const takenFirst of [false, true]) {
          const slot = new Date(at.getTime() + minute++ * 60_000);
          // The other instance records every third job's slot first: those are `taken` here.
          if (takenFirst) await Promise.all(sorted.filter((_, i) => i % 3 === 0).map((jobId) => other.fire({ jobId, slot, job })));
          // A catch-up: one job's slot of 30 s earlier too, handed on after the later one. The
          // earlier one is inserted first (slot order) and runs; the later one overlaps it.
          const catchUp = sorted[1];
          const earlier = new Date(slot.getTime() - 30_000);
          const due: DueSlot[] = [...order.map((jobId) => ({ jobId, slot, job })), { jobId: catchUp, slot: earlier, job }];
          const outcomes = await Promise.all(due.map((d) => mine.fire(d)));
          outcomes.forEach((o, i) => {
            const { jobId, slot: at } = due[i];
            const expected = takenFirst && sorted.indexOf(jobId) % 3 === 0 ? 'taken' : jobId === catchUp && at === slot ? 'skipped' : 'claimed';
            expect({ order: name, takenFirst, kind: o.kind }).toEqual({ order: name, takenFirst, kind: expected });
            if (o.kind === 'claimed') expect([o.run.jobId, o.run.scheduledAt.getTime()]).toEqual([due[i].jobId, due[i].slot.getTime()]);
          });
          const ran = outcomes.flatMap((o) => (o.kind === 'claimed' ? [o.run.id] : []));
          expect(new Set(ran).size).toBe(ran.length);
          const rows = await pool.query(`SELECT id, job_definition_id, scheduled_at FROM cron_job_runs WHERE id = ANY($1::uuid[])`, [ran]);
          expect(rows.rowCount).toBe(ran.length);
          const byId = new Map(rows.rows.map((r) => [r.id as string, r]));
          for (const o of outcomes) {
            if (o.kind !== 'claimed') continue;
            const row = byId.get(o.run.id)!;
            expect([row.job_definition_id, (row.scheduled_at as Date).getTime()]).toEqual([o.run.jobId, o.run.scheduledAt.getTime()]);
          }
          await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE status = 'RUNNING'`, [slot]);
        }
      }
    });
  });
});
