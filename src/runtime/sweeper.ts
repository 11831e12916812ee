import type { Logger } from '../logger.js';
import { beat, pruneInstances, removeInstance, type InstanceIdentity } from '../db/instances.js';
import { isDatabaseUnavailable, type Pool } from '../db/pool.js';
import { bounded } from '../domain/bounded.js';
import { isTerminal } from '../domain/enums.js';
import type { ClaimedRun, RunStore, WaitingRun } from '../db/run-store.js';
import type { Ledger } from './ledger.js';

/** What the sweep asks of the runtime it serves. */
export interface SweptRuntime {
  /** Claims PENDING runs and executes those won. */
  claimAndExecute(runIds: string[]): Promise<unknown>;
  /** Executes runs the database says this instance runs but nothing here does. */
  resume(runs: ClaimedRun[]): void;
  /** Ids of the runs executing here. */
  inFlight(): string[];
  abortRun(runId: string): void;
  /** Start of the oldest fire or claim still waiting for its answer (its runs may exist already). */
  oldestPendingWrite(): Date | null;
  /** The database answers (false) or not (true): while it does not, slots are deferred, not sent. */
  setOutage(outage: boolean): void;
  /** Sets alarms that claim waiting runs (retries) when due. */
  wake(runs: readonly WaitingRun[]): void;
  /** Recomputes which jobs this instance arms from the live schedulers. */
  rebalance(): Promise<void>;
  /** Jobs armed here (recorded with each beat). */
  readonly actorCount: number;
}

export interface SweeperOptions {
  pool: Pool;
  store: RunStore;
  ledger: Ledger;
  log: Logger;
  identity: InstanceIdentity;
  /** How often it runs, and how often this instance records that it is alive. */
  heartbeatMs: number;
  /**
   * A runner silent this long has lost its runs (RUNNER_LOST). Judged a heartbeat earlier, so
   * that with the sweep's own period the runs are settled at most this long after the last beat.
   */
  lostAfterMs: number;
  /** RUNNING runs of no known runner older than this are STALE_TIMEOUT. */
  staleAfterMs: number;
  /** PENDING runs older than this are claimed by the sweep (their creator did not). */
  pendingAfterMs?: number;
  now(): Date;
  runtime: SweptRuntime;
  /** Told at the end of each round (`maintenancePass`): its number, and whether the database answered. */
  passed?(pass: { round: number; reachable: boolean }): void;
}

/** Instance rows silent for this long (and with no RUNNING runs) are deleted. */
const PRUNE_AFTER_MS = 3_600_000;
/** The sweep looks at this many PENDING runs per round at most. */
const PENDING_PER_ROUND = 1_000;

/**
 * The continuous sweep of one runtime, every `heartbeatMs` (a real timer: heartbeats are about
 * real time, compared on the database's clock). Each round, in order:
 * 1. beats (records this instance alive); a failed beat means the database is unreachable, and
 *    the round ends there;
 * 2. accounts for the slots deferred while the database was unreachable (the ledger);
 * 3. settles RUNNING runs whose runner stopped beating (RUNNER_LOST) or, with no known runner,
 *    that are older than the stale threshold (STALE_TIMEOUT);
 * 4. claims PENDING runs nobody claimed (run-now while no scheduler was up, an ambiguous write, a
 *    retry whose creator is gone), sets alarms for retries due before the next rounds, starts
 *    buffered slots whose job has nothing active any more, and ends the waiting runs of jobs
 *    that are no longer ACTIVE;
 * 5. resumes runs the database says this instance runs but nothing here executes (a fire whose
 *    answer was lost after it committed), and aborts runs executing here whose row is terminal;
 * 6. now and then, deletes the rows of instances gone for long.
 * Every step is safe with several instances sweeping at once (conditional updates, SKIP LOCKED).
 * A round never throws and never overlaps the previous one.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> | undefined;
  private rounds = 0;
  /** Rounds ended (the `passed` hook's count). */
  private passes = 0;
  private down = false;
  private stopped = false;
  /** When this instance last recorded its heartbeat. */
  lastBeatAt: Date | null = null;

  constructor(private readonly o: SweeperOptions) {}

  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.o.heartbeatMs);
    this.timer.unref();
  }

  /** One round now (or the round in progress). Never rejects. */
  sweep(): Promise<void> {
    this.round ??= this.once().finally(() => {
      this.round = undefined;
      if (!this.stopped) this.o.passed?.({ round: ++this.passes, reachable: !this.down });
    });
    return this.round;
  }

  /** Stops the timer, waits for a round in progress; removes this instance's row when it runs nothing. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    // Bounded: a round stuck on a database that does not answer is left behind.
    await bounded(this.round ?? Promise.resolve(), 1_000);
    try {
      await bounded(removeInstance(this.o.pool, this.o.identity.id), 1_000);
    } catch (err) {
      this.o.log.warn({ err }, 'could not remove this instance from the instances table; it will be pruned');
    }
  }

  private async once(): Promise<void> {
    const { pool, store, ledger, log, identity } = this.o;
    const rt = this.o.runtime;
    if (this.stopped) return;
    try {
      await beat(pool, identity, rt.actorCount);
      this.lastBeatAt = new Date();
    } catch (err) {
      if (!this.down) log.warn({ err }, 'the database does not answer: slots are deferred until it does');
      this.down = true;
      rt.setOutage(true);
      return;
    }
    try {
      if (ledger.backlog > 0) await ledger.flush();
      if (this.down) log.info('the database answers again');
      this.down = false;
      rt.setOutage(false);

      const settled = await store.settleLost(this.o.lostAfterMs - this.o.heartbeatMs, this.o.staleAfterMs);
      if (settled.length) {
        log.warn({ runs: settled.length, runners: [...new Set(settled.map((r) => r.runnerInstanceId))] }, 'settled runs whose runner is gone');
      }

      const before = new Date(this.o.now().getTime() - (this.o.pendingAfterMs ?? 2_000));
      const pending = await store.pendingIds(before, PENDING_PER_ROUND);
      if (pending.length) await rt.claimAndExecute(pending);
      rt.wake(await store.waitingUntil(new Date(this.o.now().getTime() + 2 * this.o.heartbeatMs), PENDING_PER_ROUND));
      const promoted = await store.promoteStranded(PENDING_PER_ROUND);
      if (promoted.length) await rt.claimAndExecute(promoted);
      await store.stopChains();
      // Membership: a crashed scheduler's share is taken over once its heartbeat is old enough.
      await rt.rebalance();

      // Runs recorded as ours before the oldest write still in flight: their answer was lost.
      const cutoff = rt.oldestPendingWrite() ?? this.o.now();
      const orphans = await store.runningHere(cutoff, rt.inFlight());
      if (orphans.length) {
        log.warn({ runs: orphans.length }, 'resuming runs recorded as running here whose start was not confirmed');
        rt.resume(orphans);
      }
      const statuses = await store.statuses(rt.inFlight());
      for (const [id, status] of statuses) if (isTerminal(status)) rt.abortRun(id);

      if (++this.rounds % 60 === 1) await pruneInstances(pool, Math.max(PRUNE_AFTER_MS, 10 * this.o.lostAfterMs));
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        if (!this.down) log.warn({ err }, 'the database does not answer: slots are deferred until it does');
        this.down = true;
        rt.setOutage(true);
      } else {
        log.error({ err }, 'sweep failed');
      }
    }
  }
}
