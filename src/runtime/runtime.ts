import { hostname } from 'node:os';
import type { Logger } from '../logger.js';
import { beat, liveSchedulers, markArmed, type InstanceIdentity } from '../db/instances.js';
import { ownedPartitions, PARTITION_OF_KEY, PARTITIONS, partitionOfKey } from '../domain/partitions.js';
import { isDatabaseUnavailable, type Pool } from '../db/pool.js';
import { Channel, type Notifier } from '../db/notifier.js';
import { bounded } from '../domain/bounded.js';
import { isUuid } from '../domain/ids.js';
import { JobStatus, MissedReason, RunStatus } from '../domain/enums.js';
import type { ClaimedRun, FireOutcome, RunLimits, RunStore, WaitingRun } from '../db/run-store.js';
import { JOB_COLUMNS, rowToJobSnapshot, type JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { Alarm, Clock } from './clock.js';
import { Ledger } from './ledger.js';
import { RunExecutor, type SecretResolver } from './run-executor.js';
import { Scheduler } from './scheduler.js';
import { Maintenance } from '../maintenance/maintenance.js';
import type { MaintainedRuntime } from '../maintenance/maintained-runtime.js';
import type { MaintenanceListener } from '../maintenance/events.js';
import type { TargetRegistry } from './targets/registry.js';

export interface RuntimeOptions {
  pool: Pool;
  clock: Clock;
  targets: TargetRegistry;
  log: Logger;
  /** Recorded as `runnerInstanceId`, and as the instance's row in `cron_instances`. */
  instanceId: string;
  /** `all` or `scheduler`, as shown in the instances list. @default "all" */
  role?: string;
  /** The version shown in the instances list. */
  version?: string;
  /** RUNNING runs of no known runner older than this become FAILED (STALE_TIMEOUT). */
  staleAfterMs: number;
  /** How long in-flight runs may take to finish on stop. */
  shutdownGraceMs: number;
  /** How often the instance beats and sweeps. @default 5000 */
  heartbeatMs?: number;
  /** A runner silent this long has lost its runs. @default 30000 */
  lostAfterMs?: number;
  /** A slot not recorded within this long after it came due is MISSED, not run late. @default 10000 */
  misfireGraceMs?: number;
  /** The run store shared with the services: the one writer of run state. */
  store: RunStore;
  /** Cross-instance notifications; without it the runtime only sees local changes. */
  notifier?: Notifier;
  /** The values of the secrets payloads reference, read when a run starts. */
  secrets?: SecretResolver;
  /** How many scheduler instances arm each job (0: every instance arms every job). @default 2 */
  jobReplicas?: number;
  /** Run history kept, in days (the retention duty; 0 keeps everything). @default 0 */
  retentionDays?: number;
  /** Told of each maintenance pass (metrics). */
  onMaintenancePass?: MaintenanceListener;
  /** Told of each retention round's outcome (metrics). */
  onPruned?: (deleted: number, at: Date) => void;
}

type State = 'new' | 'starting' | 'armed' | 'stopping' | 'stopped';

/** At most this many alarms for waiting runs (the sweep claims the rest when due). */
const MAX_WAKERS = 100_000;

/**
 * The scheduler runtime of one process: recovery, one actor per ACTIVE job, the fire path
 * (actor → run store → executor), the ledger of missed slots, the continuous sweep, and an orderly
 * stop. Start order: register, recover, arm (actors account for the slots missed while no process
 * ran), sweep. Stop order: stop arming and firing, finish recording what was due, drain in-flight
 * runs, unregister.
 */
export class Runtime implements MaintainedRuntime {
  private readonly store: RunStore;
  private readonly executor: RunExecutor;
  private readonly scheduler: Scheduler;
  private readonly ledger: Ledger;
  private readonly maintenance: Maintenance;
  private readonly identity: InstanceIdentity;
  private readonly graceMs: number;
  private state: State = 'new';
  /** Recovery done and the ACTIVE jobs armed. */
  private ready = false;
  /** The database does not answer: due slots go to the ledger instead of queueing for it. */
  private outage = false;
  private stopping: Promise<void> | undefined;
  /** Writes that may start runs (fires, claims), with the instant each began: stop() waits for them. */
  private readonly starting = new Map<Promise<unknown>, Date>();
  /** Reloads of changed jobs, one chain per job, so their snapshots apply in order. */
  private readonly reloads = new Map<string, Promise<void>>();
  /** Jobs running missed slots one after another (catch-up ALL). */
  private readonly catchingUp = new Map<string, Date[]>();
  /** Alarms that claim waiting runs (retries) when they are due, by run id. */
  private readonly wakers = new Map<string, Alarm>();
  /** The partitions whose jobs this instance arms (src/domain/partitions.ts); null until known. */
  private owned: Set<number> | null = null;
  /** Rebalances run one after another. */
  private rebalancing: Promise<void> = Promise.resolve();

  constructor(private readonly o: RuntimeOptions) {
    this.store = o.store;
    this.store.onWaiting((runs) => this.wake(runs));
    this.graceMs = o.misfireGraceMs ?? 10_000;
    this.executor = new RunExecutor(o.store, o.targets, o.log, o.secrets);
    this.scheduler = new Scheduler(
      o.clock,
      { fire: (job, slot, dueAt) => this.fire(job, slot, dueAt), late: (job, after, until, reason) => void this.track(this.ledger.account(job, after, until, reason)) },
      o.log,
      this.graceMs,
    );
    this.ledger = new Ledger({
      store: o.store,
      clock: o.clock,
      log: o.log,
      graceMs: this.graceMs,
      run: (job, slots) => this.catchUp(job, slots),
    });
    this.identity = { id: o.instanceId, role: o.role ?? 'all', host: hostname(), pid: process.pid, version: o.version ?? '' };
    this.maintenance = new Maintenance({
      pool: o.pool,
      store: o.store,
      ledger: this.ledger,
      log: o.log,
      identity: this.identity,
      heartbeatMs: o.heartbeatMs ?? 5_000,
      lostAfterMs: o.lostAfterMs ?? 30_000,
      staleAfterMs: o.staleAfterMs,
      retentionDays: o.retentionDays ?? 0,
      now: () => o.clock.now(),
      runtime: this,
      passed: o.onMaintenancePass,
      onPruned: o.onPruned,
    });
  }

  get armed(): boolean {
    return this.ready && this.state === 'armed';
  }

  get activeRuns(): number {
    return this.executor.activeCount;
  }

  /** Whether this instance's heartbeat is recent (within two heartbeats and a second). */
  get heartbeatFresh(): boolean {
    const last = this.maintenance.lastBeatAt;
    return last !== null && Date.now() - last.getTime() <= 2 * (this.o.heartbeatMs ?? 5_000) + 1_000;
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
    return this.outage;
  }

  /** The slot the job's actor is armed for on this instance. */
  nextRunAt(jobId: string): Date | null {
    return this.scheduler.nextAt(jobId);
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('Runtime: start() may be called once');
    this.state = 'starting';
    const { pool, log, notifier } = this.o;
    // Notifications are hints: anyone who can connect to the database can send them. Each only
    // says where to look; what is done follows what the tables say.
    notifier?.on(Channel.JOB_CHANGED, (id) => isUuid(id) && this.reloadJob(id));
    notifier?.on(Channel.RUN_CREATED, (id) => isUuid(id) && void this.claimAndExecute([id]));
    notifier?.on(Channel.RUN_CANCELED, (id) => isUuid(id) && void this.abortIfCanceled(id));
    // Another scheduler armed its share or stopped: the assignment is recomputed from the table.
    notifier?.on(Channel.MEMBERSHIP, () => void this.rebalance());

    // Registered first: from here on this instance's runs have a runner the sweep can judge.
    await beat(pool, this.identity);
    this.maintenance.lastBeatAt = new Date();
    // Recovery (docs/behaviour.md): runs recorded but never finished are settled; windows that
    // were never recorded are accounted for by the ledger when the actors are armed.
    const staled = await this.store.settleStale(this.o.staleAfterMs);
    const retired = await this.store.retireEndedOneTimeJobs();
    if (staled.length || retired.length) log.info({ staled: staled.length, retired: retired.length }, 'recovery');
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
    this.owned = await this.share(true);
    const jobs = await this.loadActiveJobs(this.owned);
    if (this.state !== 'armed') return;
    for (const { job, ledger } of jobs) this.scheduler.upsert(job, ledger);
    this.ready = true;
    await markArmed(pool, this.identity.id, this.actorCount);
    this.maintenance.start();
    log.info({ jobs: jobs.length, partitions: this.owned.size }, 'runtime armed');
  }

  /** Applies a job change made in this process (services call it; other instances get a NOTIFY). */
  jobChanged(job: JobSnapshot): void {
    this.apply(job);
  }

  /** Whether this instance arms `job` (its partition is one of this instance's). */
  private owns(job: Pick<JobSnapshot, 'jobKey'>): boolean {
    return this.owned === null || this.owned.has(partitionOfKey(job.jobKey));
  }

  /** The members the current share was computed for (the share changes only when they do). */
  private members = '';

  /**
   * The partitions this instance arms (unchanged members: the same share). Running, among the
   * armed schedulers and itself: an instance drops a partition only once the one taking it over
   * has armed it. Starting, among every beating scheduler: instances starting together each load
   * only their own share (the armed ones keep arming everything until then).
   */
  private async share(starting = false): Promise<Set<number>> {
    const members = await liveSchedulers(this.o.pool, this.o.lostAfterMs ?? 30_000, starting);
    const key = members.filter((m) => m !== this.identity.id).join('\u0000');
    if (this.owned && key === this.members) return this.owned;
    this.members = key;
    return ownedPartitions(this.identity.id, members, this.o.jobReplicas ?? 2);
  }

  /**
   * Recomputes the assignment from the instances table (on a membership notification, and every
   * sweep): disarms the jobs of partitions this instance lost, arms those of the partitions it
   * gained with their ledger (a slot that fell in the handover is accounted for like any missed
   * slot; with replicas, another instance fired it). Never throws.
   */
  rebalance(): Promise<void> {
    this.rebalancing = this.rebalancing.then(async () => {
      if (this.state !== 'armed' || !this.ready || this.owned === null) return;
      try {
        const next = await this.share();
        const gained = [...next].filter((p) => !this.owned!.has(p));
        const lost = [...this.owned].filter((p) => !next.has(p));
        if (gained.length === 0 && lost.length === 0) return;
        this.owned = next;
        const lostSet = new Set(lost);
        for (const id of this.scheduler.jobIds()) {
          const job = this.scheduler.job(id);
          if (job && lostSet.has(partitionOfKey(job.jobKey))) this.scheduler.remove(id);
        }
        const jobs = gained.length ? await this.loadActiveJobs(new Set(gained)) : [];
        if (this.state !== 'armed') return;
        for (const { job, ledger } of jobs) if (this.owns(job)) this.scheduler.upsert(job, ledger);
        this.o.log.info({ gained: gained.length, lost: lost.length, partitions: next.size, jobs: this.actorCount }, 'rebalanced the jobs among the schedulers');
      } catch (err) {
        this.o.log.warn({ err }, 'could not rebalance the jobs; the next sweep tries again');
      }
    });
    return this.rebalancing;
  }

  /**
   * Arms or disarms the job's actor; a job no longer ACTIVE also ends its waiting retries and
   * buffered slot (the sweep does it too, should this instance stop first).
   */
  private apply(job: JobSnapshot, ledger: Date | null = null): void {
    if (this.owns(job)) this.scheduler.upsert(job, ledger);
    else this.scheduler.remove(job.id);
    if (job.status !== JobStatus.ACTIVE && this.state === 'armed') {
      void this.track(this.store.stopChains([job.id])).catch((err) => this.o.log.warn({ err, jobId: job.id }, 'could not end the waiting runs of a stopped job'));
    }
  }

  /**
   * Claims PENDING runs (created by run-now, or found at startup) and runs those this instance
   * won; returns them RUNNING. A run claimed elsewhere, canceled or finished is left alone.
   */
  claimAndExecute(runIds: string[]): Promise<RunRecord[]> {
    if (this.state !== 'armed' || runIds.length === 0) return Promise.resolve([]);
    return this.track(
      this.store.claim(runIds).then(
        (won) => {
          for (const { run, limits } of won) this.execute(run, limits);
          return won.map((c) => c.run);
        },
        (err) => {
          // Left PENDING: the sweep claims it once the database answers.
          this.o.log.error({ err }, 'could not claim runs');
          return [];
        },
      ),
    );
  }

  /** Aborts a run in flight on this instance (its CANCELED state is already recorded). */
  abortRun(runId: string, why = 'canceled by an admin'): boolean {
    return this.executor.abort(runId, 'CANCELED', why);
  }

  /**
   * Sets an alarm that claims each waiting run when it is due (a retry at the end of its
   * backoff). Bounded: past MAX_WAKERS the sweep claims the others, a heartbeat late at most.
   * Every instance that knows of a waiting run may set one; the claim picks one runner.
   */
  wake(runs: readonly WaitingRun[]): void {
    if (this.state !== 'armed' && this.state !== 'starting') return;
    for (const { id, dueAt } of runs) {
      if (this.wakers.has(id) || this.wakers.size >= MAX_WAKERS) continue;
      const alarm = this.o.clock.setAlarm(dueAt ?? this.o.clock.now(), () => {
        this.wakers.delete(id);
        void this.claimAndExecute([id]);
      });
      this.wakers.set(id, alarm);
    }
  }

  /** Aborts a run in flight here if, and only if, the database says it was canceled. */
  private async abortIfCanceled(runId: string): Promise<void> {
    if (!this.executor.runIds().includes(runId)) return;
    try {
      const status = (await this.store.statuses([runId])).get(runId);
      if (status === RunStatus.CANCELED) this.abortRun(runId);
    } catch (err) {
      // The sweep aborts runs whose row is terminal, a heartbeat later.
      this.o.log.warn({ err, runId }, 'could not check a canceled run');
    }
  }

  /** Executes runs recorded RUNNING for this instance whose start was never confirmed here. */
  resume(runs: ClaimedRun[]): void {
    if (this.state !== 'armed') return;
    const here = new Set(this.executor.runIds());
    for (const { run, limits } of runs) if (!here.has(run.id)) this.execute(run, limits);
  }

  inFlight(): string[] {
    return this.executor.runIds();
  }

  oldestPendingWrite(): Date | null {
    let oldest: Date | null = null;
    for (const at of this.starting.values()) if (!oldest || at < oldest) oldest = at;
    return oldest;
  }

  setOutage(outage: boolean): void {
    this.outage = outage;
  }

  /** One round of the sweep now (tests; the sweep also runs every heartbeat). */
  sweep(): Promise<void> {
    return this.maintenance.sweep();
  }

  /** The first step of stopping, synchronous: no actor arms or fires from now on. */
  stopFiring(): void {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.scheduler.stop();
    for (const alarm of this.wakers.values()) alarm.cancel();
    this.wakers.clear();
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
      await bounded(Promise.allSettled([...this.starting.keys(), ...this.reloads.values()]), Math.min(this.o.shutdownGraceMs, 5_000));
      await this.executor.drain(this.o.shutdownGraceMs);
      await this.maintenance.stop();
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  /** Resolves when no due slot, claim or missed slot is being recorded; runs may still execute (tests). */
  async whenRecorded(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.starting.size === 0) return;
      await Promise.allSettled([...this.starting.keys()]);
    }
  }

  /** Resolves when no due slot is being recorded and no run is executing (tests, benchmarks). */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.starting.size > 0) await Promise.allSettled([...this.starting.keys()]);
      else if (this.executor.activeCount > 0) await this.executor.whenIdle();
      else if (this.catchingUp.size > 0) await new Promise((r) => setTimeout(r, 5));
      else return;
    }
  }

  /**
   * After the notification connection was lost, the notifications sent meanwhile are lost too:
   * re-read every ACTIVE job (accounting for slots missed meanwhile), then sweep (PENDING runs
   * nobody claimed, runs in flight here that were canceled meanwhile).
   */
  async resync(): Promise<void> {
    if (this.state !== 'armed') return;
    try {
      const jobs = await this.loadActiveJobs(this.owned);
      const active = new Set(jobs.map((j) => j.job.id));
      // The ledger only for jobs not armed here: an armed job's actor kept handing its slots on
      // (or deferring them while the database was away); its gap is not a process being down.
      const armed = new Set(this.scheduler.jobIds());
      for (const { job, ledger } of jobs) this.scheduler.upsert(job, armed.has(job.id) ? null : ledger);
      for (const id of this.scheduler.jobIds()) if (!active.has(id)) this.scheduler.remove(id);
    } catch (err) {
      this.o.log.error({ err }, 'could not resynchronise after a lost notification connection');
    }
    await this.maintenance.sweep();
  }

  /**
   * The fire path of a slot: on time (due at `dueAt` when jittered, recorded within the grace),
   * or a missed one the ledger runs now (`deadline` from now).
   */
  private fire(job: JobSnapshot, slot: Date, dueAt?: Date, deadline = new Date((dueAt ?? slot).getTime() + this.graceMs)): void {
    if (this.state !== 'armed') return;
    this.scheduler.fired(job);
    if (this.outage) {
      // Not queued behind a database that does not answer: the ledger accounts for it later.
      this.ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
      return;
    }
    void this.record(job, slot, deadline, dueAt);
  }

  /** Records one slot and starts its run; resolves when the run ended (or at once if it does not run). */
  private record(job: JobSnapshot, slot: Date, deadline?: Date, dueAt?: Date): Promise<FireOutcome | null> {
    return this.track(
      this.store.fire({ jobId: job.id, slot, deadline, job, dueAt }).then(
        (outcome) => {
          if (outcome.kind === 'claimed') {
            // CANCEL_PREVIOUS: the runs it replaced stop (here; elsewhere the store's NOTIFY).
            for (const old of outcome.replaced ?? []) this.abortRun(old.id, 'replaced by the next slot (overlap: CANCEL_PREVIOUS)');
            this.execute(outcome.run, job);
          } else if (outcome.kind === 'late') {
            // The database took longer than the grace period to take it: MISSED, not late.
            this.ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
          }
          return outcome;
        },
        (err) => {
          if (isDatabaseUnavailable(err)) {
            // The outcome is unknown (the statement may have committed): the ledger's later
            // insert finds the row if it exists, and the sweep resumes a run recorded as ours.
            this.outage = true;
            this.ledger.defer(job, new Date(slot.getTime() - 1), slot, MissedReason.DATABASE_UNREACHABLE);
          } else {
            this.o.log.error({ err, jobKey: job.jobKey, slot }, 'could not record a due slot');
          }
          return null;
        },
      ),
    );
  }

  /**
   * Runs missed slots the job's policy picked: one slot like any other fire; several one after
   * another, oldest first, each as the SCHEDULED run of its own slot, each waiting for the run
   * before it to end (the overlap rule holds).
   */
  private catchUp(job: JobSnapshot, slots: Date[]): void {
    if (this.state !== 'armed') return;
    const deadline = () => new Date(this.o.clock.now().getTime() + this.graceMs);
    const queued = this.catchingUp.get(job.id);
    if (queued) return void queued.push(...slots); // one chain per job: it takes these too
    if (slots.length === 1) return this.fire(job, slots[0], undefined, deadline());
    const queue = [...slots];
    this.catchingUp.set(job.id, queue);
    void (async () => {
      try {
        for (let slot = queue.shift(); slot; slot = queue.shift()) {
          if (this.state !== 'armed' || this.outage) {
            const last = queue.length ? queue[queue.length - 1] : slot;
            this.ledger.defer(job, new Date(slot.getTime() - 1), last, MissedReason.DATABASE_UNREACHABLE);
            if (this.state !== 'armed') this.o.log.warn({ jobKey: job.jobKey, left: queue.length + 1 }, 'catch-up interrupted by stop');
            return;
          }
          const outcome = await this.record(job, slot, deadline());
          if (outcome?.kind === 'claimed') await this.executor.whenEnded(outcome.run.id);
          if (outcome === null) return; // deferred to the ledger
        }
      } finally {
        this.catchingUp.delete(job.id);
      }
    })();
  }

  private execute(run: RunRecord, limits: RunLimits): void {
    this.executor.execute(run, limits).catch((err) => this.o.log.error({ err, runId: run.id }, 'run executor failed'));
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.starting.set(work, this.o.clock.now());
    void work.finally(() => this.starting.delete(work));
    return work;
  }

  /** Re-reads a changed job; reloads of one job run one after another, in notification order. */
  private reloadJob(jobId: string): void {
    const previous = this.reloads.get(jobId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const res = await this.o.pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE id = $1`, [jobId]);
        if (res.rows[0]) this.apply(rowToJobSnapshot(res.rows[0]));
        else this.scheduler.remove(jobId);
      } catch (err) {
        this.o.log.error({ err, jobId }, 'could not reload a changed job');
      }
    });
    this.reloads.set(jobId, next);
    void next.finally(() => {
      if (this.reloads.get(jobId) === next) this.reloads.delete(jobId);
    });
  }

  /**
   * The ACTIVE jobs with their ledger: how far their slots are accounted for — the latest
   * SCHEDULED run (the slot key's index answers it per job), or the instant the job became
   * ACTIVE, whichever is later.
   */
  private async loadActiveJobs(partitions: Set<number> | null): Promise<{ job: JobSnapshot; ledger: Date }[]> {
    // The share by partition (an expression index answers it), not every job filtered here.
    const all = partitions === null || partitions.size === PARTITIONS;
    const res = await this.o.pool.query(
      `SELECT ${JOB_COLUMNS}, greatest(j.active_since,
         (SELECT max(r.scheduled_at) FROM cron_job_runs r WHERE r.job_definition_id = j.id AND r.trigger_type = 'SCHEDULED' AND r.attempt = 1)) AS ledger
       FROM cron_job_definitions j WHERE j.status = 'ACTIVE'${all ? '' : ` AND ${PARTITION_OF_KEY} = ANY($1::int[])`}`,
      all ? [] : [[...partitions!]],
    );
    return res.rows.map((row) => ({ job: rowToJobSnapshot(row), ledger: new Date(row.ledger) }));
  }
}
