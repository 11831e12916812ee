import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { ScheduleType } from '../../src/domain/enums.js';
import { TargetError, type TargetContext } from '../../src/runtime/targets/target.js';
import { eventually, nextChange, startCronql, terminal, testDatabase } from '../support/cronql.js';

const targets = {
  'billing.explode': async () => {
    throw new TargetError('LEDGER_LOCKED', 'the ledger is locked', { ledger: 'eu-1', retryable: false });
  },
  'plain.throw': () => {
    throw new Error('plain failure');
  },
  'ignores.signal': () => new Promise((resolve) => setTimeout(() => resolve('late'), 5_000)),
  'returns.value': (ctx: TargetContext) => ({ got: ctx.payload, run: ctx.run.triggerType }),
  'returns.nul': () => ({ text: 'a\u0000b' }),
  'mutates.payload': (ctx: TargetContext) => {
    const seen = structuredClone(ctx.payload);
    (ctx.payload as { items: number[] }).items.push(99);
    return seen;
  },
};

describe('executing runs', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  const clock = new ManualClock('2026-06-01T10:00:00.000Z');

  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { clock, targets });
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });

  const job = (key: string, target: string, extra: Record<string, unknown> = {}) =>
    cronql.jobs.create({ key, target, scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *', ...extra });

  const runNowToEnd = async (jobId: string, payload?: unknown) => {
    const done = nextChange(cronql, (c) => c.run.jobId === jobId && terminal(c));
    await cronql.runs.runNow(jobId, payload);
    return (await done).run;
  };

  it('a handler error with a code fails the run with that code, message and details', async () => {
    const j = await job('explode', 'billing.explode');
    expect(await runNowToEnd(j.id)).toMatchObject({
      status: 'FAILED',
      triggerType: 'MANUAL',
      failureCode: 'LEDGER_LOCKED',
      failureMessage: 'the ledger is locked',
      failureDetails: { ledger: 'eu-1', retryable: false },
    });
  });

  it('a handler that mutates its payload changes neither the next slot\'s payload nor the recorded snapshot', async () => {
    const j = await cronql.jobs.create({
      key: 'mutates',
      target: 'mutates.payload',
      scheduleType: ScheduleType.RECURRING,
      cronExpression: '* * * * * *',
      payload: { items: [1] },
    });
    const ends: { output: unknown; payloadSnapshot: unknown }[] = [];
    const off = cronql.events.on((c) => c.run.jobId === j.id && terminal(c) && ends.push(c.run));
    try {
      for (let i = 0; i < 3; i++) {
        clock.advance(1_000);
        await cronql.runtime!.whenIdle();
      }
    } finally {
      off();
      await cronql.jobs.pause(j.id, 'done');
    }
    expect(ends.length).toBeGreaterThanOrEqual(2);
    for (const run of ends) expect(run).toMatchObject({ output: { items: [1] }, payloadSnapshot: { items: [1] } });
  });

  it('a plain Error fails the run with HANDLER_ERROR', async () => {
    const j = await job('plain', 'plain.throw');
    expect(await runNowToEnd(j.id)).toMatchObject({ status: 'FAILED', failureCode: 'HANDLER_ERROR', failureMessage: 'plain failure' });
  });

  it('run-now with a payload is AD_HOC and the handler output is stored', async () => {
    const j = await job('value', 'returns.value', { payload: { a: 1 } });
    expect(await runNowToEnd(j.id, { b: 2 })).toMatchObject({
      status: 'SUCCEEDED',
      triggerType: 'AD_HOC',
      payloadSnapshot: { b: 2 },
      output: { got: { b: 2 }, run: 'AD_HOC' },
    });
    expect((await runNowToEnd(j.id)).payloadSnapshot).toEqual({ a: 1 });
  });

  it('the job timeout aborts the handler and fails the run with TIMEOUT', async () => {
    const j = await job('slow', 'sleep', { payload: { ms: 10_000 }, timeoutSeconds: 1 });
    const started = Date.now();
    const run = await runNowToEnd(j.id);
    expect(run).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
    // Cut short, not waited for: it ended before the handler's own 10 s (not a speed goal).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a handler that ignores its signal still loses against the timeout', async () => {
    const j = await job('deaf', 'ignores.signal', { timeoutSeconds: 1 });
    expect(await runNowToEnd(j.id)).toMatchObject({ status: 'FAILED', failureCode: 'TIMEOUT' });
  });

  it('cancelRun on a running run fires its signal and the run ends CANCELED', async () => {
    const j = await job('cancel-me', 'sleep', { payload: { ms: 60_000 } });
    const run = await cronql.runs.runNow(j.id);
    await eventually(async () => (await cronql.runs.get(run.id))?.status === 'RUNNING');
    const overlap = await cronql.runs.runNow(j.id);
    expect(overlap).toMatchObject({ status: 'SKIPPED', failureCode: 'OVERLAP' });
    const canceled = await cronql.runs.cancel(run.id);
    expect(canceled.status).toBe('CANCELED');
    await eventually(() => cronql.runtime!.activeRuns === 0);
    expect(await cronql.runs.get(run.id)).toMatchObject({ status: 'CANCELED' });
    await expect(cronql.runs.cancel(run.id)).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await expect(cronql.runs.cancel('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('retries recording the end of a run while the database is unreachable', async () => {
    type Finish = (...a: unknown[]) => Promise<unknown>;
    const recorder = (cronql.runtime as unknown as { store: { finish: Finish; finishAlone: Finish } }).store;
    const original = { finish: recorder.finish, finishAlone: recorder.finishAlone };
    let failures = 0;
    const flaky = (real: Finish): Finish => (...args) =>
      failures++ < 3 ? Promise.reject(new Error('Connection terminated unexpectedly')) : real.apply(recorder, args);
    recorder.finish = flaky(original.finish);
    recorder.finishAlone = flaky(original.finishAlone);
    try {
      const j = await job('flaky-db', 'returns.value');
      expect(await runNowToEnd(j.id)).toMatchObject({ status: 'SUCCEEDED', output: { got: null, run: 'MANUAL' } });
      expect(failures).toBe(4);
    } finally {
      Object.assign(recorder, original);
    }
  });

  it('an output PostgreSQL cannot store (a NUL character) does not leave the run RUNNING', async () => {
    const j = await job('nul-output', 'returns.nul');
    expect(await runNowToEnd(j.id)).toMatchObject({ status: 'SUCCEEDED', output: { text: 'ab' } });
  });

  it('unknown targets are rejected at create and nothing is stored', async () => {
    await expect(job('ghost', 'no.such.target')).rejects.toMatchObject({ code: 'UNKNOWN_TARGET' });
    expect((await cronql.jobs.list({ key: 'ghost' })).totalCount).toBe(0);
  });
});

describe('graceful shutdown', () => {
  it('lets in-flight runs finish within the grace period, and fails the rest with SHUTDOWN', async () => {
    const db = await testDatabase();
    const cronql = await startCronql(db.url, { targets, shutdownGraceMs: 1_500 });
    try {
      const quick = await cronql.jobs.create({ key: 'quick', target: 'sleep', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *', payload: { ms: 300 } });
      const deaf = await cronql.jobs.create({ key: 'deaf', target: 'ignores.signal', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
      const r1 = await cronql.runs.runNow(quick.id);
      const r2 = await cronql.runs.runNow(deaf.id);
      await cronql.stop();
      const check = await startCronql(db.url, { listen: false, role: 'api' });
      expect(await check.runs.get(r1.id)).toMatchObject({ status: 'SUCCEEDED' });
      expect(await check.runs.get(r2.id)).toMatchObject({ status: 'FAILED', failureCode: 'SHUTDOWN' });
      expect((await check.runs.list({ status: ['RUNNING' as never, 'PENDING' as never] })).totalCount).toBe(0);
      await check.stop();
    } finally {
      await cronql.stop();
      await db.drop();
    }
  });
});
