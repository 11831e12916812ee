import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { RunStore } from '../../src/db/run-store.js';
import type { FireOutcome } from '../../src/db/runs/fire.js';
import { SlotRaces } from '../../src/db/runs/slot-races.js';
import { OverlapPolicy } from '../../src/domain/enums.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/** A deterministic generator (the same inputs every run). */
function rng(seed: number) {
  return (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
}

/**
 * What a job is like when its slot comes due: `taken`, another instance recorded the slot first
 * and its run is still active; `takenEnded`, and it ended already (the job's lane is free).
 */
type State = 'free' | 'busy' | 'taken' | 'takenEnded' | 'skipAsked';
interface Case {
  overlap: OverlapPolicy;
  maxConcurrentRuns: number;
  state: State;
  /** Active runs of the job when the slot comes due (ALLOW may have several). */
  busy: number;
}

/** What the slot must become, by the rules of docs/behaviour.md (overlap, admin skips, the slot key). */
function expected(c: Case): FireOutcome['kind'] {
  if (c.state === 'taken' || c.state === 'takenEnded') return 'taken';
  if (c.state === 'skipAsked') return 'skipped';
  if (c.busy === 0 || (c.overlap === OverlapPolicy.ALLOW && c.busy < c.maxConcurrentRuns)) return 'claimed';
  if (c.overlap === OverlapPolicy.BUFFER_ONE) return 'buffered';
  return 'skipped';
}

/**
 * A slot is recorded by a statement that fails on a conflict while the instance meets no other
 * writer of its slots (cheaper), and skips conflicts once it does (fire.ts, `claimRunning`): the
 * outcomes must be the same either way, and no statement may fail for what a lone instance meets.
 */
describe('recording co-due slots with and without ON CONFLICT', () => {
  let db: TestDatabase;
  let pool: Pool;
  let now = new Date('2026-11-27T12:00:00.000Z');
  /** This instance's claiming inserts (`skips`: with ON CONFLICT), and how each ended. */
  const claims: { skips: boolean; failed?: string }[] = [];
  let mine: RunStore;
  let other: RunStore;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    const query = pool.query.bind(pool) as (config: string | { text: string; values: unknown[] }, params?: unknown[]) => Promise<unknown>;
    (pool as unknown as { query: typeof query }).query = (config, values) => {
      const p = query(config, values);
      // The claiming insert is a named statement (a config object); the others are text and values.
      const [text, params] = typeof config === 'string' ? [config, values ?? []] : [config.text, config.values];
      if (text.trimStart().startsWith('INSERT INTO cron_job_runs') && text.includes(`'RUNNING'`) && params.includes('conflicts-mine')) {
        const seen: { skips: boolean; failed?: string } = { skips: text.includes('ON CONFLICT') };
        claims.push(seen);
        p.catch((err: { code?: string }) => (seen.failed = err.code));
      }
      return p;
    };
    mine = new RunStore({ pool, instanceId: 'conflicts-mine', now: () => now, publish: () => {} });
    other = new RunStore({ pool, instanceId: 'conflicts-other', now: () => now, publish: () => {} });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  let made = 0;
  async function jobs(cases: Case[]): Promise<string[]> {
    const res = await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, created_at, updated_at, overlap, max_concurrent_runs, skip_remaining)
       SELECT gen_random_uuid(), 'conflicts-' || ($1::int + i), 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $2, $2, o, m, s
       FROM unnest($3::text[], $4::int[], $5::int[]) WITH ORDINALITY AS u(o, m, s, i) ORDER BY i RETURNING id`,
      [made, now, cases.map((c) => c.overlap), cases.map((c) => c.maxConcurrentRuns), cases.map((c) => (c.state === 'skipAsked' ? 1 : 0))],
    );
    made += cases.length;
    return res.rows.map((r) => r.id as string);
  }
  const firing = (overlap: OverlapPolicy) => ({ jobKey: 'k', version: 1, target: 'log', payload: null, overlap });

  /** Fires one slot of every case's job together (one batch) and checks each outcome and the rows. */
  async function round(cases: Case[], slot: Date): Promise<void> {
    const ids = await jobs(cases);
    // Busy jobs: runs of earlier slots still active (ALLOW: one per lane).
    for (let k = 1; k <= Math.max(...cases.map((c) => c.busy)); k++) {
      const earlier = new Date(slot.getTime() - k * 60_000);
      const busyNow = cases.flatMap((c, i) => (c.busy >= k ? [i] : []));
      const outcomes = await Promise.all(busyNow.map((i) => other.fire({ jobId: ids[i], slot: earlier, job: firing(cases[i].overlap) })));
      expect(outcomes.map((o) => o.kind)).toEqual(busyNow.map(() => 'claimed'));
    }
    // Slots another instance recorded first.
    const taken = cases.flatMap((c, i) => (c.state === 'taken' || c.state === 'takenEnded' ? [i] : []));
    await Promise.all(taken.map((i) => other.fire({ jobId: ids[i], slot, job: firing(cases[i].overlap) })));
    const ended = ids.filter((_, i) => cases[i].state === 'takenEnded');
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE scheduled_at = $1 AND job_definition_id = ANY($2::uuid[])`, [slot, ended]);

    const outcomes = await Promise.all(ids.map((jobId, i) => mine.fire({ jobId, slot, job: firing(cases[i].overlap) })));
    expect(outcomes.map((o, i) => ({ i, ...cases[i], kind: o.kind }))).toEqual(cases.map((c, i) => ({ i, ...c, kind: expected(c) })));
    const rows = await pool.query<{ job: string; n: number; runner: string | null; status: string }>(
      `SELECT job_definition_id AS job, count(*)::int AS n, min(runner_instance_id) AS runner, min(status) AS status
       FROM cron_job_runs WHERE scheduled_at = $1 AND job_definition_id = ANY($2::uuid[]) GROUP BY 1`,
      [slot, ids],
    );
    const byJob = new Map(rows.rows.map((r) => [r.job, r]));
    cases.forEach((c, i) => {
      // One row per (job, slot), whichever statement recorded it; ours when claimed here.
      const row = byJob.get(ids[i]);
      expect({ i, n: row?.n }).toEqual({ i, n: 1 });
      if (expected(c) === 'claimed') expect({ i, runner: row!.runner, status: row!.status }).toEqual({ i, runner: 'conflicts-mine', status: 'RUNNING' });
    });
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE status IN ('PENDING', 'RUNNING')`, [now]);
  }

  it('generated batches: every slot becomes what its job’s state says, once; a lone instance’s batch fails no statement', async () => {
    const rand = rng(5);
    const policies = [OverlapPolicy.SKIP, OverlapPolicy.BUFFER_ONE, OverlapPolicy.ALLOW, OverlapPolicy.CANCEL_PREVIOUS];
    for (let r = 0; r < 12; r++) {
      // Every other round has slots another instance recorded first; the others, none.
      const racing = r % 2 === 1;
      const cases = Array.from({ length: 30 + rand(40) }, (): Case => {
        const overlap = policies[rand(3)]; // CANCEL_PREVIOUS replaces: its own test below
        const maxConcurrentRuns = overlap === OverlapPolicy.ALLOW ? 2 + rand(2) : 1;
        const pick = rand(10);
        const state: State = racing && pick < 3 ? (rand(2) ? 'taken' : 'takenEnded') : pick < 6 ? 'busy' : pick < 7 ? 'skipAsked' : 'free';
        const busy = state === 'busy' ? (overlap === OverlapPolicy.ALLOW ? 1 + rand(maxConcurrentRuns) : 1) : 0;
        return { overlap, maxConcurrentRuns, state, busy };
      });
      if (racing) cases[rand(cases.length)] = { overlap: OverlapPolicy.SKIP, maxConcurrentRuns: 1, state: 'takenEnded', busy: 0 };
      // Each round after the last race is forgotten: it starts with the cheaper statement.
      now = new Date(now.getTime() + SlotRaces.QUIET_MS + 60_000);
      claims.length = 0;
      await round(cases, new Date(now.getTime() - (now.getTime() % 60_000)));
      // Racing: the cheaper statement met the other instance's row, failed and changed nothing; the
      // batch went again. Else one statement, which fails on nothing a lone instance meets.
      expect({ round: r, claims: claims.map((c) => [c.skips, c.failed ?? null]) }).toEqual({ round: r, claims: racing ? [[false, '23505'], [true, null]] : [[false, null]] });
    }
  });

  it('after a race, batches skip conflicts at once for ten minutes after the last one seen, then try the cheaper statement again', async () => {
    const one = (state: State): Case[] => [
      { overlap: OverlapPolicy.SKIP, maxConcurrentRuns: 1, state, busy: 0 },
      { overlap: OverlapPolicy.SKIP, maxConcurrentRuns: 1, state: 'free', busy: 0 },
    ];
    const minute = () => new Date(now.getTime() - (now.getTime() % 60_000));
    now = new Date(now.getTime() + SlotRaces.QUIET_MS + 60_000);
    claims.length = 0;
    await round(one('takenEnded'), minute());
    expect(claims.map((c) => [c.skips, c.failed ?? null])).toEqual([[false, '23505'], [true, null]]);
    // Five minutes on, racing again: no failed statement, the race seen again renews the ten minutes.
    now = new Date(now.getTime() + 5 * 60_000);
    claims.length = 0;
    await round(one('takenEnded'), minute());
    expect(claims.map((c) => [c.skips, c.failed ?? null])).toEqual([[true, null]]);
    // Nine minutes after that race, no race: still skipping conflicts.
    now = new Date(now.getTime() + 9 * 60_000);
    claims.length = 0;
    await round(one('free'), minute());
    expect(claims.map((c) => [c.skips, c.failed ?? null])).toEqual([[true, null]]);
    // Eleven minutes after it: the cheaper statement again.
    now = new Date(now.getTime() + 2 * 60_000);
    claims.length = 0;
    await round(one('free'), minute());
    expect(claims.map((c) => [c.skips, c.failed ?? null])).toEqual([[false, null]]);
  });

  it('CANCEL_PREVIOUS and a lane taken by a run-now: the slot replaces the active run, with no failed statement', async () => {
    now = new Date(now.getTime() + SlotRaces.QUIET_MS + 60_000);
    const slot = new Date(now.getTime() - (now.getTime() % 60_000));
    const [replacing, runNow] = await jobs([
      { overlap: OverlapPolicy.CANCEL_PREVIOUS, maxConcurrentRuns: 1, state: 'busy', busy: 1 },
      { overlap: OverlapPolicy.SKIP, maxConcurrentRuns: 1, state: 'busy', busy: 1 },
    ]);
    expect((await other.fire({ jobId: replacing, slot: new Date(slot.getTime() - 60_000), job: firing(OverlapPolicy.CANCEL_PREVIOUS) })).kind).toBe('claimed');
    // The other job's lane is held by a run-now (MANUAL, PENDING): its slot overlaps it.
    const manual = await other.insertManual(runNow, undefined, null, { actor: 'admin', action: 'test' });
    expect(manual?.run.status).toBe('PENDING');
    claims.length = 0;
    const [a, b] = await Promise.all([
      mine.fire({ jobId: replacing, slot, job: firing(OverlapPolicy.CANCEL_PREVIOUS) }),
      mine.fire({ jobId: runNow, slot, job: firing(OverlapPolicy.SKIP) }),
    ]);
    expect([a.kind, b.kind]).toEqual(['claimed', 'skipped']);
    expect(a.kind === 'claimed' && a.replaced?.map((r) => r.status)).toEqual(['CANCELED']);
    expect(claims.filter((c) => c.failed !== undefined)).toEqual([]);
    await pool.query(`UPDATE cron_job_runs SET status = 'SUCCEEDED', finished_at = $1 WHERE status IN ('PENDING', 'RUNNING')`, [now]);
  });
});
