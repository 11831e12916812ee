import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/runtime/clock.js';
import { RunStatus, ScheduleType } from '../../src/domain/enums.js';
import { eventually, useCronql } from '../support/cronql.js';

type Mode = 'ok' | 'fail' | 'hold';

/**
 * Job signals kept as runs end — consecutive failures, last success and failure — and auto-pause
 * at a job's threshold: counted across success, failure, cancel and skip; resume resets.
 */
describe('job signals and auto-pause', () => {
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  let mode: Mode = 'ok';
  let release: () => void = () => {};
  const t = useCronql({
    clock,
    instanceId: 'signals',
    targets: {
      flaky: async () => {
        if (mode === 'fail') throw Object.assign(new Error('boom'), { code: 'UPSTREAM_DOWN' });
        if (mode === 'hold') await new Promise<void>((resolve) => (release = resolve));
        return { ok: true };
      },
    },
  });

  it('counts failures in a row, ignores cancels and skips, pauses at the threshold, and resume resets', async () => {
    const job = await t.cronql.jobs.create({
      key: 'flaky', target: 'flaky', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', pauseAfterFailures: 3,
    });
    const state = async () => {
      await t.cronql.runtime!.whenIdle();
      const j = (await t.cronql.jobs.get(job.id))!;
      return { status: j.status, failures: j.consecutiveFailures, success: j.lastSuccessAt?.toISOString().slice(11, 19) ?? null, failure: j.lastFailureAt?.toISOString().slice(11, 19) ?? null };
    };
    const slot = async (at: string, m: Mode) => {
      mode = m;
      clock.set(`2026-06-01T${at}.000Z`);
      if (m !== 'hold') return state();
      await eventually(async () => (await t.cronql.runs.list({ jobId: job.id, status: [RunStatus.RUNNING] }, 1)).nodes.length === 1);
      return null;
    };

    expect(await slot('12:00:10', 'ok')).toEqual({ status: 'ACTIVE', failures: 0, success: '12:00:10', failure: null });
    expect(await slot('12:00:20', 'fail')).toMatchObject({ failures: 1, failure: '12:00:20' });
    expect(await slot('12:00:30', 'fail')).toMatchObject({ failures: 2, success: '12:00:10' });
    // A held run, a slot skipped behind it (OVERLAP), then the held run canceled: no change.
    await slot('12:00:40', 'hold');
    mode = 'fail';
    clock.set('2026-06-01T12:00:50.000Z');
    await t.cronql.runtime!.whenRecorded();
    const held = (await t.cronql.runs.list({ jobId: job.id, status: [RunStatus.RUNNING] }, 1)).nodes[0];
    await t.cronql.runs.cancel(held.id);
    release();
    expect(await state()).toMatchObject({ status: 'ACTIVE', failures: 2 });
    const statuses = (await t.cronql.runs.list({ jobId: job.id }, 50)).nodes.map((r) => `${r.status}${r.failureCode ? `/${r.failureCode}` : ''}`);
    expect(statuses).toEqual(['SKIPPED/OVERLAP', 'CANCELED/CANCELED', 'FAILED/UPSTREAM_DOWN', 'FAILED/UPSTREAM_DOWN', 'SUCCEEDED']);

    // The third failure in a row pauses it, by cronql, with the reason; no slot fires after.
    expect(await slot('12:01:00', 'fail')).toMatchObject({ status: 'PAUSED', failures: 3, failure: '12:01:00' });
    const paused = (await t.cronql.jobs.get(job.id))!;
    expect(paused.pauseReason).toBe('auto-paused after 3 consecutive failures; last: UPSTREAM_DOWN boom');
    expect(paused.updatedBy).toBe('cronql');
    await eventually(() => t.cronql.runtime!.nextRunAt(job.id) === null);
    clock.set('2026-06-01T12:01:30.000Z');
    await t.cronql.runtime!.whenIdle();
    expect((await t.cronql.runs.list({ jobId: job.id }, 50)).nodes).toHaveLength(6);

    // Resume: the count starts afresh, and the job fires again.
    await t.cronql.jobs.resume(job.id);
    expect(await state()).toMatchObject({ status: 'ACTIVE', failures: 0 });
    expect(await slot('12:01:40', 'ok')).toMatchObject({ status: 'ACTIVE', failures: 0, success: '12:01:40' });
  });

  it('refuses a bad threshold with BAD_USER_INPUT and copies a good one to new versions', async () => {
    for (const bad of [0, -1, 1001, 1.5]) {
      await expect(
        t.cronql.jobs.create({ key: `bad-${bad}`, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *', pauseAfterFailures: bad }),
      ).rejects.toMatchObject({ code: 'BAD_USER_INPUT' });
    }
    const v1 = await t.cronql.jobs.create({ key: 'thresholds', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *', pauseAfterFailures: 5 });
    const v2 = await t.cronql.jobs.createVersion(v1.id, { timezone: 'Europe/Paris' });
    expect(v2.pauseAfterFailures).toBe(5);
    const v3 = await t.cronql.jobs.createVersion(v2.id, { pauseAfterFailures: null });
    expect(v3.pauseAfterFailures).toBeNull();
  });
});

describe('the revision of a job', () => {
  const t = useCronql({ instanceId: 'revision' });
  it('moves when the job changes, not when its runs end', async () => {
    const job = await t.cronql.jobs.create({ key: 'rev', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *' });
    const revision = async () => (await t.cronql.jobs.get(job.id))!.revision;
    const before = await revision();
    for (let i = 0; i < 3; i++) {
      const run = await t.cronql.runs.runNow(job.id);
      await eventually(async () => (await t.cronql.runs.get(run.id))?.status === 'SUCCEEDED');
    }
    expect((await t.cronql.jobs.get(job.id))!.lastSuccessAt).not.toBeNull();
    expect(await revision()).toBe(before);
    await t.cronql.jobs.pause(job.id, 'check');
    expect(await revision()).toBe(before + 1);
  });
});
