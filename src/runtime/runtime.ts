import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { Channel, type Notifier } from '../db/notifier.js';
import { RunStatus } from '../domain/enums.js';
import { JOB_COLUMNS, rowToJobSnapshot, type JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';
import type { Clock } from './clock.js';
import { recover } from './recovery.js';
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
  /** RUNNING runs older than this at startup become FAILED (STALE_TIMEOUT). @default 900000 */
  staleAfterMs?: number;
  /** How long in-flight runs may take to finish on stop. @default 30000 */
  shutdownGraceMs?: number;
  /** Cross-instance notifications; without it the runtime only sees local changes. */
  notifier?: Notifier;
  /** The run recorder shared with the services. */
  recorder: RunRecorder;
}

type State = 'new' | 'starting' | 'armed' | 'stopping' | 'stopped';

/**
 * The scheduler runtime of one process: recovery, one actor per ACTIVE job, the fire path
 * (actor → recorder → executor) and an orderly stop. Start order: recover, then arm.
 * Stop order: stop arming and firing, drain in-flight runs, record the rest as SHUTDOWN.
 */
export class Runtime {
  readonly recorder: RunRecorder;
  private readonly executor: RunExecutor;
  private readonly scheduler: Scheduler;
  private state: State = 'new';
  private stopping: Promise<void> | undefined;
  /** Slots handed to the recorder and not yet recorded. */
  private readonly recording = new Set<Promise<void>>();

  constructor(private readonly o: RuntimeOptions) {
    this.recorder = o.recorder;
    this.executor = new RunExecutor(this.recorder, o.targets, o.events, o.log);
    this.scheduler = new Scheduler(o.clock, (job, slot) => this.fire(job, slot), o.log);
  }

  get armed(): boolean {
    return this.state === 'armed';
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
    notifier?.on(Channel.JOB_CHANGED, (id) => void this.reloadJob(id));
    notifier?.on(Channel.RUN_CREATED, (id) => void this.claimAndExecute([id]));
    notifier?.on(Channel.RUN_CANCELED, (id) => this.abortRun(id));

    const result = await recover(pool, clock.now(), this.o.staleAfterMs ?? 900_000);
    for (const run of result.staled) events.changed(run, RunStatus.RUNNING);
    if (result.staled.length || result.pendingIds.length || result.retiredJobIds.length) {
      log.info(
        { staled: result.staled.length, pending: result.pendingIds.length, retired: result.retiredJobIds.length },
        'recovery',
      );
    }
    await this.claimAndExecute(result.pendingIds);

    const active = await pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE status = 'ACTIVE'`);
    const jobs = active.rows.map(rowToJobSnapshot);
    this.scheduler.start(jobs);
    this.state = 'armed';
    log.info({ jobs: jobs.length, instanceId: this.o.instanceId }, 'runtime armed');
  }

  /** Applies a job change made in this process (services call it; other instances get a NOTIFY). */
  jobChanged(job: JobSnapshot): void {
    if (this.state !== 'armed' && this.state !== 'starting') return;
    this.scheduler.upsert(job);
  }

  /** Runs a PENDING run created by run-now (or found at startup) if this instance claims it. */
  async claimAndExecute(runIds: string[]): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped' || runIds.length === 0) return;
    try {
      const won = await this.recorder.claim(runIds);
      const timeouts = await this.timeoutsOf(won);
      for (const run of won) {
        this.o.events.changed(run, RunStatus.PENDING);
        void this.executor.execute(run, timeouts.get(run.jobId) ?? null);
      }
    } catch (err) {
      this.o.log.error({ err }, 'could not claim runs');
    }
  }

  /** Aborts a run in flight on this instance (its CANCELED state is already recorded). */
  abortRun(runId: string): boolean {
    return this.executor.abort(runId, 'CANCELED', 'canceled by an admin');
  }

  /** Stop order: no more arming and firing, drain in-flight runs, SHUTDOWN the rest. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const wasRunning = this.state === 'armed' || this.state === 'starting';
      this.state = 'stopping';
      this.scheduler.stop();
      // Slots already handed to the recorder are recorded (and their runs drained) first.
      await Promise.allSettled([...this.recording]);
      if (wasRunning) await this.executor.drain(this.o.shutdownGraceMs ?? 30_000);
      this.state = 'stopped';
    })();
    return this.stopping;
  }

  private fire(job: JobSnapshot, slot: Date): void {
    if (this.state !== 'armed') return;
    this.scheduler.fired(job);
    const recorded = this.recorder.fire({ jobId: job.id, slot }).then(
      (outcome) => {
        if (outcome.kind === 'claimed') {
          this.o.events.created(outcome.pending);
          this.o.events.changed(outcome.running, RunStatus.PENDING);
          void this.executor.execute(outcome.running, job.timeoutSeconds);
        } else if (outcome.kind === 'skipped') {
          this.o.events.created(outcome.run);
        }
      },
      (err) => this.o.log.error({ err, jobKey: job.jobKey, slot }, 'could not record a due slot'),
    );
    this.recording.add(recorded);
    void recorded.finally(() => this.recording.delete(recorded));
  }

  /** Resolves when no due slot is being recorded and no run is executing (tests, benchmarks). */
  async whenIdle(): Promise<void> {
    for (;;) {
      await new Promise((r) => setImmediate(r));
      if (this.recording.size > 0) await Promise.allSettled([...this.recording]);
      else if (this.executor.activeCount > 0) await this.executor.whenIdle();
      else return;
    }
  }

  private async reloadJob(jobId: string): Promise<void> {
    try {
      const res = await this.o.pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE id = $1`, [jobId]);
      if (res.rows[0]) this.jobChanged(rowToJobSnapshot(res.rows[0]));
      else this.scheduler.remove(jobId);
    } catch (err) {
      this.o.log.error({ err, jobId }, 'could not reload a changed job');
    }
  }

  /** After the notification connection was lost: re-read every ACTIVE job. */
  async resync(): Promise<void> {
    try {
      const res = await this.o.pool.query(`SELECT ${JOB_COLUMNS} FROM cron_job_definitions WHERE status = 'ACTIVE'`);
      const seen = new Set<string>();
      for (const row of res.rows) {
        const job = rowToJobSnapshot(row);
        seen.add(job.id);
        this.jobChanged(job);
      }
      for (const id of this.scheduler.jobIds()) if (!seen.has(id)) this.scheduler.remove(id);
    } catch (err) {
      this.o.log.error({ err }, 'could not resynchronise jobs');
    }
  }

  /** The timeouts of the runs' jobs: from the armed actors, else one query for the rest. */
  private async timeoutsOf(runs: RunRecord[]): Promise<Map<string, number | null>> {
    const timeouts = new Map<string, number | null>();
    const unknown: string[] = [];
    for (const { jobId } of runs) {
      const job = this.scheduler.job(jobId);
      if (job) timeouts.set(jobId, job.timeoutSeconds);
      else unknown.push(jobId);
    }
    if (unknown.length > 0) {
      const res = await this.o.pool.query(
        'SELECT id, timeout_seconds FROM cron_job_definitions WHERE id = ANY($1::uuid[])',
        [unknown],
      );
      for (const row of res.rows) timeouts.set(row.id, row.timeout_seconds ?? null);
    }
    return timeouts;
  }
}
