import { prepareNewConnections, type Pool } from './pool.js';
import type { RunStatus } from '../domain/enums.js';
import type { RunChange, RunRecord } from '../domain/run.js';
import { Batcher, type BatchSink } from './batcher.js';
import { settleBackfillSlots, stepBackfill, type BackfillStep } from './runs/backfill.js';
import { afterFires, type RunContext, type WaitingRun } from './runs/context.js';
import { SlotRaces } from './runs/slot-races.js';
import { RunIds } from './runs/run-ids.js';
import { FIRE_BATCH, FIRE_PARTS, claim, fireBatch, primeFire, missedBatch, splitByJob, type ClaimedRun, type DueSlot, type FireOutcome, type MissedSlot } from './runs/fire.js';
import { ending, finishBatch, type Ending } from './runs/finish.js';
import * as maintenance from './runs/maintenance.js';
import type { AuditBy } from './audit.js';
import { cancel, insertManual } from './runs/manual.js';
import * as reads from './runs/reads.js';
import type { Finish } from './runs/record.js';
import { ProgressWrites, type ProgressReport, type Reported } from './runs/progress.js';
import { HeldStarts, claimChanges } from './runs/started.js';
import { retireExhausted } from './runs/end-rules.js';
import { admit } from './runs/pool-admission.js';

export type { ClaimedRun, DueSlot, FireOutcome, FiringJob, MissedSlot } from './runs/fire.js';
export type { Finish, RunLimits } from './runs/record.js';
export type { WaitingRun } from './runs/context.js';
export type { ProgressReport, Reported } from './runs/progress.js';
export type { BackfillStep } from './runs/backfill.js';

/** What the store needs: where it writes, who it is, the time, and where its changes go. */
export interface RunStoreOptions {
  pool: Pool;
  /** Recorded as the runner of the runs this instance claims. */
  instanceId: string;
  now: () => Date;
  /** Told of every change each write made, in order, right after the write returned. */
  publish: (changes: readonly RunChange[]) => void;
  /**
   * A claimed run's RUNNING change waits for its handler's entry (`started`), and says when that
   * was (`runs/started.ts`); the runtime's store does. Without it (a store no executor runs), a
   * claim publishes its changes at once, with the claim's instant.
   * @default false
   */
  startedOnEntry?: boolean;
  /** Told of a failed write of entry instants (the rows keep the claims'). */
  onStartedError?: (err: unknown) => void;
  /** Told of a failed write of progress reports (written with the run's next write). */
  onProgressError?: (err: unknown) => void;
}

/**
 * The one writer of run state: every statement that creates a run or changes its status is in
 * `src/db/runs/`, and each write publishes the changes it made (`publish`), once, right after its
 * statement returned — nothing else announces run changes (other instances' changes come through
 * the relay). Every invariant that must hold across instances is a database constraint: the
 * unique scheduled-slot key makes a slot fire once whoever fires it (`ON CONFLICT DO NOTHING`),
 * the partial unique index on (job, lane) of active runs bounds every overlap policy's
 * concurrency (an overlapping slot inserts nothing, and becomes what its policy says), and state
 * changes are conditional updates on the expected status. What follows when runs end (a retry, a
 * buffered slot's start, the job's signals, auto-pause, retiring a one-time job) is part of the
 * same statement (`runs/end-rules.ts`).
 *
 * Co-due slots are batched: `fire()` calls made in the same turn of the event loop are recorded
 * by one statement for all of them; runs ending together by one UPDATE.
 *
 * Where each part lives, by concept (`src/db/runs/`): `vocabulary` (columns, statuses, codes),
 * `record` (a row or a write as a run record), `new-runs` and `overlap` (the statement that
 * creates runs, and the lanes of the overlap policies), `fire` (due slots, missed slots, claims),
 * `finish` (the executor's ends of runs), `end-rules` (what follows an end), `manual` (run-now,
 * cancel), `backfill` (a backfill's next slot), `maintenance` (sweeps, startup recovery, retention) and `reads`.
 */
export class RunStore {
  private readonly ctx: RunContext;
  private readonly fires = new Batcher<DueSlot, FireOutcome>((slots) => fireBatch(this.ctx, slots), FIRE_BATCH, splitByJob);
  private readonly misses = new Batcher<MissedSlot, RunRecord | null>((slots) => missedBatch(this.ctx, slots));
  private readonly finishes = new Batcher<Ending, RunRecord | null>((items) => finishBatch(this.ctx, items), FIRE_BATCH);
  private wake: (runs: readonly WaitingRun[]) => void = () => {};
  /** `afterFires`, shared while the fires in flight last. */
  private firesSettled: Promise<void> | undefined;
  /** Claims whose announcement waits for their handler (with `startedOnEntry`). */
  private readonly held: HeldStarts | undefined;
  /** The handlers' progress reports and beats, throttled (`runs/progress.ts`). */
  private readonly reports: ProgressWrites;

  constructor(o: RunStoreOptions) {
    const firing = new Set<Promise<unknown>>();
    const held = o.startedOnEntry ? new HeldStarts({ pool: o.pool, instanceId: o.instanceId, firing }, o.publish, o.onStartedError ?? (() => {})) : undefined;
    this.held = held;
    this.ctx = {
      pool: o.pool,
      instanceId: o.instanceId,
      now: o.now,
      publish: held ? (changes) => held.publish(changes) : (changes) => o.publish(changes),
      claimed: held ? (runs, fired) => held.hold(runs, fired) : (runs, fired) => o.publish(claimChanges(runs, fired)),
      waiting: (runs) => this.wake(runs),
      firing,
      races: new SlotRaces(o.now),
      runIds: new RunIds(() => o.now().getTime()),
    };
    this.reports = new ProgressWrites(this.ctx, () => held?.flush() ?? Promise.resolve(), o.onProgressError ?? (() => {}));
  }

  /**
   * From now on, each connection the pool opens runs the fire statement, recording nothing
   * (`primeFire`): the first fire on it pays neither for the backend's cold caches nor for
   * planning the statement.
   */
  primeConnections(): void {
    prepareNewConnections(this.ctx.pool, (connection) => primeFire(connection, this.ctx.instanceId, this.ctx.now(), this.ctx.races.expected()));
  }

  /**
   * Opens the connections a co-due batch is recorded on (`FIRE_PARTS`), primed, and keeps that
   * many open while idle: a batch's second part otherwise waited at its slot for a connection to
   * be opened, authenticated and primed (~20 ms at 1,000 co-due; BENCHMARKS.md, "2026-11-27 (s11, lead)").
   * Never fails: a connection that cannot be opened now is opened when a statement needs it.
   */
  async openFireConnections(): Promise<void> {
    const { pool } = this.ctx;
    const parts = Math.min(FIRE_PARTS, pool.options.max);
    pool.options.min = Math.max(pool.options.min ?? 0, parts);
    const opened = await Promise.allSettled(Array.from({ length: parts }, () => pool.connect()));
    for (const c of opened) if (c.status === 'fulfilled') c.value.release();
  }

  /**
   * A handler of a run executing here beat, and maybe reported progress: written at most once a
   * second per run, batched across runs, never awaited (`runs/progress.ts`). `run` is the run as
   * its RUNNING change announced it.
   */
  progress(run: RunRecord, report: ProgressReport): void {
    this.reports.report(run, report);
  }

  /**
   * The reports of a run about to end, taken off the write queue: the executor puts them on the
   * record it ends the run with (`finish` writes them). Undefined if its handler never reported.
   */
  takeProgress(runId: string): Reported | undefined {
    return this.reports.take(runId);
  }

  /** Progress statements sent so far (tests count writes). */
  get progressWrites(): number {
    return this.reports.writes;
  }

  /**
   * The handler of a run claimed here was entered at `at`: its `startedAt`, written with the run's
   * next write, and its RUNNING change published then (`runs/started.ts`). Without
   * `startedOnEntry`, nothing: the claim's instant stands. `run`: the run as entered (RUNNING
   * since `at`), if the caller built it already (the change announces that record).
   */
  started(runId: string, at: Date, run?: RunRecord): void {
    this.held?.entered(runId, at, run);
  }

  /**
   * Resolves once no fire statement is in flight and the handlers of the runs they claimed have
   * started (`runs/context.ts`, `afterFires`): one promise for every caller meanwhile. The
   * executor records the ends of runs that returned at once behind it — the bookkeeping of 5,000
   * ends would otherwise run between the first part's handlers and the second's.
   */
  afterFires(): Promise<void> {
    if (this.ctx.firing.size === 0) return Promise.resolve();
    return (this.firesSettled ??= afterFires(this.ctx).finally(() => (this.firesSettled = undefined)));
  }

  /** Who starts the runs created waiting (retries): the runtime arms a timer for each. */
  onWaiting(wake: (runs: readonly WaitingRun[]) => void): void {
    this.wake = wake;
  }

  /**
   * Admits what the concurrency pools `names` have room for, oldest due first, claimed for this
   * instance (`runs/pool-admission.ts`).
   */
  admit(names: string[], newTrace?: () => string): Promise<ClaimedRun[]> {
    return admit(this.ctx, names, { newTrace });
  }

  /** Records a due slot of an ACTIVE job and claims it for this instance if it is ours to run. */
  fire(due: DueSlot): Promise<FireOutcome> {
    return this.fires.add(due);
  }

  /**
   * `fire`, its answer told to `sink` rather than by a promise: one sink for all the slots of the
   * fire path (no promise per co-due slot).
   */
  fireTo<D extends DueSlot>(due: D, sink: BatchSink<D, FireOutcome>): void {
    this.fires.push(due, sink as BatchSink<DueSlot, FireOutcome>);
  }

  /**
   * Records missed slots as SKIPPED/MISSED rows (batched like fires). A slot someone recorded
   * meanwhile keeps its row (the slot key); returns the rows written.
   */
  recordMissed(slots: MissedSlot[]): Promise<RunRecord[]> {
    if (slots.length === 0) return Promise.resolve([]);
    return Promise.all(slots.map((s) => this.misses.add(s))).then((rows) => rows.filter((r): r is RunRecord => r !== null));
  }

  /** Retires an ACTIVE job with no slot left and no run in progress (`runs/exhausted.ts`). */
  retireExhausted(jobId: string, revision: number): Promise<boolean> {
    return retireExhausted(this.ctx, jobId, revision);
  }

  /**
   * PENDING → RUNNING for this instance; returns the runs it won (`runs/fire.ts`) — for runs of a
   * concurrency pool, what their pools' admission won, which may be older waiting runs of theirs.
   * With tracing, `newTrace` gives the runs without a trace context one.
   */
  claim(ids: string[], newTrace?: () => string): Promise<ClaimedRun[]> {
    return claim(this.ctx, ids, newTrace);
  }

  /**
   * RUNNING → terminal. Returns null when the run was no longer RUNNING (canceled or failed by
   * someone else meanwhile): terminal states never change. Runs ending in the same turn of the
   * event loop are recorded together.
   */
  finish(run: RunRecord | string, finish: Finish): Promise<RunRecord | null> {
    return this.finishes.add(ending(run, finish, this.held?.take(typeof run === 'string' ? run : run.id)));
  }

  /** `finish` for one run on its own, outside any batch (after its batch failed). */
  async finishAlone(run: RunRecord | string, finish: Finish): Promise<RunRecord | null> {
    const startedAt = typeof run === 'string' ? undefined : run.startedAt ?? undefined;
    return (await finishBatch(this.ctx, [ending(run, finish, startedAt)]))[0];
  }

  /**
   * A MANUAL (or, with a payload, AD_HOC) run, by the job's overlap policy (`runs/manual.ts`), with
   * its trace context when tracing is on.
   */
  insertManual(jobId: string, payload: unknown | undefined, traceparent: string | null, audit: AuditBy): Promise<{ run: RunRecord; replaced: RunRecord[] } | null> {
    return insertManual(this.ctx, jobId, payload, traceparent, audit);
  }

  /** One step of a backfill: its next slot's run created PENDING, when it may start (`runs/backfill.ts`). */
  stepBackfill(backfillId: string): Promise<BackfillStep> {
    return stepBackfill(this.ctx, backfillId);
  }

  /** Backfill slots whose runs ended are settled (released for later backfills). */
  settleBackfillSlots(): Promise<number> {
    return settleBackfillSlots(this.ctx);
  }

  /** PENDING|RUNNING → CANCELED; null when the run is terminal already (or unknown). */
  cancel(runId: string, audit: AuditBy): Promise<RunChange | null> {
    return cancel(this.ctx, runId, audit);
  }

  /** Cancels the waiting retries and buffered slots of jobs no longer ACTIVE (`runs/maintenance.ts`). */
  stopChains(jobIds?: string[]): Promise<RunRecord[]> {
    return maintenance.stopChains(this.ctx, jobIds);
  }

  /** Buffered slots whose job has no active run, moved into lane 0 to be claimed. */
  promoteStranded(limit?: number): Promise<string[]> {
    return maintenance.promoteStranded(this.ctx, limit);
  }

  /** RUNNING runs of jobs with a heartbeat timeout, silent longer than it and `slackMs` → FAILED/HEARTBEAT_TIMEOUT. */
  settleSilent(slackMs: number): Promise<RunRecord[]> {
    return maintenance.settleSilent(this.ctx, slackMs);
  }

  /** RUNNING runs whose runner is gone → FAILED (RUNNER_LOST or STALE_TIMEOUT). */
  settleLost(silentMs: number, staleAfterMs: number): Promise<RunRecord[]> {
    return maintenance.settleLost(this.ctx, silentMs, staleAfterMs);
  }

  /** Startup recovery: stale RUNNING runs, and this instance id's, → FAILED/STALE_TIMEOUT. */
  settleStale(staleAfterMs: number): Promise<RunRecord[]> {
    return maintenance.settleStale(this.ctx, staleAfterMs);
  }

  /** One-time jobs whose scheduled run ended but which are not RETIRED, retired. */
  retireEndedOneTimeJobs(): Promise<string[]> {
    return maintenance.retireEndedOneTimeJobs(this.ctx);
  }

  /** Retention: deletes up to `limit` old terminal runs; null when another instance prunes. */
  pruneBatch(cutoff: Date, limit: number, lockKey: number): Promise<number | null> {
    return maintenance.pruneBatch(this.ctx, cutoff, limit, lockKey);
  }

  /** PENDING runs that can be claimed, due before `dueBefore`, oldest first. */
  pendingIds(dueBefore?: Date, limit?: number): Promise<string[]> {
    return maintenance.pendingIds(this.ctx, dueBefore, limit);
  }

  /** Runs waiting to be due (retries) by `until`, soonest first: for timers. */
  waitingUntil(until: Date, limit?: number): Promise<WaitingRun[]> {
    return maintenance.waitingUntil(this.ctx, until, limit);
  }

  /** The RUNNING runs the database says this instance runs, not among `executing`. */
  runningHere(startedBefore: Date, executing?: readonly string[]): Promise<ClaimedRun[]> {
    return maintenance.runningHere(this.ctx, startedBefore, executing);
  }

  get(runId: string): Promise<RunRecord | null> {
    return reads.get(this.ctx, runId);
  }

  /** The current status of runs (to reconcile runs in flight after lost notifications). */
  statuses(runIds: string[]): Promise<Map<string, RunStatus>> {
    return reads.statuses(this.ctx, runIds);
  }

  /** The attempt made after a run (its retry), if any. */
  nextAttempt(runId: string): Promise<{ id: string; status: RunStatus } | null> {
    return reads.nextAttempt(this.ctx, runId);
  }
}
