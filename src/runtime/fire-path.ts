import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';
import { MissedReason } from '../domain/enums.js';
import type { BatchSink } from '../db/batcher.js';
import type { ClaimedRun, DueSlot, FireOutcome, RunLimits, RunStore } from '../db/run-store.js';
import type { JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { Clock } from './clock.js';
import type { RuntimeEvents } from './events.js';
import type { Ledger } from './ledger.js';
import type { MisfireGrace } from './misfire-grace.js';
import type { RunExecutor } from './run-executor.js';
import { traceClock, type RunTrace, type Tracing } from '../tracing/tracing.js';

export interface FirePathOptions {
  store: RunStore;
  executor: RunExecutor;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  events: RuntimeEvents;
  /** A slot not recorded within its job's grace after it came due is MISSED, not run late. */
  grace: MisfireGrace;
  /** Whether the runtime fires and claims now (armed, not stopping). */
  firing(): boolean;
  /** Told of each slot handed to the database (one-time jobs are disarmed once fired). */
  fired(job: JobSnapshot): void;
  /** Spans of the runs claimed here (docs/operations.md, "Tracing"); undefined: tracing is off. */
  tracing?: Tracing;
  /**
   * Resolves once a slot's run and its retries have ended (slot-settlement.ts): catch-up ALL
   * starts the next missed slot then. @default the run's own end here
   */
  settled?: (run: RunRecord) => Promise<void>;
}

/** The fires handed to the database in one turn of the event loop: tracked as one write. */
interface Turn {
  /** Fires of the turn not answered yet. */
  left: number;
  /** The turn is over: no fire joins it any more. */
  closed: boolean;
  settle: () => void;
}

/** A due slot on its way to the database, with what its answer needs. */
interface Firing extends DueSlot {
  job: JobSnapshot;
  turn: Turn;
  /** With tracing: when its claim began (its span's start). */
  claimStart: number;
  /** Told of its answer (a catch-up waits for it); null: deferred or failed. */
  then: ((outcome: FireOutcome | null) => void) | undefined;
}

/**
 * The path from a due slot to a running run: the slot is recorded (the run store batches the
 * slots due together into one claim), the runs won start on the executor. Also the claims of
 * PENDING runs (run-now, retries, recovery), the catch-up of missed slots the ledger picked, and
 * the outage state: while the database does not answer, due slots go to the ledger instead of
 * queueing behind it. Every write that may start runs is tracked, so stop() can wait for them.
 */
export class FirePath {
  /** Writes that may start runs (fires, claims), with the instant each began. */
  private readonly starting = new Map<Promise<unknown>, Date>();
  /** Jobs running missed slots one after another (catch-up ALL). */
  private readonly catchingUp = new Map<string, Date[]>();
  private outage = false;
  /** The turn whose fires are being handed to the database, until it ends. */
  private turn: Turn | undefined;
  /**
   * Where every fire's answer goes: one sink, no promise or closure per slot (at 10,000 co-due
   * slots those were garbage collected between the slot and the handlers; BENCHMARKS.md).
   */
  private readonly answers: BatchSink<Firing, FireOutcome> = {
    resolved: (firing, outcome) => this.answered(firing, outcome),
    rejected: (firing, err) => this.failed(firing, err),
  };

  constructor(private readonly o: FirePathOptions) {}

  /** True while the database does not answer the fire path. */
  get databaseUnreachable(): boolean {
    return this.outage;
  }

  /** The database answers (false) or not (true): while it does not, slots are deferred, not sent. */
  setOutage(outage: boolean): void {
    if (outage === this.outage) return;
    this.outage = outage;
    const at = this.o.clock.now();
    if (outage) this.o.events.emit('databaseUnreachable', { at });
    else this.o.events.emit('databaseReachable', { at });
  }

  /**
   * A slot: on time (due at `dueAt` when jittered, recorded within the grace), or a missed one
   * the ledger runs now (`deadline` from now).
   */
  fire(job: JobSnapshot, slot: Date, dueAt?: Date, deadline = new Date((dueAt ?? slot).getTime() + this.o.grace.of(job))): void {
    if (!this.o.firing()) return;
    this.o.fired(job);
    if (this.outage) {
      // Not queued behind a database that does not answer: the ledger accounts for it later.
      this.o.ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
      return;
    }
    this.record(job, slot, deadline, dueAt);
  }

  /**
   * Runs missed slots the job's policy picked: one slot like any other fire; several one after
   * another, oldest first, each as the SCHEDULED run of its own slot, each waiting for the slot
   * before it to settle — its run and that run's retries ended (the overlap rule holds).
   */
  catchUp(job: JobSnapshot, slots: Date[]): void {
    if (!this.o.firing()) return;
    const deadline = () => new Date(this.o.clock.now().getTime() + this.o.grace.of(job));
    const queued = this.catchingUp.get(job.id);
    if (queued) return void queued.push(...slots); // one chain per job: it takes these too
    if (slots.length === 1) return this.fire(job, slots[0], undefined, deadline());
    const queue = [...slots];
    this.catchingUp.set(job.id, queue);
    void (async () => {
      try {
        for (let slot = queue.shift(); slot; slot = queue.shift()) {
          if (!this.o.firing() || this.outage) {
            const last = queue.length ? queue[queue.length - 1] : slot;
            this.o.ledger.defer(job, new Date(slot.getTime() - 1), last, MissedReason.DATABASE_UNREACHABLE);
            if (!this.o.firing()) this.o.log.warn({ jobKey: job.jobKey, left: queue.length + 1 }, 'catch-up interrupted by stop');
            return;
          }
          const outcome = await new Promise<FireOutcome | null>((resolve) => this.record(job, slot, deadline(), undefined, resolve));
          if (outcome?.kind === 'claimed') await (this.o.settled ? this.o.settled(outcome.run) : this.o.executor.whenEnded(outcome.run.id));
          if (outcome === null) return; // deferred to the ledger
        }
      } finally {
        this.catchingUp.delete(job.id);
      }
    })();
  }

  /**
   * Claims PENDING runs (created by run-now, or found at startup) and runs those this instance
   * won; returns them RUNNING. A run claimed elsewhere, canceled or finished is left alone. A run
   * of a concurrency pool is admitted by its pool's rule: it may wait, and the pool's oldest
   * waiting runs may be won instead (they are run here and returned too).
   */
  claimAndExecute(runIds: string[]): Promise<RunRecord[]> {
    if (runIds.length === 0) return Promise.resolve([]);
    return this.executeWon(
      (newTrace) => this.o.store.claim(runIds, newTrace),
      // Left PENDING: the sweep claims it once the database answers.
      (err) => this.o.log.error({ err }, 'could not claim runs'),
    );
  }

  /**
   * Admits the waiting runs the concurrency pools `names` have room for (a place freed, or a
   * limit raised: the pool's NOTIFY) and runs those this instance won.
   */
  claimPools(names: string[]): Promise<RunRecord[]> {
    if (names.length === 0) return Promise.resolve([]);
    return this.executeWon(
      (newTrace) => this.o.store.admit(names, newTrace),
      // Left waiting: the next end in the pool, or the pending-runs sweep, admits them.
      (err) => this.o.log.error({ err, pools: names }, 'could not admit runs of concurrency pools'),
    );
  }

  /** Runs what a claim (or a pool's admission) won here, and returns those runs; a failed claim is logged, never thrown. */
  private executeWon(
    claiming: (newTrace: (() => string) | undefined) => Promise<ClaimedRun[]>,
    failed: (err: unknown) => void,
  ): Promise<RunRecord[]> {
    if (!this.o.firing()) return Promise.resolve([]);
    const { tracing } = this.o;
    const claimStart = tracing ? traceClock() : 0;
    return this.track(
      claiming(tracing && (() => tracing.newTrace())).then(
        (won) => {
          for (const { run, limits } of won) this.execute(run, limits, tracing?.claimed(run, claimStart));
          return won.map((c) => c.run);
        },
        (err) => {
          failed(err);
          return [];
        },
      ),
    );
  }

  /** Executes runs recorded RUNNING for this instance whose start was never confirmed here. */
  resume(runs: ClaimedRun[]): void {
    if (!this.o.firing()) return;
    const here = new Set(this.o.executor.runIds());
    const now = this.o.tracing ? traceClock() : 0;
    for (const { run, limits } of runs) if (!here.has(run.id)) this.execute(run, limits, this.o.tracing?.claimed(run, now));
  }

  /** Aborts a run in flight on this instance (its CANCELED state is already recorded). */
  abortRun(runId: string, why = 'canceled by an admin'): boolean {
    return this.o.executor.abort(runId, 'CANCELED', why);
  }

  /** Tracks a write that may start runs: stop() and the sweep wait for it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.starting.set(work, this.o.clock.now());
    void work.finally(() => this.starting.delete(work));
    return work;
  }

  /** The writes still waiting for their answer (stop lets them start their runs). */
  pending(): Promise<unknown>[] {
    return [...this.starting.keys()];
  }

  /** Start of the oldest fire or claim still waiting for its answer (its runs may exist already). */
  oldestPendingWrite(): Date | null {
    let oldest: Date | null = null;
    for (const at of this.starting.values()) if (!oldest || at < oldest) oldest = at;
    return oldest;
  }

  /** Resolves when no due slot, claim or missed slot is being recorded; runs may still execute. */
  async whenRecorded(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.starting.size === 0) return;
      await Promise.allSettled([...this.starting.keys()]);
    }
  }

  /** Resolves when no due slot is being recorded, no catch-up is left and no run is executing. */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.starting.size > 0) await Promise.allSettled([...this.starting.keys()]);
      else if (this.o.executor.activeCount > 0) await this.o.executor.whenIdle();
      else if (this.catchingUp.size > 0) await new Promise((r) => setTimeout(r, 5));
      else return;
    }
  }

  /** Records one slot and starts its run; `then` is told of the store's answer (null: deferred or failed). */
  private record(job: JobSnapshot, slot: Date, deadline?: Date, dueAt?: Date, then?: (outcome: FireOutcome | null) => void): void {
    const { tracing } = this.o;
    const turn = (this.turn ??= this.openTurn());
    turn.left++;
    // With tracing, the run's trace starts here: its id goes into the row the claim inserts.
    const firing: Firing = {
      jobId: job.id,
      slot,
      deadline,
      job,
      dueAt,
      traceparent: tracing ? tracing.newTrace() : undefined,
      turn,
      claimStart: tracing ? traceClock() : 0,
      then,
    };
    this.o.store.fireTo(firing, this.answers);
  }

  /**
   * The fires of this turn of the event loop, tracked as one write until the last is answered
   * (stop and the sweep wait for it; its start is the turn's).
   */
  private openTurn(): Turn {
    const turn: Turn = { left: 0, closed: false, settle: () => {} };
    this.track(new Promise<void>((resolve) => (turn.settle = resolve)));
    setImmediate(() => {
      turn.closed = true;
      if (this.turn === turn) this.turn = undefined;
      if (turn.left === 0) turn.settle();
    });
    return turn;
  }

  /** A fire was answered (or failed): its turn settles with its last. */
  private done(firing: Firing, outcome: FireOutcome | null): void {
    try {
      firing.then?.(outcome);
    } finally {
      if (--firing.turn.left === 0 && firing.turn.closed) firing.turn.settle();
    }
  }

  /** The store's answer to a fire: the run starts if it is ours. Never throws (the batch's other answers follow). */
  private answered(firing: Firing, outcome: FireOutcome): void {
    const { job, slot } = firing;
    const { ledger, log, events, tracing } = this.o;
    try {
      if (outcome.kind === 'claimed') {
        // CANCEL_PREVIOUS: the runs it replaced stop (here; elsewhere the store's NOTIFY).
        for (const old of outcome.replaced ?? []) this.abortRun(old.id, 'replaced by the next slot (overlap: CANCEL_PREVIOUS)');
        this.execute(outcome.run, job, tracing?.claimed(outcome.run, firing.claimStart));
      } else if (outcome.kind === 'waiting') {
        // Waiting in its pool (whoever admits it runs it); what it replaced stops all the same.
        for (const old of outcome.replaced ?? []) this.abortRun(old.id, 'replaced by the next slot (overlap: CANCEL_PREVIOUS)');
      } else if (outcome.kind === 'late') {
        // The database took longer than the grace period to take it: MISSED, not late.
        ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
      }
      // No event built per slot when no one listens (the common case outside tests).
      if (events.listening('slotRecorded')) events.emit('slotRecorded', { jobId: job.id, jobKey: job.jobKey, slot, kind: outcome.kind, runId: runIdOf(outcome) });
    } catch (err) {
      log.error({ err, jobKey: job.jobKey, slot }, 'could not start the run of a recorded slot');
    } finally {
      this.done(firing, outcome);
    }
  }

  private failed(firing: Firing, err: unknown): void {
    const { job, slot } = firing;
    try {
      if (isDatabaseUnavailable(err)) {
        // The outcome is unknown (the statement may have committed): the ledger's later
        // insert finds the row if it exists, and the sweep resumes a run recorded as ours.
        this.setOutage(true);
        this.o.ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
      } else {
        this.o.log.error({ err, jobKey: job.jobKey, slot }, 'could not record a due slot');
      }
    } catch (again) {
      this.o.log.error({ err: again, jobKey: job.jobKey, slot }, 'could not defer a due slot');
    } finally {
      this.done(firing, null);
    }
  }

  private execute(run: RunRecord, limits: RunLimits, trace?: RunTrace): void {
    this.o.executor.execute(run, limits, trace);
  }
}

/** The run a fire's answer names, if any. */
function runIdOf(outcome: FireOutcome): string | null {
  return 'run' in outcome ? outcome.run.id : null;
}
