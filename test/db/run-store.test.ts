import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, type Pool } from '../../src/db/pool.js';
import { RunStore } from '../../src/db/run-store.js';
import { OverlapPolicy, RunStatus } from '../../src/domain/enums.js';
import type { RunChange } from '../../src/domain/run.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/** Who the store's manual writes are made by (their audit entry and `triggeredBy`). */
const BY_ADMIN = { actor: 'admin', action: 'test' };

/**
 * The run store is the one writer of run state. Every transition a run can make is enumerated
 * here, made through the store, and must publish exactly one change that says what the database
 * now holds — no write publishes nothing, none publishes twice, and a write that changed nothing
 * publishes nothing.
 */
describe('run store: one writer, one change per transition', () => {
  // The store alone on a migrated database: no cronql around it.
  let db: TestDatabase;
  let pool: Pool;
  let store: RunStore;
  let now = new Date('2026-11-24T12:00:00.000Z');
  const published: RunChange[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
    pool = createPool(db.url);
    store = new RunStore({ pool, instanceId: 'store-test', now: () => now, publish: (c) => published.push(...c) });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  let n = 0;
  async function job(policy: { overlap?: OverlapPolicy; maxConcurrentRuns?: number; retryMaxAttempts?: number; retryDelaySeconds?: number } = {}): Promise<string> {
    const k = ++n;
    const res = await pool.query(
      `INSERT INTO cron_job_definitions (id, job_key, version, target, schedule_type, cron_expression, status, payload, created_at, updated_at,
         overlap, max_concurrent_runs, retry_max_attempts, retry_backoff, retry_delay_seconds)
       VALUES (gen_random_uuid(), $1, 1, 'log', 'RECURRING', '* * * * *', 'ACTIVE', $3, $2, $2, $4, $5, $6, CASE WHEN $6::int IS NOT NULL THEN 'FIXED' END, $7)
       RETURNING id`,
      [`store-${k}`, now, { message: `job ${k}`, nested: { n: k } }, policy.overlap ?? 'SKIP', policy.maxConcurrentRuns ?? 1, policy.retryMaxAttempts ?? null, policy.retryDelaySeconds ?? null],
    );
    const id = res.rows[0].id as string;
    overlaps.set(id, policy.overlap ?? OverlapPolicy.SKIP);
    keys.set(id, `store-${k}`);
    payloads.set(id, { message: `job ${k}`, nested: { n: k } });
    return id;
  }
  const slot = (m: number) => new Date(Date.UTC(2026, 10, 24, 12, m));
  const payloads = new Map<string, unknown>();
  /** The job as its actor knows it (the fire path passes it: the run is built, not read back). */
  const firing = (id: string) => ({ jobKey: keys.get(id)!, version: 1, target: 'log', payload: payloads.get(id) ?? null, overlap: overlaps.get(id)! });
  const overlaps = new Map<string, OverlapPolicy>();
  const fire = (id: string, m: number, extra: { deadline?: Date } = {}) => store.fire({ jobId: id, slot: slot(m), job: firing(id), ...extra });
  const keys = new Map<string, string>();

  /** Runs `write`, then checks it published exactly `expected` (run id or index, from → to), each matching its row. */
  async function transitions<T>(write: () => Promise<T>, expected: [RunStatus | null, RunStatus][]): Promise<{ result: T; changes: RunChange[] }> {
    published.length = 0;
    const result = await write();
    const changes = [...published];
    expect(changes.map((c) => [c.previousStatus, c.run.status])).toEqual(expected);
    const last = new Map(changes.map((c) => [c.run.id, c])); // the last change of each run
    for (const c of last.values()) {
      const row = await store.get(c.run.id);
      expect(row).toEqual(c.run); // is what the database holds
    }
    return { result, changes };
  }

  it('fire: a free slot is created PENDING and claimed RUNNING (two transitions, one change each)', async () => {
    const id = await job();
    const { result, changes } = await transitions(() => fire(id, 1), [
      [null, RunStatus.PENDING],
      [RunStatus.PENDING, RunStatus.RUNNING],
    ]);
    expect(result.kind).toBe('claimed');
    expect(changes[0].run.id).toBe(changes[1].run.id);
    expect(changes[1].run.runnerInstanceId).toBe('store-test');
    // A scheduled run was asked for by nobody.
    expect((await store.get(changes[1].run.id))!.triggeredBy).toBeNull();
    // The same slot again: someone has it; nothing changed, nothing published.
    expect((await transitions(() => fire(id, 1), [])).result.kind).toBe('taken');
    // The next slot while the run is active: SKIPPED/OVERLAP.
    const skipped = await transitions(() => fire(id, 2), [[null, RunStatus.SKIPPED]]);
    expect(skipped.changes[0].run.failureCode).toBe('OVERLAP');
    // Past its deadline: not recorded at all.
    expect((await transitions(() => fire(id, 3, { deadline: new Date(now.getTime() - 1) }), [])).result.kind).toBe('late');
  });

  it('co-due fires in one batch publish each run’s changes in order, as the rows hold them', async () => {
    const ids = await Promise.all([job(), job(), job()]);
    published.length = 0;
    await Promise.all(ids.map((jobId) => store.fire({ jobId, slot: slot(5), job: firing(jobId) })));
    const running = published.filter((c) => c.run.status === RunStatus.RUNNING);
    expect(running).toHaveLength(3);
    for (const c of running) expect(await store.get(c.run.id)).toEqual(c.run);
    for (const jobId of ids) {
      const mine = published.filter((c) => c.run.jobId === jobId).map((c) => [c.previousStatus, c.run.status]);
      expect(mine).toEqual([
        [null, RunStatus.PENDING],
        [RunStatus.PENDING, RunStatus.RUNNING],
      ]);
    }
  });

  it('missed slots are created SKIPPED once', async () => {
    const id = await job();
    const missed = [{ jobId: id, slot: slot(7), message: 'missed', details: { reason: 'PROCESS_DOWN' } }];
    await transitions(() => store.recordMissed(missed), [[null, RunStatus.SKIPPED]]);
    await transitions(() => store.recordMissed(missed), []);
  });

  it('run-now: created PENDING, claimed, or SKIPPED while a run is active', async () => {
    const id = await job();
    const { result: made } = await transitions(() => store.insertManual(id, undefined, null, BY_ADMIN), [[null, RunStatus.PENDING]]);
    const run = made!.run;
    await transitions(() => store.insertManual(id, { adHoc: true }, null, BY_ADMIN), [[null, RunStatus.SKIPPED]]);
    await transitions(() => store.claim([run!.id]), [[RunStatus.PENDING, RunStatus.RUNNING]]);
    await transitions(() => store.claim([run!.id]), []);
  });

  it('finish: RUNNING → SUCCEEDED | FAILED | CANCELED, once', async () => {
    for (const status of [RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELED] as const) {
      const id = await job();
      const fired = await fire(id, 10);
      if (fired.kind !== 'claimed') throw new Error('not claimed');
      // Ended by the executor, which knows the run: the change is built, not read back, and must be what the row holds.
      const output = status === RunStatus.SUCCEEDED ? { ok: true, nested: { list: [1, 'two', null], n: 1.5 } } : undefined;
      const details = status === RunStatus.FAILED ? { why: 'because', at: [1, 2] } : undefined;
      await transitions(
        () => store.finish(fired.run, { status, output, failureCode: status === RunStatus.SUCCEEDED ? null : 'X', failureMessage: status === RunStatus.SUCCEEDED ? null : 'boom', failureDetails: details }),
        [[RunStatus.RUNNING, status]],
      );
      await transitions(() => store.finish(fired.run.id, { status: RunStatus.SUCCEEDED }), []);
      await transitions(() => store.finishAlone(fired.run.id, { status: RunStatus.SUCCEEDED }), []);
    }
  });

  it('cancel: PENDING → CANCELED and RUNNING → CANCELED, once', async () => {
    const pendingJob = await job();
    const pending = (await store.insertManual(pendingJob, undefined, null, BY_ADMIN))!.run;
    await transitions(() => store.cancel(pending.id, BY_ADMIN), [[RunStatus.PENDING, RunStatus.CANCELED]]);
    await transitions(() => store.cancel(pending.id, BY_ADMIN), []);
    const runningJob = await job();
    const fired = await fire(runningJob, 11);
    if (fired.kind !== 'claimed') throw new Error('not claimed');
    await transitions(() => store.cancel(fired.run.id, BY_ADMIN), [[RunStatus.RUNNING, RunStatus.CANCELED]]);
  });

  it('settling lost and stale runs: RUNNING → FAILED, once', async () => {
    // A runner that stopped beating: RUNNER_LOST.
    await pool.query(
      `INSERT INTO cron_instances (id, role, host, pid, version, started_at, heartbeat_at) VALUES ('silent', 'all', 'h', 1, '', now(), now() - interval '1 hour')`,
    );
    const silent = new RunStore({ pool: pool, instanceId: 'silent', now: () => now, publish: (c) => published.push(...c) });
    const lostJob = await job();
    const lost = await silent.fire({ jobId: lostJob, slot: slot(12), job: firing(lostJob) });
    if (lost.kind !== 'claimed') throw new Error('not claimed');
    // Never by its own runner: one that sweeps is alive, its beat only late (a stalled event loop).
    await transitions(() => silent.settleLost(60_000, 3_600_000), []);
    const { changes } = await transitions(() => store.settleLost(60_000, 3_600_000), [[RunStatus.RUNNING, RunStatus.FAILED]]);
    expect(changes[0].run.failureCode).toBe('RUNNER_LOST');
    await transitions(() => store.settleLost(60_000, 3_600_000), []);

    // At startup: a run recorded as running on this very instance id.
    const restarted = new RunStore({ pool: pool, instanceId: 'restarted', now: () => now, publish: (c) => published.push(...c) });
    const mineJob = await job();
    const mine = await restarted.fire({ jobId: mineJob, slot: slot(13), job: firing(mineJob) });
    if (mine.kind !== 'claimed') throw new Error('not claimed');
    const staled = await transitions(() => restarted.settleStale(3_600_000), [[RunStatus.RUNNING, RunStatus.FAILED]]);
    expect(staled.changes[0].run.failureCode).toBe('STALE_TIMEOUT');
    await transitions(() => restarted.settleStale(3_600_000), []);
    now = new Date(now.getTime() + 1000);
  });

  it('retry: a retryable FAILED attempt creates its next attempt PENDING, due after the backoff; the slot key holds for first attempts', async () => {
    const id = await job({ retryMaxAttempts: 2, retryDelaySeconds: 10 });
    const fired = await fire(id, 20);
    if (fired.kind !== 'claimed') throw new Error('not claimed');
    const { changes } = await transitions(() => store.finish(fired.run.id, { status: RunStatus.FAILED, failureCode: 'BOOM' }), [
      [RunStatus.RUNNING, RunStatus.FAILED],
      [null, RunStatus.PENDING],
    ]);
    const retry = changes[1].run;
    expect(retry).toMatchObject({ attempt: 2, retryOf: fired.run.id, scheduledAt: slot(20), triggerType: 'SCHEDULED' });
    const wait = retry.dueAt!.getTime() - now.getTime();
    expect(wait).toBeGreaterThanOrEqual(10_000);
    expect(wait).toBeLessThanOrEqual(11_000);
    // The slot is still the job's: a second fire of it is someone else's, the next one overlaps the waiting retry.
    expect((await transitions(() => fire(id, 20), [])).result.kind).toBe('taken');
    expect((await transitions(() => fire(id, 21), [[null, RunStatus.SKIPPED]])).result.kind).toBe('skipped');
    // Not claimed before it is due; claimed once due; its failure is the last attempt: no third.
    await transitions(() => store.claim([retry.id]), []);
    now = new Date(now.getTime() + 11_000);
    await transitions(() => store.claim([retry.id]), [[RunStatus.PENDING, RunStatus.RUNNING]]);
    await transitions(() => store.finish(retry.id, { status: RunStatus.FAILED, failureCode: 'BOOM' }), [[RunStatus.RUNNING, RunStatus.FAILED]]);
    // Signals count slots: one failure, not two.
    const signals = await pool.query('SELECT consecutive_failures FROM cron_job_definitions WHERE id = $1', [id]);
    expect(signals.rows[0].consecutive_failures).toBe(1);
  });

  it('retry: a non-retryable code, and a job no longer ACTIVE, end the chain', async () => {
    const id = await job({ retryMaxAttempts: 3, retryDelaySeconds: 0 });
    const a = await fire(id, 22);
    if (a.kind !== 'claimed') throw new Error('not claimed');
    await transitions(() => store.finish(a.run.id, { status: RunStatus.FAILED, failureCode: 'UNKNOWN_TARGET' }), [[RunStatus.RUNNING, RunStatus.FAILED]]);
    const b = await fire(id, 23);
    if (b.kind !== 'claimed') throw new Error('not claimed');
    const { changes } = await transitions(() => store.finish(b.run.id, { status: RunStatus.FAILED, failureCode: 'BOOM' }), [
      [RunStatus.RUNNING, RunStatus.FAILED],
      [null, RunStatus.PENDING],
    ]);
    await pool.query(`UPDATE cron_job_definitions SET status = 'PAUSED', pause_reason = 'test' WHERE id = $1`, [id]);
    await transitions(() => store.claim([changes[1].run.id]), []);
    const stopped = await transitions(() => store.stopChains([id]), [[RunStatus.PENDING, RunStatus.CANCELED]]);
    expect(stopped.changes[0].run.failureMessage).toMatch(/PAUSED/);
    await transitions(() => store.stopChains([id]), []);
  });

  it('BUFFER_ONE: one slot waits, later ones skip; the active run’s end moves it to be claimed', async () => {
    const id = await job({ overlap: OverlapPolicy.BUFFER_ONE });
    const a = await fire(id, 30);
    if (a.kind !== 'claimed') throw new Error('not claimed');
    const buffered = await transitions(() => fire(id, 31), [[null, RunStatus.PENDING]]);
    expect(buffered.result.kind).toBe('buffered');
    await transitions(() => fire(id, 32), [[null, RunStatus.SKIPPED]]);
    const waiting = (buffered.result as { run: { id: string } }).run.id;
    await transitions(() => store.claim([waiting]), []); // not while it waits in the buffer
    await transitions(() => store.finish(a.run.id, { status: RunStatus.SUCCEEDED }), [[RunStatus.RUNNING, RunStatus.SUCCEEDED]]);
    await transitions(() => store.claim([waiting]), [[RunStatus.PENDING, RunStatus.RUNNING]]);
  });

  it('CANCEL_PREVIOUS: the active run ends CANCELED/REPLACED and the slot starts', async () => {
    const id = await job({ overlap: OverlapPolicy.CANCEL_PREVIOUS });
    const a = await fire(id, 40);
    if (a.kind !== 'claimed') throw new Error('not claimed');
    const { result, changes } = await transitions(() => fire(id, 41), [
      [RunStatus.RUNNING, RunStatus.CANCELED],
      [null, RunStatus.PENDING],
      [RunStatus.PENDING, RunStatus.RUNNING],
    ]);
    expect(changes[0].run).toMatchObject({ id: a.run.id, failureCode: 'REPLACED' });
    expect(result).toMatchObject({ kind: 'claimed', replaced: [{ id: a.run.id }] });
    // The same slot again (another instance): taken, and nothing canceled.
    expect((await transitions(() => fire(id, 41), [])).result.kind).toBe('taken');
  });

  it('run-now follows the job’s policies: its failure is retried as MANUAL; under CANCEL_PREVIOUS it replaces the active run; under BUFFER_ONE it waits', async () => {
    const retried = await job({ retryMaxAttempts: 2, retryDelaySeconds: 0 });
    const manual = (await store.insertManual(retried, undefined, null, BY_ADMIN))!.run;
    await store.claim([manual.id]);
    const { changes } = await transitions(() => store.finish(manual.id, { status: RunStatus.FAILED, failureCode: 'BOOM' }), [
      [RunStatus.RUNNING, RunStatus.FAILED],
      [null, RunStatus.PENDING],
    ]);
    expect(changes[1].run).toMatchObject({ triggerType: 'MANUAL', attempt: 2, retryOf: manual.id });
    // Who asked for it is the run's, and its retry's.
    expect(manual.triggeredBy).toBe('admin');
    expect(changes[1].run.triggeredBy).toBe('admin');

    const replacing = await job({ overlap: OverlapPolicy.CANCEL_PREVIOUS });
    const active = await fire(replacing, 60);
    if (active.kind !== 'claimed') throw new Error('not claimed');
    const now1 = await transitions(() => store.insertManual(replacing, undefined, null, BY_ADMIN), [
      [RunStatus.RUNNING, RunStatus.CANCELED],
      [null, RunStatus.PENDING],
    ]);
    expect(now1.result!.replaced.map((r) => r.id)).toEqual([active.run.id]);
    expect(now1.changes[0].run.failureCode).toBe('REPLACED');

    const buffering = await job({ overlap: OverlapPolicy.BUFFER_ONE });
    const running = await fire(buffering, 61);
    if (running.kind !== 'claimed') throw new Error('not claimed');
    const waiting = (await transitions(() => store.insertManual(buffering, undefined, null, BY_ADMIN), [[null, RunStatus.PENDING]])).result!.run;
    await transitions(() => store.claim([waiting.id]), []); // waits for the active run
    await transitions(() => store.insertManual(buffering, { again: true }, null, BY_ADMIN), [[null, RunStatus.SKIPPED]]); // the buffer holds one
  });

  it('ALLOW: up to maxConcurrentRuns at once, then SKIPPED', async () => {
    const id = await job({ overlap: OverlapPolicy.ALLOW, maxConcurrentRuns: 2 });
    expect((await fire(id, 50)).kind).toBe('claimed');
    expect((await fire(id, 51)).kind).toBe('claimed');
    expect((await transitions(() => fire(id, 52), [[null, RunStatus.SKIPPED]])).result.kind).toBe('skipped');
    const manual = await transitions(() => store.insertManual(id, undefined, null, BY_ADMIN), [[null, RunStatus.SKIPPED]]);
    expect(manual.result!.run.failureCode).toBe('OVERLAP');
  });

  it('no other module writes run rows or job rows', () => {
    // The newcomer's promise: every run write is in the run store (src/db/runs/, one file per concept).
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    walk('src');
    const writers = files.filter((f) => /(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+cron_job_runs\b/i.test(readFileSync(f, 'utf8')));
    const store = join('src', 'db', 'runs') + '/';
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.filter((f) => !f.startsWith(store))).toEqual([]);
    // Jobs likewise: the admin's writes in the job store, the consequences of runs in the run store.
    const jobWriters = files.filter((f) =>
      /(INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+cron_job_definitions\b|nativeUpdate\(|nativeDelete\(|\.persist\(/i.test(readFileSync(f, 'utf8')),
    );
    // (bulk-job-changes.ts is the job store's bulk pause/resume statement, imported by the job store alone.)
    expect(jobWriters.filter((f) => !f.startsWith(store)).sort()).toEqual([join('src', 'db', 'bulk-job-changes.ts'), join('src', 'db', 'job-store.ts')]);
    const bulkImporters = files.filter((f) => /from '\.\/bulk-job-changes\.js'|from '\.\.\/db\/bulk-job-changes\.js'/.test(readFileSync(f, 'utf8')));
    expect(bulkImporters).toEqual([join('src', 'db', 'job-store.ts')]);
    expect(jobWriters.filter((f) => f.startsWith(store)).sort()).toEqual([join(store, 'admin-skips.ts'), join(store, 'end-rules.ts'), join(store, 'maintenance.ts')]);
    // Run changes (RunEvents: `publish(changes)`, `emit(change)`); the runtime's own typed events are named (`emit('slotsMissed', …)`).
    const publishers = files.filter((f) => /events\.(publish|emit)\((?!')/.test(readFileSync(f, 'utf8')));
    expect(publishers.sort()).toEqual([join('src', 'app.ts'), join('src', 'runtime', 'run-event-relay.ts')]);
  });
});
