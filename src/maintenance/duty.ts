import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';
import { bounded } from '../domain/bounded.js';
import type { DutyScope, MaintenanceListener, PassResult } from './events.js';
import type { Outage } from './outage.js';

/** What every duty is given: where it logs and reports, the shared outage state, and the lease. */
export interface DutyContext {
  log: Logger;
  instanceId: string;
  outage: Outage;
  /** Whether this instance holds the cluster-wide lease now (cluster duties run only then). */
  leaseHeld(): boolean;
  passed: MaintenanceListener;
}

/**
 * One maintenance duty as a small service (after River's internal/maintenance services): its own
 * period, `start()`, an idempotent `stop()`, and a `pass()` that never throws and never overlaps
 * the previous one. A cluster-wide duty runs only on the instance holding the lease; an
 * instance duty runs everywhere. No duty runs while the database is away, except the
 * heartbeat (`always`), which is how the outage ends.
 */
export abstract class Duty {
  abstract readonly name: string;
  abstract readonly scope: DutyScope;
  /** Runs during an outage too (the heartbeat: it ends the outage). */
  protected readonly always: boolean = false;
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    protected readonly ctx: DutyContext,
    /** Between two passes. */
    readonly everyMs: number,
  ) {}

  /** One pass's work; may throw (pass() reports it), or say it found the database away. */
  protected abstract work(): Promise<PassResult | void>;

  /**
   * Passes every `everyMs` from now on, the first after `offsetMs`: the scheduler spreads the
   * duties over the period, so the pool sees one or two maintenance statements at a time.
   */
  start(offsetMs = 0): void {
    if (this.stopped || this.timer || this.first) return;
    this.first = setTimeout(() => {
      this.first = undefined;
      if (this.stopped) return;
      this.timer = setInterval(() => void this.pass(), this.everyMs);
      this.timer.unref();
      void this.pass();
    }, Math.max(0, Math.min(offsetMs, this.everyMs)));
    this.first.unref();
  }

  /** No pass from now on; waits (bounded) for one in progress. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.first);
    clearInterval(this.timer);
    this.first = this.timer = undefined;
    // Bounded: a pass stuck on a database that does not answer is left behind.
    await bounded(this.running ?? Promise.resolve(), 1_000);
  }

  /** One pass now (or the pass in progress). Never rejects. */
  pass(): Promise<void> {
    this.running ??= this.once().finally(() => (this.running = undefined));
    return this.running;
  }

  private async once(): Promise<void> {
    const { ctx } = this;
    if (this.stopped) return;
    if (this.scope === 'cluster' && !ctx.leaseHeld()) return;
    if (ctx.outage.down && !this.always) return;
    const t0 = performance.now();
    let result: PassResult = 'ok';
    try {
      result = (await this.work()) ?? 'ok';
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        result = 'unreachable';
        ctx.outage.begin(err);
      } else {
        result = 'failed';
        ctx.log.error({ err, duty: this.name }, 'a maintenance pass failed; the next one retries');
      }
    }
    const pass = { duty: this.name, scope: this.scope, instance: ctx.instanceId, durationMs: performance.now() - t0, result };
    try {
      ctx.passed(pass);
    } catch (err) {
      ctx.log.error({ err, duty: this.name }, 'a maintenance pass listener threw');
    }
  }
}
