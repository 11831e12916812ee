import type { Logger } from '../logger.js';
import { MAINTENANCE, NOTIFICATIONS, maintenanceLeaseMs } from '../config.js';
import { removeInstance, type InstanceIdentity } from '../db/instances.js';
import { OutboxStore } from '../db/notification-outbox.js';
import type { Pool } from '../db/pool.js';
import type { RunStore } from '../db/run-store.js';
import { bounded } from '../domain/bounded.js';
import type { Ledger } from '../runtime/ledger.js';
import { BackfillsDuty } from './backfills.js';
import { ChainStopsDuty } from './chain-stops.js';
import type { Duty, DutyContext } from './duty.js';
import type { MaintenanceListener } from './events.js';
import { HeartbeatDuty } from './heartbeat.js';
import { HeartbeatTimeoutsDuty } from './heartbeat-timeouts.js';
import { InstancePruningDuty } from './instance-pruning.js';
import { LateJobsDuty } from './late-jobs.js';
import { LeaseDuty } from './lease.js';
import { LostRunsDuty } from './lost-runs.js';
import type { Tracing } from '../tracing/tracing.js';
import type { MaintainedRuntime } from './maintained-runtime.js';
import { Outage } from './outage.js';
import { OwnRunsDuty } from './own-runs.js';
import { PauseEndsDuty } from './pause-ends.js';
import { PendingRunsDuty } from './pending-runs.js';
import { RebalanceDuty } from './rebalance.js';
import { Retention, RetentionDuty } from './retention.js';
import { RetryWakeupsDuty } from './retry-wakeups.js';
import { AuditRetentionDuty } from './audit-retention.js';
import { RunLogRetentionDuty } from './run-log-retention.js';
import { StrandedBuffersDuty } from './stranded-buffers.js';

export interface MaintenanceOptions {
  pool: Pool;
  store: RunStore;
  ledger: Ledger;
  log: Logger;
  identity: InstanceIdentity;
  /** How often this instance beats; the unit of the duties' periods. */
  heartbeatMs: number;
  /** A runner silent this long has lost its runs (RUNNER_LOST); the lease's length follows it. */
  lostAfterMs: number;
  /** RUNNING runs of no known runner older than this are STALE_TIMEOUT. */
  staleAfterMs: number;
  /** Run history kept, in days (0: kept for ever, no retention duty). */
  retentionDays: number;
  /** Run log lines kept, in days (0: as long as their run, no run-log retention duty). */
  runLogRetentionDays: number;
  /** Audit entries kept, in days (0: for ever, no audit retention duty). */
  auditRetentionDays: number;
  now(): Date;
  runtime: MaintainedRuntime;
  /** Told of each pass (metrics, tests). */
  passed?: MaintenanceListener;
  /** Told of each retention round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
  /** Told of each run-log retention round's outcome (metrics). */
  onLogsPruned?: (deleted: number) => void;
  /** With tracing on: the spans of runs the rescue and the heartbeat rule end for their lost or silent runner. */
  tracing?: Tracing;
}

/**
 * The maintenance of one runtime: small services (src/maintenance/*.ts), each with its period,
 * started and stopped here in an explicit order. Instance duties run on every instance (its
 * heartbeat, the lease try, its share of the jobs, its own runs); cluster-wide duties (heartbeat
 * timeouts, lost-run rescue, pending claims, retry wake-ups, pause ends, stranded buffers, chain stops, backfills, late jobs, instance pruning,
 * retention) run only on the instance holding the lease (src/maintenance/lease.ts), so the
 * maintenance load stays flat as instances are added. Every cluster duty is also safe should two
 * instances ever run it at once (conditional updates, SKIP LOCKED): the lease is for load, not
 * for correctness.
 */
export class Maintenance {
  readonly heartbeat: HeartbeatDuty;
  readonly lease: LeaseDuty;
  /** Every duty, in the order of a sweep (the order of today's round: beat, lease, rescue, claims, …). */
  private readonly duties: Duty[];
  private readonly cluster: Duty[];
  private stopping: Promise<void> | undefined;
  private steppingDown: Promise<void> | undefined;

  constructor(private readonly o: MaintenanceOptions) {
    const hb = o.heartbeatMs;
    const every = (name: keyof typeof MAINTENANCE.everyHeartbeats) => MAINTENANCE.everyHeartbeats[name] * hb;
    const outage = new Outage(o.log, (down) => o.runtime.setOutage(down));
    const ctx: DutyContext = {
      log: o.log,
      instanceId: o.identity.id,
      outage,
      leaseHeld: () => this.lease.held,
      passed: o.passed ?? (() => {}),
    };
    const { store, runtime, now } = o;
    const perPass = MAINTENANCE.perPass;
    this.heartbeat = new HeartbeatDuty(ctx, every('heartbeat'), { pool: o.pool, identity: o.identity, ledger: o.ledger, actorCount: () => runtime.actorCount });
    this.lease = new LeaseDuty(ctx, every('lease'), o.pool, maintenanceLeaseMs(hb, o.lostAfterMs), () => void this.runCluster());
    this.cluster = [
      // Before the lost-run rescue: a dead runner's silent runs fail HEARTBEAT_TIMEOUT, the more precise reason.
      new HeartbeatTimeoutsDuty(ctx, every('heartbeat-timeouts'), store, o.tracing),
      new LostRunsDuty(ctx, every('lost-runs'), { store, lostAfterMs: o.lostAfterMs, staleAfterMs: o.staleAfterMs, tracing: o.tracing }),
      new PendingRunsDuty(ctx, every('pending-runs'), { store, runtime, now, pendingAfterMs: MAINTENANCE.pendingAfterMs, perPass }),
      new RetryWakeupsDuty(ctx, every('retry-wakeups'), { store, runtime, now, perPass }),
      new PauseEndsDuty(ctx, every('pause-ends'), { pool: o.pool, runtime, now, perPass }),
      new StrandedBuffersDuty(ctx, every('stranded-buffers'), { store, runtime, perPass }),
      new ChainStopsDuty(ctx, every('chain-stops'), store),
      new BackfillsDuty(ctx, every('backfills'), runtime),
      new LateJobsDuty(ctx, every('late-jobs'), { pool: o.pool, now, perPass: NOTIFICATIONS.lateJobsPerPass }),
      new InstancePruningDuty(ctx, every('instance-pruning'), { pool: o.pool, afterMs: Math.max(MAINTENANCE.pruneInstancesAfterMs, 10 * o.lostAfterMs) }),
    ];
    if (o.retentionDays > 0) {
      const retention = new Retention({ store, log: o.log, days: o.retentionDays, now, onPruned: o.onPruned, outbox: new OutboxStore(o.pool) });
      this.cluster.push(new RetentionDuty(ctx, MAINTENANCE.retentionEveryMs, retention));
    }
    if (o.runLogRetentionDays > 0) {
      this.cluster.push(new RunLogRetentionDuty(ctx, MAINTENANCE.retentionEveryMs, { pool: o.pool, log: o.log, days: o.runLogRetentionDays, now, onPruned: o.onLogsPruned }));
    }
    if (o.auditRetentionDays > 0) {
      this.cluster.push(new AuditRetentionDuty(ctx, MAINTENANCE.retentionEveryMs, { pool: o.pool, log: o.log, days: o.auditRetentionDays, now }));
    }
    this.duties = [
      this.heartbeat,
      this.lease,
      ...this.cluster,
      // Membership: a crashed scheduler's share is taken over once its heartbeat is old enough.
      new RebalanceDuty(ctx, every('rebalance'), runtime),
      new OwnRunsDuty(ctx, every('own-runs'), { store, runtime, now }),
    ];
  }

  /** When this instance last recorded its heartbeat. */
  get lastBeatAt(): Date | null {
    return this.heartbeat.lastBeatAt;
  }

  set lastBeatAt(at: Date | null) {
    this.heartbeat.lastBeatAt = at;
  }

  /**
   * Starts every duty: the heartbeat and the lease at once (a lease taken runs the cluster duties
   * at once too), the others spread over their first period, so that the pool sees one or two
   * maintenance statements at a time rather than all of them each heartbeat.
   */
  start(): void {
    if (this.stopping || this.steppingDown) return;
    const rest = this.duties.filter((d) => d !== this.heartbeat && d !== this.lease);
    this.heartbeat.start(this.heartbeat.everyMs);
    this.lease.start(0);
    rest.forEach((d, i) => d.start(((i + 1) * Math.min(d.everyMs, this.o.heartbeatMs)) / (rest.length + 1)));
  }

  /**
   * One pass of every duty whose period is a heartbeat, one after another in the order above, now
   * (tests; a resynchronisation after lost notifications). Never rejects.
   */
  async sweep(): Promise<void> {
    for (const d of this.duties) if (d.everyMs <= this.o.heartbeatMs) await d.pass();
  }

  /** The cluster duties, once each, now (on taking the lease). */
  private async runCluster(): Promise<void> {
    for (const d of this.cluster) await d.pass();
  }

  /**
   * Gives the cluster-wide duties up (when this instance stops firing): their duties stop, the
   * lease is released, and another instance takes them on its next try — not after this one has
   * drained its runs, during which it could not claim what they find. Never rejects; idempotent.
   */
  stepDown(): Promise<void> {
    this.steppingDown ??= (async () => {
      for (const d of [...this.cluster].reverse()) await d.stop();
      await this.lease.stop();
      try {
        await bounded(this.lease.release(), 1_000);
      } catch (err) {
        this.o.log.warn({ err }, 'could not give the maintenance lease up; it expires by itself');
      }
    })();
    return this.steppingDown;
  }

  /**
   * Stops every duty — the cluster-wide ones and the lease first, the heartbeat last — and
   * removes this instance's row. Bounded: each step gives up after a second on a database that
   * does not answer. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.stepDown();
      for (const d of [...this.duties].reverse()) if (d !== this.heartbeat) await d.stop();
      await this.heartbeat.stop();
      try {
        await bounded(removeInstance(this.o.pool, this.o.identity.id), 1_000);
      } catch (err) {
        this.o.log.warn({ err }, 'could not remove this instance from the instances table; it will be pruned');
      }
    })();
    return this.stopping;
  }
}
