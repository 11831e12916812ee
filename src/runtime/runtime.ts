import { hostname } from 'node:os';
import { inIdOrder, sortedById } from '../domain/id-order.js';
import type { Logger } from '../logger.js';
import { MAINTENANCE, RUNTIME_BOUNDS } from '../config.js';
import { beat, markArmed, type InstanceIdentity } from '../db/instances.js';
import type { Pool } from '../db/pool.js';
import type { Notifier } from '../db/notifier.js';
import { bounded } from '../domain/bounded.js';
import { JobStatus, MissedReason, TriggerType } from '../domain/enums.js';
import type { ClaimedRun, RunStore, WaitingRun } from '../db/run-store.js';
import type { JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { Clock } from './clock.js';
import { RuntimeEvents } from './events.js';
import { SlotSettlement } from './slot-settlement.js';
import { Backfills } from './backfills.js';
import { FirePath } from './fire-path.js';
import { CalendarBook } from './calendar-book.js';
import { CalendarSkips } from './calendar-skips.js';
import { Ledger } from './ledger.js';
import { Membership } from './membership.js';
import { Notifications } from './notifications.js';
import { RetryWakers } from './retry-wakers.js';
import { PoolWakes } from './pool-wakes.js';
import { PauseEnds, type EndingPause } from './pause-ends.js';
import { RunExecutor, type SecretResolver } from './run-executor.js';
import type { RunLogWriter } from './run-log-writer.js';
import { Scheduler } from './scheduler.js';
import { MisfireGrace } from './misfire-grace.js';
import { Maintenance } from '../maintenance/maintenance.js';
import type { MaintainedRuntime } from '../maintenance/maintained-runtime.js';
import type { MaintenanceListener } from '../maintenance/events.js';
import type { TargetRegistry } from './targets/registry.js';
import type { Tracing } from '../tracing/tracing.js';

/**
 * What a runtime runs with. The tunables are required: their defaults are applied once, where
 * the options are resolved (src/config.ts, src/options.ts), and nowhere in here.
 */
export interface RuntimeOptions {
  pool: Pool;
  clock: Clock;
  targets: TargetRegistry;
  log: Logger;
  /** Recorded as `runnerInstanceId`, and as the instance's row in `cron_instances`. */
  instanceId: string;
  /** `all` or `scheduler`, as shown in the instances list. */
  role: string;
  /** The version shown in the instances list. */
  version: string;
  /** RUNNING runs of no known runner older than this become FAILED (STALE_TIMEOUT). */
  staleAfterMs: number;
  /** How long in-flight runs may take to finish on stop. */
  shutdownGraceMs: number;
  /** How often the instance beats and sweeps. */
  heartbeatMs: number;
  /** A runner silent this long has lost its runs. */
  lostAfterMs: number;
  /** A slot not recorded within this long after it came due is MISSED, not run late. */
  misfireGraceMs: number;
  /** How many scheduler instances arm each job (0: every instance arms every job). */
  jobReplicas: number;
  /** The run store shared with the services: the one writer of run state. */
  store: RunStore;
  /** Cross-instance notifications; without it the runtime only sees local changes. */
  notifier?: Notifier;
  /** The values of the secrets payloads reference, read when a run starts. */
  secrets?: SecretResolver;
  /** Where the runtime's events go (the app's, so they can be listened to before it starts). */
  events?: RuntimeEvents;
  /** Run history kept, in days (the retention duty; 0 keeps everything). */
  retentionDays: number;
  /** Run log lines kept, in days (their own retention duty; 0: as long as their run). */
  runLogRetentionDays: number;
  /** Audit entries kept, in days (their own retention duty; 0: for ever). */
  auditRetentionDays: number;
  /** Where handlers' `ctx.log` lines are kept with their runs; none: the process log only. */
  logs?: RunLogWriter;
  /** Told of each run-log retention round's outcome (metrics). */
  onLogsPruned?: (deleted: number) => void;
  /** Told of each maintenance pass (metrics; the runtime's events get it as `maintenancePass` too). */
  onMaintenancePass?: MaintenanceListener;
  /** Told of each retention round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
  /**
   * Resumes a job whose pause ends now, if it is still paused until then (the services' resume:
   * one rule); the job as resumed, or null when someone else did or the pause changed.
   */
  resumePaused?: (jobId: string, until: Date) => Promise<JobSnapshot | null>;
  /** Spans of runs (docs/operations.md, "Tracing"); undefined: tracing is off. */
  tracing?: Tracing;
}

type State = 'new' | 'starting' | 'armed' | 'stopping' | 'stopped';

/**
 * The scheduler runtime of one process: its lifecycle and the wiring of its parts — the actors
 * (scheduler.ts), the fire path (fire-path.ts), the ledger of missed slots (ledger.ts), which
 * jobs this instance arms (membership.ts), the alarms of waiting retries (retry-wakers.ts), the
 * handlers of other instances' notifications (notifications.ts) and the maintenance duties
 * (src/maintenance).
 *
 * Start order: register, recover, claim PENDING runs, arm (the actors account for the slots
 * missed while no process ran), maintenance. Stop order: stop arming, firing and waking; let recorded
 * slots and job reloads start their runs; drain in-flight runs; stop the maintenance and unregister.
 * Both are guarded: start() once, stop() any number of times (the same promise).
 */
export class Runtime implements MaintainedRuntime {
  /** What this runtime does, as typed events (tests wait on them instead of sleeping). */
  readonly events: RuntimeEvents;
  private readonly store: RunStore;
  private readonly executor: RunExecutor;
  private readonly scheduler: Scheduler;
  private readonly ledger: Ledger;
  private readonly firePath: FirePath;
  /** Every calendar, in memory; and the check of a due slot against its job's (calendar-skips.ts). */
  private readonly calendars: CalendarBook;
  private readonly calendarSkips: CalendarSkips;
  private readonly membership: Membership;
  private readonly wakers: RetryWakers;
  /** Admissions of concurrency pools whose place freed (POOL_FREED), one at a time per pool. */
  private readonly poolWakes: PoolWakes;
  private readonly pauseEnds: PauseEnds;
  private readonly notifications: Notifications;
  private readonly maintenance: Maintenance;
  private readonly backfills: Backfills;
  /** When a caught-up slot's retries have ended too (catch-up ALL waits for it). */
  private readonly settlement: SlotSettlement;
  private readonly identity: InstanceIdentity;
  private state: State = 'new';
  /** Recovery done and the ACTIVE jobs armed. */
  private ready = false;
  private stopping: Promise<void> | undefined;

  constructor(private readonly o: RuntimeOptions) {
    const { clock, log, store } = o;
    const firing = () => this.state === 'armed';
    const grace = new MisfireGrace(o.misfireGraceMs);
    this.events = o.events ?? new RuntimeEvents((err, name) => log.error({ err, event: name }, 'a runtime event listener threw'));
    this.store = store;
    this.executor = new RunExecutor(
      store,
      o.targets,
      log,
      o.secrets,
      (run, status) => {
        this.events.emit('runEnded', { runId: run.id, jobId: run.jobId, status });
        // A backfill's next slot follows its run's end at once (the duty is the safety net).
        if (run.triggerType === TriggerType.BACKFILL && this.state === 'armed') this.backfills.nudge();
      },
      () => clock.now(),
      o.logs,
    );
    // Actors re-arm once the fire statements of their slots are answered (clock.ts, `laterAfter`).
    clock.laterAfter?.(() => store.afterFires());
    this.scheduler = new Scheduler(
      clock,
      {
        fire: (job, slot, dueAt) => this.calendarSkips.fire(job, slot, dueAt),
        late: (job, after, until, reason) => void this.firePath.track(this.ledger.account(job, after, until, reason)),
        exhausted: (job) =>
          void this.firePath.track(
            store.retireExhausted(job.id, job.revision).catch((err: unknown) => log.warn({ err, jobKey: job.jobKey }, 'could not retire a job with no slot left')),
          ),
      },
      log,
      grace,
    );
    this.ledger = new Ledger({
      store,
      clock,
      log,
      events: this.events,
      grace,
      run: (job, slots) => this.firePath.catchUp(job, slots),
      excluded: (job, slot) => this.calendarSkips.plan(job, slot),
    });
    this.calendars = new CalendarBook(o.pool, log, this.events);
    this.calendarSkips = new CalendarSkips({
      book: this.calendars,
      store,
      log,
      events: this.events,
      firing,
      fire: (job, slot, dueAt) => this.firePath.fire(job, slot, dueAt),
      defer: (job, after, until, reason) => this.ledger.defer(job, after, until, reason),
      track: (work) => this.firePath.track(work),
    });
    this.settlement = new SlotSettlement({
      store,
      whenEnded: (runId) => this.executor.whenEnded(runId),
      events: this.events,
      clock,
      pollMs: o.heartbeatMs,
    });
    this.firePath = new FirePath({
      store,
      executor: this.executor,
      ledger: this.ledger,
      clock,
      log,
      events: this.events,
      grace,
      firing,
      fired: (job) => this.scheduler.fired(job),
      tracing: o.tracing,
      settled: (run) => this.settlement.settled(run),
    });
    this.identity = { id: o.instanceId, role: o.role, host: hostname(), pid: process.pid, version: o.version };
    this.membership = new Membership({
      pool: o.pool,
      instanceId: o.instanceId,
      lostAfterMs: o.lostAfterMs,
      jobReplicas: o.jobReplicas,
      scheduler: this.scheduler,
      log,
      events: this.events,
      armed: () => this.armed,
    });
    this.backfills = new Backfills({ pool: o.pool, store, log, claimAndExecute: (ids) => this.claimAndExecute(ids), perRound: MAINTENANCE.perPass });
    this.poolWakes = new PoolWakes((name) => this.firePath.claimPools([name]));
    this.wakers = new RetryWakers({ clock, max: RUNTIME_BOUNDS.maxRetryWakers, claim: (id) => void this.claimAndExecute([id]) });
    this.store.onWaiting((runs) => this.wake(runs));
    this.pauseEnds = new PauseEnds({ clock, max: RUNTIME_BOUNDS.maxPauseAlarms, resume: (pause) => void this.firePath.track(this.endPause(pause)) });
    this.notifications = new Notifications({
      pool: o.pool,
      store,
      log,
      runtime: {
        apply: (job) => this.apply(job),
        remove: (jobId) => this.scheduler.remove(jobId),
        claimAndExecute: (ids) => this.claimAndExecute(ids),
        poolFreed: (name) => this.poolWakes.wake(name),
        inFlight: () => this.inFlight(),
        abortRun: (id) => this.abortRun(id),
        rebalance: () => this.rebalance(),
        calendarChanged: (name) => this.calendarChanged(name),
      },
    });
    this.maintenance = new Maintenance({
      pool: o.pool,
      store,
      ledger: this.ledger,
      log,
      identity: this.identity,
      heartbeatMs: o.heartbeatMs,
      lostAfterMs: o.lostAfterMs,
      staleAfterMs: o.staleAfterMs,
      retentionDays: o.retentionDays,
      runLogRetentionDays: o.runLogRetentionDays,
      auditRetentionDays: o.auditRetentionDays,
      onLogsPruned: o.onLogsPruned,
      now: () => clock.now(),
      runtime: this,
      passed: (pass) => {
        o.onMaintenancePass?.(pass);
        this.events.emit('maintenancePass', pass);
      },
      onPruned: o.onPruned,
      tracing: o.tracing,
    });
  }

  get armed(): boolean {
    return this.ready && this.state === 'armed';
  }

  get activeRuns(): number {
    return this.executor.activeCount;
  }

  /** Whether this instance's heartbeat is recent (within two heartbeats and a little slack). */
  get heartbeatFresh(): boolean {
    const last = this.maintenance.lastBeatAt;
    return last !== null && Date.now() - last.getTime() <= 2 * this.o.heartbeatMs + RUNTIME_BOUNDS.heartbeatSlackMs;
  }

  /** Whether this instance holds the cluster-wide maintenance lease (it runs the cluster-wide duties). */
  get maintenanceLeaseHeld(): boolean {
    return this.maintenance.lease.held;
  }

  /** Jobs armed on this instance. */
  get actorCount(): number {
    return this.scheduler.jobIds().length;
  }

  /** True while the database does not answer the fire path. */
  get databaseUnreachable(): boolean {
    return this.firePath.databaseUnreachable;
  }

  /** The slot the job's actor is armed for on this instance. */
  nextRunAt(jobId: string): Date | null {
    return this.scheduler.nextAt(jobId);
  }

  /** @param timing told of each step (recovery, jobs read, arming) */
  async start(timing?: { mark(phase: string): void }): Promise<void> {
    if (this.state !== 'new') throw new Error('Runtime: start() may be called once');
    this.state = 'starting';
    const { pool, log, notifier } = this.o;
    if (notifier) this.notifications.listen(notifier);

    // Registered first: from here on this instance's runs have a runner the sweep can judge.
    await beat(pool, this.identity);
    this.maintenance.lastBeatAt = new Date();
    // Recovery (docs/behaviour.md, "Runners that disappear"): runs recorded but never finished
    // are settled; windows that were never recorded are accounted for by the ledger when the
    // actors are armed.
    const staled = await this.store.settleStale(this.o.staleAfterMs);
    // Their spans went with the process that ran them: emitted here (docs/operations.md, "Tracing").
    for (const run of staled) this.o.tracing?.endedElsewhere(run);
    const retired = await this.store.retireEndedOneTimeJobs();
    if (staled.length || retired.length) log.info({ staled: staled.length, retired: retired.length }, 'recovery');
    // The calendars before any slot can come due (the actors are armed below).
    await this.calendars.loadAll();
    if (this.state !== 'starting') return; // stopped meanwhile
    // From here on runs are claimed: PENDING runs found now, and those announced from now on.
    this.state = 'armed';
    const pending = await this.store.pendingIds();
    if (pending.length) log.info({ pending: pending.length }, 'recovery: running PENDING runs');
    await this.claimAndExecute(pending);
    // Armed before the jobs are read: a job changed meanwhile is applied either way. Only this
    // instance's share is read (the partitions it arms among the armed schedulers and itself);
    // until it says it is armed, the others keep arming that share, so nothing is left unarmed.
    this.scheduler.start();
    timing?.mark('recovery');
    const jobs = await this.membership.join();
    timing?.mark('jobsRead');
    if (this.state !== 'armed') return;
    // Armed in job-id order: alarms ring in the order they were set and re-arm in the order they
    // rang, so co-due slots reach the fire path in the order its statements take them, unsorted.
    // All at one instant (upsertAll).
    const byId = (a: (typeof jobs)[number]) => a.job.id;
    this.scheduler.upsertAll(inIdOrder(jobs, byId) ? jobs : sortedById(jobs, byId));
    timing?.mark('arming');
    this.ready = true;
    await markArmed(pool, this.identity.id, this.actorCount);
    this.maintenance.start();
    const partitions = this.membership.partitions ?? 0;
    timing?.mark('markArmed');
    log.info({ jobs: jobs.length, partitions }, 'runtime armed');
    this.events.emit('armed', { jobs: jobs.length, partitions });
  }

  /** Applies a job change made in this process (services call it; other instances get a NOTIFY). */
  jobChanged(job: JobSnapshot): void {
    this.apply(job);
  }

  /** The calendars this instance holds (the fire path's; also what `nextRuns` and `upcoming` read here). */
  get calendarBook(): CalendarBook {
    return this.calendars;
  }

  /**
   * A calendar was set or deleted (here, or on another instance: its NOTIFY): re-read it; slots due
   * from then on use it. Resolves once read (never rejects), so a write here is seen by its answer.
   */
  calendarChanged(name: string): Promise<void> {
    return this.calendars.refresh(name);
  }

  /** Recomputes which jobs this instance arms from the live schedulers. Never throws. */
  rebalance(): Promise<void> {
    return this.membership.rebalance();
  }

  /**
   * Arms or disarms the job's actor; a job no longer ACTIVE also ends its waiting retries and
   * buffered slot (the sweep does it too, should this instance stop first).
   */
  private apply(job: JobSnapshot, ledger: Date | null = null): void {
    const owned = this.membership.owns(job);
    if (owned) this.scheduler.upsert(job, ledger);
    else this.scheduler.remove(job.id);
    // A pause that ends by itself: the instance arming the job rings for its end.
    if (owned && job.status === JobStatus.PAUSED && job.pausedUntil) this.pauseEnds.set([{ jobId: job.id, until: job.pausedUntil }]);
    else this.pauseEnds.clear(job.id);
    if (job.status !== JobStatus.ACTIVE && this.state === 'armed') this.stopChainsOf(job.id);
  }

  /** The jobs whose chains the next `stopChains` statement ends (gathered for one microtask). */
  private chainsToStop: Set<string> | null = null;

  /**
   * Ends the waiting runs of a job no longer ACTIVE — together with those of the other jobs
   * applied in the same turn: a batch of new versions or a bulk pause applies thousands of jobs
   * in one loop, and one statement per job cost the database seconds (BENCHMARKS.md, "Job
   * writes"). Tracked at once, so a stop that follows still waits for it.
   */
  private stopChainsOf(jobId: string): void {
    if (this.chainsToStop) {
      this.chainsToStop.add(jobId);
      return;
    }
    const ids = (this.chainsToStop = new Set([jobId]));
    const stopped = Promise.resolve().then(() => {
      this.chainsToStop = null;
      return this.store.stopChains([...ids]);
    });
    void this.firePath.track(stopped).catch((err) => this.o.log.warn({ err, jobs: [...ids].slice(0, 10) }, 'could not end the waiting runs of stopped jobs'));
  }

  /**
   * Claims PENDING runs (created by run-now, or found at startup) and runs those this instance
   * won; returns them RUNNING. A run claimed elsewhere, canceled or finished is left alone.
   */
  claimAndExecute(runIds: string[]): Promise<RunRecord[]> {
    return this.firePath.claimAndExecute(runIds);
  }

  /** The run as its handler was entered here (its `startedAt` the entry instant); null if not in flight here or ended never entered. */
  whenEntered(runId: string): Promise<RunRecord | null> {
    return this.executor.whenEntered(runId);
  }

  /**
   * Moves the backfills in flight on: settles the slots whose runs ended, starts the next slots
   * and runs them here (runtime/backfills.ts). Rejects with a round's failure.
   */
  advanceBackfills(): Promise<void> {
    return this.backfills.advance();
  }

  /** Aborts a run in flight on this instance (its CANCELED state is already recorded). */
  abortRun(runId: string, why?: string): boolean {
    return this.firePath.abortRun(runId, why);
  }

  /** Sets alarms that claim waiting runs (retries) when due; see retry-wakers.ts. */
  wake(runs: readonly WaitingRun[]): void {
    if (this.state !== 'armed' && this.state !== 'starting') return;
    this.wakers.wake(runs);
  }

  /** Sets alarms that resume paused jobs when their pause ends (the pause-ends duty). */
  endPauses(pauses: readonly EndingPause[]): void {
    if (this.state !== 'armed') return;
    this.pauseEnds.set(pauses);
  }

  /**
   * A pause's end rang: the job is resumed (if nobody did, and the pause did not change), and
   * the slots from `until` on are the ledger's — the resume's notification arms the job from
   * now, so the slot at `until` (and any after it, should the resume come late) is accounted for
   * here: run if still within the grace, else by the job's catch-up policy. A slot both hand on
   * is recorded once (the slot key). Never rejects.
   */
  private async endPause(pause: EndingPause): Promise<void> {
    const { resumePaused, log, clock } = this.o;
    if (!resumePaused || this.state !== 'armed') return;
    try {
      const job = await resumePaused(pause.jobId, pause.until);
      if (!job || this.state !== 'armed') return;
      log.info({ jobKey: job.jobKey, until: pause.until }, 'pause ended; job resumed');
      this.events.emit('pauseEnded', { jobId: job.id, jobKey: job.jobKey, until: pause.until, at: clock.now() });
      await this.ledger.account(job, new Date(pause.until.getTime() - 1), clock.now(), MissedReason.PROCESS_DOWN);
    } catch (err) {
      // The duty's next pass finds the pause still ending (a conditional update committed nothing).
      log.error({ err, jobId: pause.jobId }, 'could not end a pause');
    }
  }

  /** Executes runs recorded RUNNING for this instance whose start was never confirmed here. */
  resume(runs: ClaimedRun[]): void {
    this.firePath.resume(runs);
  }

  inFlight(): string[] {
    return this.executor.runIds();
  }

  oldestPendingWrite(): Date | null {
    return this.firePath.oldestPendingWrite();
  }

  setOutage(outage: boolean): void {
    this.firePath.setOutage(outage);
  }

  /** One round of the sweep now (tests; the sweep also runs every heartbeat). */
  sweep(): Promise<void> {
    return this.maintenance.sweep();
  }

  /** The first step of stopping, synchronous: no actor arms or fires, no retry wakes from now on. */
  stopFiring(): void {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.scheduler.stop();
    this.settlement.close();
    this.wakers.close();
    this.pauseEnds.close();
    // The cluster-wide maintenance moves to another instance now, not after the drain.
    void this.maintenance.stepDown();
  }

  /**
   * Stops firing, lets recorded slots start, drains in-flight runs (SHUTDOWN past the grace),
   * stops the sweep and removes this instance's row. Bounded even while the database hangs:
   * every statement has a timeout, and the drain gives up after the grace. Idempotent.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopFiring();
      // Recorded slots start their runs before the drain; bounded, as the database may not answer.
      const recording = [...this.firePath.pending(), ...this.notifications.pending()];
      await bounded(Promise.allSettled(recording), Math.min(this.o.shutdownGraceMs, RUNTIME_BOUNDS.stopRecordingMs));
      await this.executor.drain(this.o.shutdownGraceMs);
      await this.maintenance.stop();
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  /** Resolves when no due slot, claim or missed slot is being recorded; runs may still execute (tests). */
  whenRecorded(): Promise<void> {
    return this.firePath.whenRecorded();
  }

  /** Resolves when no due slot is being recorded and no run is executing (tests, benchmarks). */
  whenIdle(): Promise<void> {
    return this.firePath.whenIdle();
  }

  /**
   * After the notification connection was lost, the notifications sent meanwhile are lost too:
   * re-read every ACTIVE job (accounting for slots missed meanwhile), then sweep (PENDING runs
   * nobody claimed, runs in flight here that were canceled meanwhile).
   */
  async resync(): Promise<void> {
    if (this.state !== 'armed') return;
    try {
      // Calendar changes sent while the connection was away are lost too; a failed read leaves
      // the book as it was (the next change or resync reads it again) and the jobs still reload.
      await this.calendars.loadAll().catch((err: unknown) => this.o.log.warn({ err }, 'could not re-read the calendars after a lost notification connection'));
      const jobs = await this.membership.reload();
      const active = new Set(jobs.map((j) => j.job.id));
      // The ledger only for jobs not armed here: an armed job's actor kept handing its slots on
      // (or deferring them while the database was away); its gap is not a process being down.
      const armed = new Set(this.scheduler.jobIds());
      this.scheduler.upsertAll(jobs.map(({ job, ledger }) => ({ job, ledger: armed.has(job.id) ? null : ledger })));
      for (const id of this.scheduler.jobIds()) if (!active.has(id)) this.scheduler.remove(id);
    } catch (err) {
      this.o.log.error({ err }, 'could not resynchronise after a lost notification connection');
    }
    await this.maintenance.sweep();
  }
}
