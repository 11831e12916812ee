import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cronql } from '../../src/app.js';
import { releaseLease, takeLease } from '../../src/db/maintenance-lease.js';
import { createLogger } from '../../src/logger.js';
import { Duty, type DutyContext } from '../../src/maintenance/duty.js';
import type { MaintenancePass } from '../../src/maintenance/events.js';
import { Outage } from '../../src/maintenance/outage.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/** A duty whose work the test controls. */
class Probe extends Duty {
  readonly name = 'probe';
  constructor(
    ctx: DutyContext,
    readonly scope: 'instance' | 'cluster',
    private readonly work_: () => Promise<void>,
  ) {
    super(ctx, 60_000);
  }
  protected work(): Promise<void> {
    return this.work_();
  }
}

function context(o: { held?: boolean } = {}) {
  const passes: MaintenancePass[] = [];
  const outages: boolean[] = [];
  const log = createLogger();
  log.level = 'silent';
  const ctx: DutyContext = { log, instanceId: 'me', outage: new Outage(log, (down) => outages.push(down)), leaseHeld: () => o.held ?? true, passed: (p) => passes.push(p) };
  return { ctx, passes, outages };
}

describe('a maintenance duty', () => {
  it('never overlaps its passes, never rejects, and says how each ended', async () => {
    const { ctx, passes } = context();
    let calls = 0;
    let release!: () => void;
    const duty = new Probe(ctx, 'instance', async () => {
      calls++;
      if (calls === 1) await new Promise<void>((r) => (release = r));
      if (calls === 2) throw new Error('boom');
    });
    const a = duty.pass();
    const b = duty.pass();
    expect(b).toBe(a); // joins the pass in progress
    release();
    await a;
    await duty.pass(); // throws inside: reported, not rejected
    expect(calls).toBe(2);
    expect(passes.map((p) => [p.duty, p.instance, p.result])).toEqual([
      ['probe', 'me', 'ok'],
      ['probe', 'me', 'failed'],
    ]);
    await duty.stop();
    await duty.stop(); // idempotent
    await duty.pass(); // stopped: no pass
    expect(calls).toBe(2);
  });

  it('turns the outage on when the database does not answer, and then waits for the heartbeat', async () => {
    const { ctx, passes, outages } = context();
    let calls = 0;
    const duty = new Probe(ctx, 'instance', async () => {
      calls++;
      throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    });
    await duty.pass();
    expect(passes.at(-1)?.result).toBe('unreachable');
    expect(outages).toEqual([true]);
    await duty.pass(); // during the outage: not run
    expect(calls).toBe(1);
    ctx.outage.end();
    await duty.pass();
    expect(calls).toBe(2);
  });

  it('runs a cluster-wide duty only while this instance holds the lease', async () => {
    let held = false;
    const { ctx, passes } = context();
    ctx.leaseHeld = () => held;
    let calls = 0;
    const duty = new Probe(ctx, 'cluster', async () => void calls++);
    await duty.pass();
    expect(calls).toBe(0);
    expect(passes).toEqual([]);
    held = true;
    await duty.pass();
    expect(calls).toBe(1);
  });
});

describe('the maintenance lease', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  let cronql: Cronql;
  beforeAll(async () => {
    db = await testDatabase();
    cronql = await startCronql(db.url, { role: 'api', listen: false });
  });
  afterAll(async () => {
    await cronql.stop();
    await db.drop();
  });

  it('is held by one instance until it lapses or is given up', async () => {
    const { pool } = cronql;
    expect(await takeLease(pool, 'test', 'a', 60_000)).toBe(true);
    expect(await takeLease(pool, 'test', 'b', 60_000)).toBe(false);
    expect(await takeLease(pool, 'test', 'a', 60_000)).toBe(true); // renewed
    await releaseLease(pool, 'test', 'b'); // not b's to give up
    expect(await takeLease(pool, 'test', 'b', 60_000)).toBe(false);
    // Lapsed (on the database's clock): the next try takes it.
    await pool.query(`UPDATE cron_maintenance_leases SET expires_at = now() - interval '1 second' WHERE name = 'test'`);
    expect(await takeLease(pool, 'test', 'b', 60_000)).toBe(true);
    expect(await takeLease(pool, 'test', 'a', 60_000)).toBe(false);
    await releaseLease(pool, 'test', 'b');
    expect(await takeLease(pool, 'test', 'a', 60_000)).toBe(true);
    // Many instances trying at once: exactly one holds it.
    await releaseLease(pool, 'test', 'a');
    const tries = await Promise.all(Array.from({ length: 8 }, (_, i) => takeLease(pool, 'test', `i${i}`, 60_000)));
    expect(tries.filter(Boolean)).toHaveLength(1);
  });
});
