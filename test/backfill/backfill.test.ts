import { describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { BackfillScope, BackfillState, RunStatus, TriggerType } from '../../src/domain/enums.js';
import type { BackfillRecord } from '../../src/domain/backfill.js';
import { randomUUID } from 'node:crypto';
import { insertBackfill } from '../../src/db/backfill-store.js';
import { RunStore } from '../../src/db/run-store.js';
import { createLogger } from '../../src/logger.js';
import { Retention } from '../../src/maintenance/retention.js';
import { eventually, runsOf, startCronql, useCronql } from '../support/cronql.js';

/**
 * Backfills through the library API on real PostgreSQL (docs/behaviour.md, "Backfill"): the plan
 * of each scope against an independent reading of generated histories, a dry run that writes
 * nothing, runs oldest first and once, two backfills at once, cancel.
 */

const HOUR = 3_600_000;
/** A fixed past hour: every slot of the tests is before it (a backfill runs past slots only). */
const BASE = Date.parse('2026-10-01T00:00:00Z');
const at = (h: number) => new Date(BASE + h * HOUR);

/** A small deterministic generator (mulberry32), so a failing history can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * What a slot's ledger may hold, with what it is to a backfill: MISSING (no run but SKIPPED ones),
 * BAD (its last attempt FAILED or was CANCELED), OK (succeeded last). Each history is written as
 * the rows it leaves, oldest first.
 */
const HISTORIES: Record<string, { rows: { trigger: TriggerType; status: RunStatus; attempt?: number }[]; is: 'MISSING' | 'BAD' | 'OK' }> = {
  absent: { rows: [], is: 'MISSING' },
  skipped: { rows: [{ trigger: TriggerType.SCHEDULED, status: RunStatus.SKIPPED }], is: 'MISSING' },
  succeeded: { rows: [{ trigger: TriggerType.SCHEDULED, status: RunStatus.SUCCEEDED }], is: 'OK' },
  failed: { rows: [{ trigger: TriggerType.SCHEDULED, status: RunStatus.FAILED }], is: 'BAD' },
  canceled: { rows: [{ trigger: TriggerType.SCHEDULED, status: RunStatus.CANCELED }], is: 'BAD' },
  retriedToSuccess: {
    rows: [
      { trigger: TriggerType.SCHEDULED, status: RunStatus.FAILED },
      { trigger: TriggerType.SCHEDULED, status: RunStatus.SUCCEEDED, attempt: 2 },
    ],
    is: 'OK',
  },
  retriedToFailure: {
    rows: [
      { trigger: TriggerType.SCHEDULED, status: RunStatus.FAILED },
      { trigger: TriggerType.SCHEDULED, status: RunStatus.FAILED, attempt: 2 },
    ],
    is: 'BAD',
  },
  backfillFailedAfterSuccess: {
    rows: [
      { trigger: TriggerType.SCHEDULED, status: RunStatus.SUCCEEDED },
      { trigger: TriggerType.BACKFILL, status: RunStatus.FAILED },
    ],
    is: 'BAD',
  },
  backfillSucceededAfterFailure: {
    rows: [
      { trigger: TriggerType.SCHEDULED, status: RunStatus.FAILED },
      { trigger: TriggerType.BACKFILL, status: RunStatus.SUCCEEDED },
    ],
    is: 'OK',
  },
  backfillFailedAfterSkip: {
    rows: [
      { trigger: TriggerType.SCHEDULED, status: RunStatus.SKIPPED },
      { trigger: TriggerType.BACKFILL, status: RunStatus.FAILED },
    ],
    is: 'BAD',
  },
};
const KINDS = Object.keys(HISTORIES);

/** Whether `scope` runs a slot that `is` so: the contract's words, read independently of the planner. */
const expectedRuns = (scope: BackfillScope, is: 'MISSING' | 'BAD' | 'OK') =>
  scope === BackfillScope.ALL || is === 'MISSING' || (scope === BackfillScope.NOT_SUCCEEDED && is === 'BAD');

let keys = 0;
async function newJob(cronql: Cronql, o: { cron?: string; target?: string; payload?: unknown; status?: 'PAUSED' } = {}) {
  const job = await cronql.jobs.create(
    { key: `bf-${process.pid}-${keys++}`, target: o.target ?? 'log', scheduleType: 'RECURRING' as never, cronExpression: o.cron ?? '0 * * * *', payload: o.payload ?? null },
    'test',
  );
  if (o.status === 'PAUSED') return cronql.jobs.pause(job.id, 'fixture: only backfills run', 'test');
  return job;
}

/** Writes a slot's history as run rows of job version `jobId`, each created a minute after the one before. */
async function writeHistory(cronql: Cronql, job: { id: string; jobKey: string }, slot: Date, kind: string) {
  let created = slot.getTime() + 60_000;
  for (const row of HISTORIES[kind].rows) {
    created += 60_000;
    await cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, attempt,
         started_at, finished_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 1, 'log', $3, $4, $5, $6, $7, $7, $7, $7)`,
      [job.id, job.jobKey, row.trigger, slot, row.status, row.attempt ?? 1, new Date(created)],
    );
  }
}

const counts = async (cronql: Cronql) => {
  const res = await cronql.pool.query(
    `SELECT (SELECT count(*) FROM cron_job_runs)::int AS runs, (SELECT count(*) FROM cron_backfills)::int AS backfills,
            (SELECT count(*) FROM cron_backfill_slots)::int AS slots, (SELECT count(*) FROM cron_pruned_slots)::int AS pruned`,
  );
  return res.rows[0];
};

/** What a promise rejects with (undefined when it resolves). */
const thrown = (p: Promise<unknown>) => p.then(() => undefined, (err: unknown) => err);

const iso = (dates: Date[]) => dates.map((d) => d.toISOString());

async function done(cronql: Cronql, id: string, timeoutMs = 30_000): Promise<BackfillRecord> {
  return eventually(async () => {
    const b = await cronql.backfills.get(id);
    return b && b.state !== BackfillState.RUNNING ? b : null;
  }, timeoutMs);
}

const backfillRuns = async (cronql: Cronql, jobId: string) => (await runsOf(cronql, jobId)).filter((r) => r.triggerType === TriggerType.BACKFILL);

/** Fails the first attempt of every run, succeeds the next (a retry). */
const targets = {
  'flaky-once': async (ctx: { run: { attempt?: number } }) => {
    if ((ctx.run.attempt ?? 1) === 1) throw Object.assign(new Error('first attempt fails'), { code: 'FLAKY' });
    return { ok: true };
  },
};

describe('backfill', () => {
  const t = useCronql({ targets: targets as never });

  it('each scope plans exactly its slots over generated histories (succeeded, failed, canceled, skipped, absent, retried, pruned); a dry run writes nothing', async () => {
    const { cronql } = t;
    for (let seed = 1; seed <= 4; seed++) {
      const rnd = random(seed);
      const job = await newJob(cronql, { status: 'PAUSED' });
      const slots = Array.from({ length: 40 }, (_, i) => at(i));
      const kinds = slots.map(() => KINDS[Math.floor(rnd() * KINDS.length)]);
      for (let i = 0; i < slots.length; i++) await writeHistory(cronql, job, slots[i], kinds[i]);
      // Retention pruned this job's slot runs up to a slot: one with no row there is not missing.
      const prunedThrough = seed % 2 === 0 ? Math.floor(rnd() * 20) : -1;
      if (prunedThrough >= 0) {
        await cronql.pool.query('INSERT INTO cron_pruned_slots (job_definition_id, pruned_through) VALUES ($1, $2)', [job.id, slots[prunedThrough]]);
      }
      // A range on or between slots: its ends are included.
      const lo = Math.floor(rnd() * 10);
      const hi = 25 + Math.floor(rnd() * 15);
      const from = new Date(slots[lo].getTime() - (rnd() < 0.5 ? 0 : 30 * 60_000));
      const to = new Date(slots[hi].getTime() + (rnd() < 0.5 ? 0 : 30 * 60_000));
      const inRange = slots.map((s, i) => i).filter((i) => slots[i] >= from && slots[i] <= to);
      for (const scope of Object.values(BackfillScope)) {
        const before = await counts(cronql);
        const plan = await cronql.backfills.backfill({ jobId: job.id, from, to, scope, dryRun: true, reason: 'plan' }, 'test');
        expect(await counts(cronql)).toEqual(before);
        const is = (i: number) => (HISTORIES[kinds[i]].rows.every((r) => r.status === RunStatus.SKIPPED) && i <= prunedThrough ? 'OK' : HISTORIES[kinds[i]].is);
        const wanted = inRange.filter((i) => expectedRuns(scope, is(i))).map((i) => slots[i]);
        expect({ seed, scope, slots: iso(plan.slots) }).toEqual({ seed, scope, slots: iso(wanted) });
        expect(plan).toMatchObject({ state: BackfillState.PLANNED, created: 0, skippedExisting: inRange.length - wanted.length, scope, jobId: job.id });
        expect(await cronql.backfills.get(plan.id)).toBeNull();
      }
    }
  });

  it("leaves out of a plan the slots the job's calendars exclude", async () => {
    const { cronql } = t;
    await cronql.calendars.set({ name: 'bf-freeze', windows: [{ from: at(2), to: at(5), reason: 'freeze' }] });
    const made = await cronql.jobs.create(
      { key: `bf-cal-${process.pid}`, target: 'log', scheduleType: 'RECURRING' as never, cronExpression: '0 * * * *', calendars: ['bf-freeze'] } as never,
      'test',
    );
    const job = await cronql.jobs.pause(made.id, 'fixture: only backfills run', 'test');
    const plan = await cronql.backfills.backfill({ jobId: job.id, from: at(0), to: at(7), scope: BackfillScope.ALL, dryRun: true, reason: 'plan' }, 'test');
    // The window [02:00, 05:00) excludes three of the eight slots: they are in neither list.
    expect(iso(plan.slots)).toEqual(iso([0, 1, 5, 6, 7].map(at)));
    expect(plan.skippedExisting).toBe(0);
  });

  it('runs the plan oldest first, one at a time, each slot once; a succeeded slot is not run again under NOT_SUCCEEDED', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { target: 'sleep', payload: { ms: 30 } });
    const slots = Array.from({ length: 8 }, (_, i) => at(100 + i));
    const kinds = ['succeeded', 'failed', 'absent', 'skipped', 'succeeded', 'canceled', 'retriedToSuccess', 'absent'];
    for (let i = 0; i < slots.length; i++) await writeHistory(cronql, job, slots[i], kinds[i]);
    const b = await cronql.backfills.backfill({ jobId: job.id, from: slots[0], to: slots[7], reason: 'after the fix' }, 'test');
    expect(b).toMatchObject({ scope: BackfillScope.NOT_SUCCEEDED, skippedExisting: 3, requestedBy: 'test' });
    // It starts at once: on a busy machine its five short slots may all have run before the answer is read back.
    expect([BackfillState.RUNNING, BackfillState.DONE]).toContain(b.state);
    const wanted = [1, 2, 3, 5, 7].map((i) => slots[i]);
    expect(iso(b.slots)).toEqual(iso(wanted));
    const end = await done(cronql, b.id);
    expect(end).toMatchObject({ state: BackfillState.DONE, created: 5 });
    const runs = await backfillRuns(cronql, job.id);
    expect(runs.map((r) => r.status)).toEqual(runs.map(() => RunStatus.SUCCEEDED));
    // Oldest first, one at a time: each run started after the one before it ended.
    const byStart = runs.slice().sort((x, y) => x.startedAt!.getTime() - y.startedAt!.getTime());
    expect(iso(byStart.map((r) => r.scheduledAt))).toEqual(iso(wanted));
    for (let i = 1; i < byStart.length; i++) expect(byStart[i].startedAt!.getTime()).toBeGreaterThanOrEqual(byStart[i - 1].finishedAt!.getTime());
    // Nothing left to do: the same request again plans nothing, and is DONE at once.
    const again = await cronql.backfills.backfill({ jobId: job.id, from: slots[0], to: slots[7], reason: 'again' }, 'test');
    expect(again).toMatchObject({ state: BackfillState.DONE, slots: [], skippedExisting: 8, created: 0 });
  });

  it('two overlapping backfills started together run each slot once', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { status: 'PAUSED' });
    const [a, b] = await Promise.all([
      cronql.backfills.backfill({ jobId: job.id, from: at(200), to: at(211), reason: 'one' }, 'test'),
      cronql.backfills.backfill({ jobId: job.id, from: at(205), to: at(216), reason: 'two' }, 'test'),
    ]);
    const shared = [...a.slots, ...b.slots].map((d) => d.getTime());
    expect(new Set(shared).size).toBe(shared.length);
    expect(shared.length).toBe(17);
    expect(a.slots.length + a.skippedExisting).toBe(12);
    expect(b.slots.length + b.skippedExisting).toBe(12);
    await Promise.all([done(cronql, a.id), done(cronql, b.id)]);
    const runs = await backfillRuns(cronql, job.id);
    expect(iso(runs.map((r) => r.scheduledAt)).sort()).toEqual(iso(Array.from({ length: 17 }, (_, i) => at(200 + i))));
  });

  it('two backfills asked together, decided by the database: a slot another holds, or ran since this plan was read, is left out and counted', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { status: 'PAUSED' });
    const slots = [at(600), at(601), at(602)];
    const audit = { actor: 'test', action: 'backfillJob' };
    // Two plans read at the same instant, before either was written: each would run every slot.
    const read = new Date(Date.now() - 60_000);
    const plan = { jobId: job.id, jobKey: job.jobKey, from: slots[0], to: slots[2], scope: BackfillScope.ALL, slots, skippedExisting: 0, reason: 'race', requestedBy: 'test', createdAt: read };
    // Since then the first ran slot 0 to its end (its hold settled and released) and holds slot 1.
    await cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, finished_at, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, 1, 'log', 'BACKFILL', $3, 'SUCCEEDED', now(), now(), now(), now())`,
      [job.id, job.jobKey, slots[0]],
    );
    const first = await insertBackfill(cronql.pool, { ...plan, slots: [slots[1]] }, randomUUID(), audit);
    expect(iso(first.slots)).toEqual(iso([slots[1]]));
    const second = await insertBackfill(cronql.pool, plan, randomUUID(), audit);
    expect(second).toMatchObject({ state: BackfillState.RUNNING, skippedExisting: 2 });
    expect(iso(second.slots)).toEqual(iso([slots[2]]));
    // A run older than the plan does not stand in its way (a slot run before is a slot to run again).
    const later = await insertBackfill(cronql.pool, { ...plan, slots: [slots[0]], createdAt: new Date() }, randomUUID(), audit);
    expect(iso(later.slots)).toEqual(iso([slots[0]]));
    for (const b of [first, second, later]) await cronql.backfills.cancel(b.id).catch(() => undefined);
  });

  it('retention keeps backfilled runs of old slots until they are a day old, and the planner does not count a pruned slot as missing', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { status: 'PAUSED' });
    const now = Date.now();
    const old = (i: number) => new Date(Math.floor((now - 200 * 86_400_000) / HOUR) * HOUR + i * HOUR);
    const insert = (slot: Date, trigger: TriggerType, status: RunStatus, madeAt: Date) =>
      cronql.pool.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, finished_at, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, $2, 1, 'log', $3, $4, $5, $6, $6, $6, $6)`,
        [job.id, job.jobKey, trigger, slot, status, madeAt],
      );
    for (let i = 0; i < 6; i++) await insert(old(i), TriggerType.SCHEDULED, i === 2 ? RunStatus.FAILED : RunStatus.SUCCEEDED, old(i));
    await insert(old(3), TriggerType.BACKFILL, RunStatus.FAILED, new Date(now - 3 * 86_400_000)); // made 3 days ago
    await insert(old(4), TriggerType.BACKFILL, RunStatus.FAILED, new Date(now - HOUR)); // made an hour ago
    // A newer run keeps the job's own "latest" rows out of the way.
    await insert(new Date(now - HOUR), TriggerType.SCHEDULED, RunStatus.SUCCEEDED, new Date(now - HOUR));
    const store = new RunStore({ pool: cronql.pool, instanceId: 'retention-test', now: () => new Date(), publish: () => {} });
    await new Retention({ store, log: createLogger(), days: 180, now: () => new Date() }).round();
    const left = await runsOf(cronql, job.id);
    expect(left.filter((r) => r.scheduledAt < old(6)).map((r) => [r.scheduledAt.toISOString(), r.triggerType])).toEqual([[old(4).toISOString(), TriggerType.BACKFILL]]);
    // Slots 0–5 lost their rows; only the kept backfill run of slot 4 says anything of them.
    const plan = (scope: BackfillScope) => cronql.backfills.backfill({ jobId: job.id, from: old(0), to: old(7), scope, dryRun: true, reason: 'pruned' }, 'test');
    expect(iso((await plan(BackfillScope.MISSING)).slots)).toEqual(iso([old(6), old(7)]));
    expect(iso((await plan(BackfillScope.NOT_SUCCEEDED)).slots)).toEqual(iso([old(4), old(6), old(7)]));
    expect((await plan(BackfillScope.ALL)).slots).toHaveLength(8);
  });

  it('cancel stops it: the run in flight finishes, no slot starts after it, and its slots are free for a later backfill', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { target: 'sleep', payload: { ms: 400 }, status: 'PAUSED' });
    const b = await cronql.backfills.backfill({ jobId: job.id, from: at(300), to: at(309), reason: 'long' }, 'test');
    const first = await eventually(async () => (await backfillRuns(cronql, job.id)).find((r) => r.status === RunStatus.RUNNING));
    // The database refuses a second in-flight hold of a slot, whoever writes it: another
    // backfill's (a bare row here) hold of the last slot, still planned behind eight others.
    const other = await cronql.pool.query(
      `INSERT INTO cron_backfills (id, job_definition_id, job_key, from_at, to_at, scope, state, skipped_existing, reason, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $3, 'ALL', 'CANCELED', 0, 'fixture', now(), now()) RETURNING id`,
      [job.id, job.jobKey, at(309)],
    );
    const hold = cronql.pool.query(`INSERT INTO cron_backfill_slots (backfill_id, job_key, slot, state) VALUES ($1, $2, $3, 'PLANNED')`, [
      other.rows[0].id,
      job.jobKey,
      at(309),
    ]);
    expect(await thrown(hold)).toMatchObject({ code: '23505', constraint: 'cron_backfill_slots_in_flight_unique' });
    const canceled = await cronql.backfills.cancel(b.id);
    expect(canceled).toMatchObject({ state: BackfillState.CANCELED, created: 1 });
    expect(canceled.finishedAt).not.toBeNull();
    await eventually(async () => (await backfillRuns(cronql, job.id)).every((r) => r.status !== RunStatus.RUNNING));
    // A duty pass (what would start a next slot) starts nothing.
    await cronql.runtime!.advanceBackfills();
    const runs = await backfillRuns(cronql, job.id);
    expect(runs.map((r) => [r.id, r.status])).toEqual([[first.id, RunStatus.SUCCEEDED]]);
    expect(await thrown(cronql.backfills.cancel(b.id))).toMatchObject({ code: 'INVALID_STATE' });
    // The slots it did not run are free again.
    const later = await cronql.backfills.backfill({ jobId: job.id, from: at(300), to: at(309), dryRun: true, reason: 'again' }, 'test');
    expect(iso(later.slots)).toEqual(iso(Array.from({ length: 9 }, (_, i) => at(301 + i))));
  });

  it('a retry of a backfill run is a backfill run, and the next slot waits for the slot\'s last attempt', async () => {
    const { cronql } = t;
    const made = await cronql.jobs.create(
      { key: `bf-retry-${process.pid}`, target: 'flaky-once', scheduleType: 'RECURRING' as never, cronExpression: '0 * * * *', retry: { maxAttempts: 2, backoff: 'FIXED' as never, delaySeconds: 0 } },
      'test',
    );
    const b = await cronql.backfills.backfill({ jobId: made.id, from: at(500), to: at(501), reason: 'retries' }, 'test');
    await done(cronql, b.id);
    const runs = (await backfillRuns(cronql, made.id)).sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
    expect(runs.map((r) => [r.scheduledAt.toISOString(), r.attempt, r.status])).toEqual([
      [at(500).toISOString(), 1, RunStatus.FAILED],
      [at(500).toISOString(), 2, RunStatus.SUCCEEDED],
      [at(501).toISOString(), 1, RunStatus.FAILED],
      [at(501).toISOString(), 2, RunStatus.SUCCEEDED],
    ]);
    expect(runs[2].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[1].finishedAt!.getTime());
  });

  it('asked of an instance without a runtime (role api), a scheduler instance runs it', async () => {
    const apiOnly = await startCronql(t.url, { role: 'api' });
    try {
      const job = await newJob(t.cronql, { status: 'PAUSED' });
      const b = await apiOnly.backfills.backfill({ jobId: job.id, from: at(400), to: at(403), reason: 'from the api role' }, 'test');
      expect(b.slots).toHaveLength(4);
      const end = await done(t.cronql, b.id);
      expect(end).toMatchObject({ state: BackfillState.DONE, created: 4 });
      const runs = await backfillRuns(t.cronql, job.id);
      expect(runs.map((r) => [r.status, r.runnerInstanceId])).toEqual(runs.map(() => [RunStatus.SUCCEEDED, t.cronql.instanceId]));
    } finally {
      await apiOnly.stop();
    }
  });

  it('refuses a bad request with a clear code and writes nothing', async () => {
    const { cronql } = t;
    const job = await newJob(cronql, { status: 'PAUSED' });
    const before = await counts(cronql);
    const ask = (o: Partial<Parameters<Cronql['backfills']['backfill']>[0]>) =>
      thrown(cronql.backfills.backfill({ jobId: job.id, from: at(0), to: at(5), reason: 'r', ...o }, 'test'));
    expect(await ask({ reason: '  ' })).toMatchObject({ code: 'REASON_REQUIRED' });
    expect(await ask({ from: at(6) })).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await ask({ to: new Date(Date.now() + HOUR) })).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await ask({ jobId: 'nope' })).toMatchObject({ code: 'NOT_FOUND' });
    expect(await ask({ scope: 'SOME' as BackfillScope })).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(await thrown(cronql.backfills.cancel('nope'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await counts(cronql)).toEqual(before);
  });
});
