import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { Channel, type Notifier } from '../db/notifier.js';
import { RunStatus, isTerminal } from '../domain/enums.js';
import { JOB_COLUMNS, rowToJobSnapshot, type JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { Clock } from './clock.js';
import { pendingRunIds, recover } from './recovery.js';
import { RunExecutor } from './run-executor.js';
import type { RunEvents } from './run-events.js';
import type { RunRecorder } from './run-recorder.js';
import { Scheduler } from './scheduler.js';
import type { TargetRegistry } from './targets/registry.js';

export interface RuntimeOptions {
  pool: Pool;
  clock: Clock;
  targets: TargetRegistry;
  events: RunEvents;
  log: Logger;
  /** Recorded as `runnerInstanceId`. */
  instanceId: string;
  /** RUNNING runs older than this at startup become FAILED (STALE_TIMEOUT). */
  staleAfterMs: number;
  /** How long in-flight runs may take to finish on stop. */
  shutdownGraceMs: number;
  /** The run recorder shared with the services. */
  recorder: RunRecorder;
  /** Cross-instance notifications; without it the runtime only sees local changes. */
  notifier?: Notifier;
}

type State = 'new' | 'starting' | 'armed' | 'stopping' | 'stopped';

/**
 * The scheduler runtime of one process: recovery, one actor per ACTIVE job, the fire path
 * (actor → recorder → executor) and an orderly stop. Start order: recover, then arm.
 * Stop order: stop arming and firing, finish recording what was due, drain in-flight runs.
 */
export class Runtime {
  private readonly recorder: RunRecorder;
  private readonly executor: RunExecutor;
  private readonly scheduler: Scheduler;
  private state: State = 'new';
  /** Recovery done and the ACTIVE jobs armed. */
  private ready = false;
  private stopping: Promise<void> | undefined;
  /** Work that may start runs (slots being recorded, claims): stop() waits for it. */
  private readonly starting = new Set<Promise<unknown>>();
  /** Reloads of changed jobs, one chain per job, so their snapshots apply in order. */
  private readonly reloads = new Map<string, Promise<void>>();

  constructor(private readonly o: RuntimeOptions) {
    this.recorder = o.recorder;
    this.executor = new RunExecutor(o.recorder, o.targets, o.events, o.log);
    this.scheduler = new Scheduler(o.clock, (job, slot) => this.fire(job, slot), o.log);
  }

  get armed(): boolean {
    return this.ready && this.state === 'armed';
  }

  get activeRuns(): number {
    return this.executor.activeCount;
  }

  /** The slot the job's actor is armed for on this instance. */
  nextRunAt(jobId: string): Date | null {
    return this.scheduler.nextAt(jobId);
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('Runtime: start() may be called once');
    this.state = 'starting';
    const { pool, clock, events, log, notifier } = this.o;
    notifier?.on(Channel.JOB_CHANGED, (id) => this.reloadJob(id));
    notifier?.on(Channel.RUN_CREATED, (id) => void this.claimAndExecute([id]));
    notifier?.on(Channel.RUN_CANCELED, (id) => this.abortRun(id));

    const result = await recover(pool, clock.now(), this.o.staleAfterMs, this.o.instanceId);
    for (const run of result.staled) events.changed(run, RunStatus.RUNNING);
    if (result.staled.length || result.retiredJobIds.length) {
      log.info({ staled: result.staled.length, retired: result.retiredJobIds.length }, 'recovery');
    }
    if (this.state !== 'starting') return; // stopped meanwhile
    // From here on runs are claimed: PENDING runs found now, and those announced from now on.
    this.state = 'armed';
    const pending = await pendingRunIds(pool);
    if (pending.length) log.info({ pending: pending.length }, 'recovery: running PENDING runs');
    await this.claimAndExecute(pending);
    // Armed before the jobs are read: a job changed meanwhile is applied either way.
    this.scheduler.start();
    const jobs = await this.loadActiveJobs();
    if (this.state !== 'armed') return;
    for (const job of jobs) this.scheduler.upsert(job);
    this.ready = true;
    log.info({ jobs: jobs.length }, 'runtime armed');
  }

  /** Applies a job change made in this process (services call it; other instances get a NOTIFY). */
  jobChanged(job: JobSnapshot): void {
    this.scheduler.upsert(job);
  }

  /**
   * Claims PENDING runs (created by run-now, or found at startup) and runs those this instance
   * won; returns them RUNNING. A run claimed elsewhere, canceled or finished is left alone.
   */
  claimAndExecute(runIds: string[]): Promise<RunRecord[]> {
    if (this.state !== 'armed' || runIds.length === 0) return Promise.resolve([]);
    return this.track(
      this.recorder.claim(runIds).then(
        (won) => {
          for (const { run, timeoutSeconds } of won) {
            this.o.events.changed(run, RunStatus.PENDING);
            this.execute(run, timeoutSeconds);
          }
          return won.map((c) => c.run);
        },
        (err) => {
          this.o.log.error({ err }, 'could not claim runs');
          return [];
        },
      ),
    );
  }

  /** Aborts a run in flight on this instance (its CANCELED state is already recorded). */
  abortRun(runId: string): boolean {
    return this.executor.abort(runId, 'CANCELED', 'canceled by an admin');
  }

  /** The first step of stopping, synchronous: no actor arms or fires from now on. */
  stopFiring(): void {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'stopping';
    this.scheduler.stop();
  }

  /** Stops firing, lets recorded slots start, drains in-flight runs (SHUTDOWN past the grace). Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopFiring();
      await Promise.allSettled([...this.starting]);
      await Promise.allSettled([...this.reloads.values()]);
      await this.executor.drain(this.o.shutdownGraceMs);
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  /** Resolves when no due slot is being recorded and no run is executing (tests, benchmarks). */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.starting.size > 0) await Promise.allSettled([...this.starting]);
      else if (this.executor.activeCount > 0) await this.executor.whenIdle();
      else return;
    }
  }

  /**
   * After the notification connection was lost, the notifications sent meanwhile are lost too:
   * re-read every ACTIVE job, claim PENDING runs nobody claimed, and abort runs in flight here
   * that were canceled meanwhile.
   */
  async resync(): Promise<void> {
    if (this.state !== 'armed') return;
    try {
      const jobs = await this.loadActiveJobs();
      const active = new Set(jobs.map((j) => j.id));
      for (const job of jobs) this.scheduler.upsert(job);
      for (const id of this.scheduler.jobIds()) if (!active.has(id)) this.scheduler.remove(id);

      // Not the runs created a moment ago: their creator is about to claim them itself.
      await this.claimAndExecute(await pendingRunIds(this.o.pool, new Date(this.o.clock.now().getTime() - 5_000)));

      const statuses = await this.recorder.statuses(this.executor.runIds());
      for (const [id, status] of statuses) if (isTerminal(status)) this.abortRun(id);
    } catch (err) {
      this.o.log.error({ err }, 'could not resynchronise after a lost notification connection');
    }
  }

  private fire(job: JobSnapshot, slot: Date): void {
    if (this.state !== 'armed') return;
    this.scheduler.fired(job);
    this.track(
      this.recorder.fire({ jobId: job.id, slot }).then(
        (outcome) => {
          if (outcome.kind === 'claimed') {
            this.o.events.created(outcome.pending);
            this.o.events.changed(outcome.running, RunStatus.PENDING);
            this.execute(outcome.running, job.timeoutSeconds);
          } else if (outcome.kind === 'skipped') {
            this.o.events.created(outcome.run);
          }
        },
        (err) => this.o.log.error({ err, jobKey: job.jobKey, slot }, 'could not record a due slot'),
      ),
    );
  }

  private execute(run: RunRecord, timeoutSeconds: number | null): void {
    this.executor.execute(run, timeoutSeconds).catch((err) => this.o.log.error({ err, runId: run.id }, 'run executor failed'));
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.starting.add(work);
    void work.finally(() => this.starting.delete(work));
    return work;
  }

  /** Re-reads a changed job; reloads of one job run one after another, in notification order. */
  private reloadJob(jobId: string): void {
    const previous = this.reloads.get(jobId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const res = await this.o.pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE id = $1`, [jobId]);
        if (res.rows[0]) this.scheduler.upsert(rowToJobSnapshot(res.rows[0]));
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

  private async loadActiveJobs(): Promise<JobSnapshot[]> {
    const res = await this.o.pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE status = 'ACTIVE'`);
    return res.rows.map(rowToJobSnapshot);
  }
}
