import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { CatchUpPolicy, MissedReason, ScheduleType } from '../../src/domain/enums.js';
import { nextChange, runsOf, startCronql } from '../support/cronql.js';
import { createTestDatabase } from '../support/db.js';

/**
 * The slot ledger with a controllable clock: every slot the schedule designates ends up as a
 * row — run, SKIPPED/OVERLAP, or SKIPPED/MISSED with the reason — across stalls, clock jumps and
 * stretches of time with no cronql running at all.
 */
describe('the slot ledger', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let cronql: Cronql | undefined;
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  // `flaky`: a slot's first attempt fails, its retry succeeds.
  const targets = {
    flaky: ({ run }: { run: { attempt: number } }) => {
      if (run.attempt === 1) throw new Error('the first attempt fails');
    },
  };
  const start = async () => (cronql = await startCronql(db.url, { clock, instanceId: 'ledger-test', listen: false, targets }));
  const stop = async () => {
    await cronql?.stop();
    cronql = undefined;
  };
  const rows = async (jobId: string) =>
    (await runsOf(cronql!, jobId)).map((r) => [r.scheduledAt.toISOString().slice(11, 19), r.status, r.failureCode, (r.failureDetails as { reason?: string } | null)?.reason ?? null]);

  beforeAll(async () => {
    db = await createTestDatabase();
    await start();
  });
  afterAll(async () => {
    await stop();
    await db.drop();
  });

  const create = (key: string, cronExpression: string, extra: { catchUp?: CatchUpPolicy; catchUpLimit?: number } = {}) =>
    cronql!.jobs.create({ key, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression, ...extra });

  it('a stall past the grace period: every due slot is MISSED (STALL), nothing runs late', async () => {
    clock.set('2026-06-01T12:00:00.500Z');
    const job = await create('stall-past-grace', '*/30 * * * * *');
    clock.jump('2026-06-01T12:01:45.000Z'); // the latest due slot, 12:01:30, is 15 s late: past the 10 s grace
    await cronql!.runtime!.whenIdle();
    expect(await rows(job.id)).toEqual([
      ['12:00:30', 'SKIPPED', 'MISSED', 'STALL'],
      ['12:01:00', 'SKIPPED', 'MISSED', 'STALL'],
      ['12:01:30', 'SKIPPED', 'MISSED', 'STALL'],
    ]);
    expect(cronql!.runtime!.nextRunAt(job.id)?.toISOString()).toBe('2026-06-01T12:02:00.000Z');
    clock.set('2026-06-01T12:02:00.000Z');
    await cronql!.runtime!.whenIdle();
    expect((await rows(job.id)).at(-1)).toEqual(['12:02:00', 'SUCCEEDED', null, null]);
    await cronql!.jobs.pause(job.id, 'done');
  });

  it('a forward clock jump records CLOCK_JUMP; a backward one never fires a slot twice', async () => {
    clock.set('2026-06-01T13:00:00.500Z');
    const job = await create('clock-moves', '0 * * * * *'); // every minute
    clock.jump('2026-06-01T13:05:03.000Z', MissedReason.CLOCK_JUMP);
    await cronql!.runtime!.whenIdle();
    expect(await rows(job.id)).toEqual([
      ['13:01:00', 'SKIPPED', 'MISSED', 'CLOCK_JUMP'],
      ['13:02:00', 'SKIPPED', 'MISSED', 'CLOCK_JUMP'],
      ['13:03:00', 'SKIPPED', 'MISSED', 'CLOCK_JUMP'],
      ['13:04:00', 'SKIPPED', 'MISSED', 'CLOCK_JUMP'],
      ['13:05:00', 'SUCCEEDED', null, null],
    ]);
    // The clock goes back three minutes (an NTP correction), then forward again.
    clock.rewind('2026-06-01T13:02:30.000Z');
    clock.set('2026-06-01T13:06:00.500Z');
    await cronql!.runtime!.whenIdle();
    // And a restart whose clock is still behind the ledger: it arms after what is recorded.
    await stop();
    clock.rewind('2026-06-01T13:03:30.000Z');
    await start();
    clock.set('2026-06-01T13:07:00.500Z');
    await cronql!.runtime!.whenIdle();
    const got = await rows(job.id);
    const slots = got.map((r) => r[0]);
    expect(new Set(slots).size).toBe(slots.length);
    expect(got.slice(4)).toEqual([
      ['13:05:00', 'SUCCEEDED', null, null],
      ['13:06:00', 'SUCCEEDED', null, null],
      ['13:07:00', 'SUCCEEDED', null, null],
    ]);
  });

  it('slots missed while no cronql ran: NONE records them MISSED, LATEST runs the latest, ALL runs them oldest first up to the limit', async () => {
    clock.set('2026-06-01T14:00:00.500Z');
    const none = await create('down-none', '0 * * * * *');
    const latest = await create('down-latest', '0 * * * * *', { catchUp: CatchUpPolicy.LATEST });
    const all = await create('down-all', '0 * * * * *', { catchUp: CatchUpPolicy.ALL, catchUpLimit: 3 });
    clock.set('2026-06-01T14:01:00.500Z'); // one slot each, on time
    await cronql!.runtime!.whenIdle();
    await stop();
    clock.set('2026-06-01T14:06:30.000Z'); // down from 14:01:00.5 to 14:06:30: 14:02 … 14:06 missed
    const ran = nextChange(cronql ?? (await start()), (c) => c.run.jobId === all.id && c.run.status === 'SUCCEEDED' && c.run.scheduledAt.toISOString().endsWith('14:06:00.000Z'));
    await ran;
    await cronql!.runtime!.whenIdle();
    const missed = (s: string) => [s, 'SKIPPED', 'MISSED', 'PROCESS_DOWN'];
    const ok = (s: string) => [s, 'SUCCEEDED', null, null];
    expect(await rows(none.id)).toEqual([ok('14:01:00'), ...['14:02:00', '14:03:00', '14:04:00', '14:05:00', '14:06:00'].map(missed)]);
    expect(await rows(latest.id)).toEqual([ok('14:01:00'), ...['14:02:00', '14:03:00', '14:04:00', '14:05:00'].map(missed), ok('14:06:00')]);
    const allRuns = await runsOf(cronql!, all.id);
    expect(await rows(all.id)).toEqual([ok('14:01:00'), missed('14:02:00'), missed('14:03:00'), ok('14:04:00'), ok('14:05:00'), ok('14:06:00')]);
    // One at a time, oldest first: each caught-up run started after the one before it ended.
    const caughtUp = allRuns.filter((r) => r.status === 'SUCCEEDED').slice(1);
    for (let i = 1; i < caughtUp.length; i++) expect(caughtUp[i].startedAt!.getTime()).toBeGreaterThanOrEqual(caughtUp[i - 1].finishedAt!.getTime());
    for (const j of [none, latest, all]) await cronql!.jobs.pause(j.id, 'done');
  });

  it('ALL with retries: each caught-up slot runs to its last attempt before the next starts; none is SKIPPED behind a retry', async () => {
    clock.set('2026-06-01T14:30:00.500Z');
    const job = await cronql!.jobs.create({
      key: 'down-all-retried',
      target: 'flaky',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '0 * * * * *',
      catchUp: CatchUpPolicy.ALL,
      catchUpLimit: 3,
      retry: { maxAttempts: 2, backoff: 'FIXED', delaySeconds: 0 },
    } as never);
    await stop();
    clock.set('2026-06-01T14:33:30.000Z'); // down across 14:31, 14:32 and 14:33
    const last = nextChange(
      cronql ?? (await start()),
      (c) => c.run.jobId === job.id && c.run.status === 'SUCCEEDED' && c.run.scheduledAt.toISOString().endsWith('14:33:00.000Z'),
    );
    await last;
    await cronql!.runtime!.whenIdle();
    const runs = (await runsOf(cronql!, job.id)).sort((x, y) => x.scheduledAt.getTime() - y.scheduledAt.getTime() || x.attempt - y.attempt);
    expect(runs.map((r) => [r.scheduledAt.toISOString().slice(11, 19), r.attempt, r.status, r.failureCode])).toEqual(
      ['14:31:00', '14:32:00', '14:33:00'].flatMap((s) => [
        [s, 1, 'FAILED', 'HANDLER_ERROR'],
        [s, 2, 'SUCCEEDED', null],
      ]),
    );
    // One slot at a time, to its last attempt: each slot's first attempt started after the retry before it ended.
    for (let i = 2; i < runs.length; i += 2) expect(runs[i].startedAt!.getTime()).toBeGreaterThanOrEqual(runs[i - 1].finishedAt!.getTime());
    await cronql!.jobs.pause(job.id, 'done');
  });

  it('a long gap writes at most 100 MISSED rows per job, and one row that sums up the rest', async () => {
    clock.set('2026-06-01T15:00:00.500Z');
    const job = await create('every-second', '* * * * * *');
    clock.set('2026-06-01T15:00:01.500Z');
    await cronql!.runtime!.whenIdle();
    await stop();
    clock.set('2026-06-01T16:00:01.200Z'); // an hour offline: 3,600 slots
    await start();
    await eventuallyIdle(cronql!);
    const runs = await runsOf(cronql!, job.id);
    const skipped = runs.filter((r) => r.failureCode === 'MISSED');
    expect(skipped.length).toBe(101);
    const summary = skipped[0];
    expect(summary.scheduledAt.toISOString()).toBe('2026-06-01T15:00:02.000Z');
    expect(summary.failureDetails).toEqual({
      reason: 'PROCESS_DOWN',
      summary: { count: 3_499, countIsLowerBound: false, from: '2026-06-01T15:00:02.000Z', to: '2026-06-01T15:58:20.000Z' },
    });
    expect(summary.failureMessage).toMatch(/stands for 3499 slots/);
    expect(skipped[1].scheduledAt.toISOString()).toBe('2026-06-01T15:58:21.000Z');
    // The latest slot (16:00:01, 0.2 s ago) runs.
    expect(runs[runs.length - 1]).toMatchObject({ status: 'SUCCEEDED' });
    expect(runs[runs.length - 1].scheduledAt.toISOString()).toBe('2026-06-01T16:00:01.000Z');
    await cronql!.jobs.pause(job.id, 'done');
  });

  it('the sweep fails runs whose runner stopped beating (RUNNER_LOST) and claims PENDING runs nobody claimed', async () => {
    clock.set('2026-06-01T17:00:00.500Z');
    const job = await create('lost', '0 0 * * * *');
    const other = await create('unclaimed', '0 0 * * * *');
    const sql = new pg.Client({ connectionString: db.url });
    await sql.connect();
    try {
      await sql.query(`INSERT INTO cron_instances (id, role, host, pid, version, started_at, heartbeat_at)
        VALUES ('crashed', 'all', 'elsewhere', 1, 'x', now() - interval '1 hour', now() - interval '40 seconds')`);
      const lost = await sql.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'lost', 1, 'log', 'SCHEDULED', '2026-06-01T16:00:00Z', 'RUNNING', now(), 'crashed', now(), now()) RETURNING id`,
        [job.id],
      );
      const pending = await sql.query(
        `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, created_at, updated_at)
         VALUES (gen_random_uuid(), $1, 'unclaimed', 1, 'log', 'MANUAL', $2, 'PENDING', $2, $2) RETURNING id`,
        [other.id, new Date(clock.now().getTime() - 60_000)],
      );
      const settled = nextChange(cronql!, (c) => c.run.id === lost.rows[0].id);
      const claimed = nextChange(cronql!, (c) => c.run.id === pending.rows[0].id && c.run.status === 'SUCCEEDED');
      await cronql!.runtime!.sweep();
      const { run } = await settled;
      expect(run).toMatchObject({ status: 'FAILED', failureCode: 'RUNNER_LOST', runnerInstanceId: 'crashed' });
      expect(run.failureDetails).toMatchObject({ runnerInstanceId: 'crashed', lastHeartbeatAt: expect.any(String) });
      expect((await claimed).run.runnerInstanceId).toBe('ledger-test');
      // The job is no longer frozen: its next run starts.
      const again = await cronql!.runs.runNow(job.id);
      expect(again.status).not.toBe('SKIPPED');
    } finally {
      await sql.end();
    }
  });
});

async function eventuallyIdle(cronql: Cronql): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await cronql.runtime!.whenIdle();
    await new Promise((r) => setImmediate(r));
  }
}
