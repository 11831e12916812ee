import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.js';
import { CatchUpPolicy, ScheduleType } from '../../src/domain/enums.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { eventually, runsOf, startCronql } from '../support/cronql.js';
import { nextEvent } from '../support/wait-for.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/**
 * A PostgreSQL server of its own, stopped and started again while jobs fire: the process stays
 * up, readiness says so, runs in flight end terminal, and every slot due meanwhile becomes a row
 * that says what happened — once.
 */
describe('PostgreSQL stopped and started while jobs fire', () => {
  let dir: string;
  let port: number;
  let db: EmbeddedDatabase;
  let cronql: Cronql;
  const log = createLogger();
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');
  let release: () => void = () => {};

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cronql-outage-'));
    await chmod(dir, 0o755);
    port = await freePort();
    db = await startEmbeddedPostgres({ dataDir: dir, log, port });
    cronql = await startCronql(db.url, {
      clock,
      instanceId: 'outage-test',
      heartbeatMs: 100,
      misfireGraceMs: 2_000,
      // The default's 5 s: a stopped server refuses a connection at once, and a loaded machine can
      // take more than half a second to hand one out while it runs (a read before the outage
      // failed so with 500 ms).
      dbConnectTimeoutMs: 5_000,
      dbQueryTimeoutMs: 2_000,
      targets: {
        hold: () => new Promise<{ held: true }>((resolve) => (release = () => resolve({ held: true }))),
      },
    });
  }, 60_000);
  afterAll(async () => {
    await cronql?.stop();
    await db?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stays up, reports not ready, and accounts for every slot once the database is back', async () => {
    const job = (key: string, target: string, catchUp = CatchUpPolicy.NONE) =>
      cronql.jobs.create({ key, target, scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', catchUp });
    const none = await job('outage-none', 'log');
    const latest = await job('outage-latest', 'log', CatchUpPolicy.LATEST);
    const held = await job('outage-held', 'hold');

    clock.set('2026-06-01T12:00:10.000Z');
    await eventually(async () => (await runsOf(cronql, held.id))[0]?.status === 'RUNNING');
    await eventually(async () => (await runsOf(cronql, none.id))[0]?.status === 'SUCCEEDED');

    const unreachable = nextEvent(cronql.runtimeEvents, 'databaseUnreachable');
    await db.stop();
    for (const at of ['12:00:20', '12:00:30', '12:00:40', '12:00:50']) {
      clock.set(`2026-06-01T${at}.000Z`);
      await cronql.runtime!.whenRecorded();
    }
    clock.set('2026-06-01T12:00:55.000Z');
    await unreachable;
    const started = Date.now();
    const down = await cronql.readiness();
    // Bounded by the probe's own deadline (0.8 s), not by the pool's 5 s connect timeout; the
    // bound asserted is the latter, so that a busy machine's late timer does not fail it.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(down).toMatchObject({ ready: false, checks: { runtime: 'failing', database: 'failing' } });
    release(); // the held run ends while the database is away: its end is recorded once it is back

    const reachable = nextEvent(cronql.runtimeEvents, 'databaseReachable');
    db = await startEmbeddedPostgres({ dataDir: dir, log, port });
    await reachable;
    await eventually(async () => (await cronql.readiness()).ready, 15_000);
    await eventually(async () => (await runsOf(cronql, held.id)).length === 5 && (await runsOf(cronql, latest.id)).length === 5, 15_000);
    await cronql.runtime!.whenIdle();

    const rows = async (id: string) =>
      (await runsOf(cronql, id)).map((r) => [r.scheduledAt.toISOString().slice(11, 19), r.status, r.failureCode, (r.failureDetails as { reason?: string } | null)?.reason ?? null]);
    const missed = (at: string) => [at, 'SKIPPED', 'MISSED', 'DATABASE_UNREACHABLE'];
    expect(await rows(none.id)).toEqual([
      ['12:00:10', 'SUCCEEDED', null, null],
      ...['12:00:20', '12:00:30', '12:00:40', '12:00:50'].map(missed),
    ]);
    expect(await rows(latest.id)).toEqual([
      ['12:00:10', 'SUCCEEDED', null, null],
      ...['12:00:20', '12:00:30', '12:00:40'].map(missed),
      ['12:00:50', 'SUCCEEDED', null, null],
    ]);
    expect(await rows(held.id)).toEqual([
      ['12:00:10', 'SUCCEEDED', null, null],
      ...['12:00:20', '12:00:30', '12:00:40', '12:00:50'].map(missed),
    ]);

    // And the jobs fire again as usual.
    await cronql.jobs.pause(held.id, 'its target waits to be released');
    clock.set('2026-06-01T12:01:00.000Z');
    await cronql.runtime!.whenIdle();
    await eventually(async () => (await runsOf(cronql, none.id)).at(-1)?.status === 'SUCCEEDED');
    expect((await runsOf(cronql, none.id)).at(-1)!.scheduledAt.toISOString()).toBe('2026-06-01T12:01:00.000Z');
  }, 60_000);
});
