import type { Logger } from '../logger.js';
import { JobStatus, ScheduleType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import type { Clock } from './clock.js';
import { JobActor, type ActorSink } from './job-actor.js';
import { SlotMemo } from '../schedule/slot-memo.js';
import type { MisfireGrace } from './misfire-grace.js';

/**
 * Holds one actor per ACTIVE job. `upsert` is idempotent and is called for every change a job
 * goes through (local service calls and notifications from other instances alike). Snapshots
 * can arrive out of order (a local call and a notification race), so a snapshot older than the
 * newest one applied is ignored, whether or not the job has an actor. Older means a lower
 * `revision`, which the database bumps on every change (clocks of instances may disagree).
 */
export class Scheduler {
  private readonly actors = new Map<string, JobActor>();
  /** Revision of the newest snapshot applied, per job (one number per job ever seen). */
  private readonly applied = new Map<string, number>();
  private running = false;
  /** One computation of a schedule's next slot for all its jobs (see slot-memo.ts). */
  private readonly slots = new SlotMemo();
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly sink: ActorSink,
    private readonly log: Logger,
    /** A slot fired later than its job's grace goes through the ledger. */
    private readonly grace: MisfireGrace,
  ) {}

  /** From now on, `upsert` arms and disarms actors; after `stop()` it no longer can. */
  start(): void {
    this.running = !this.stopped;
  }

  /**
   * `ledger`: how far the job's slots are accounted for in the database (startup, resync); the
   * actor hands the slots missed since to the ledger. Without it the job starts from now.
   */
  upsert(job: JobSnapshot, ledger: Date | null = null, armedAt?: Date): void {
    if (!this.running) return;
    if (job.revision < (this.applied.get(job.id) ?? 0)) return;
    this.applied.set(job.id, job.revision);
    const current = this.actors.get(job.id);
    if (current && current.job.revision === job.revision) return;
    current?.stop();
    this.actors.delete(job.id);
    // An AFTER job has no clock: its runs are made by its upstreams' ends (db/runs/dependency-rules.ts).
    if (job.status !== JobStatus.ACTIVE || job.scheduleType === ScheduleType.AFTER) return;
    try {
      const actor = new JobActor(job, this.clock, this.sink, this.log, { ledger, grace: this.grace, slots: this.slots, armedAt });
      this.actors.set(job.id, actor);
      actor.start();
    } catch (err) {
      // A definition that no longer parses (e.g. a zone removed from the tz database) must not
      // stop the others.
      this.log.error({ err, jobId: job.id, jobKey: job.jobKey }, 'cannot arm job');
    }
  }

  /**
   * `upsert` of jobs read together (a start, a rebalance, a resync), all armed at one instant:
   * each job's missed slots are those due by then, whatever time the arming itself takes.
   */
  upsertAll(jobs: Iterable<{ job: JobSnapshot; ledger: Date | null }>): void {
    const armedAt = this.clock.now();
    for (const { job, ledger } of jobs) this.upsert(job, ledger, armedAt);
  }

  remove(jobId: string): void {
    this.actors.get(jobId)?.stop();
    this.actors.delete(jobId);
  }

  /** The next slot the job's actor is armed for (null when not armed here). */
  nextAt(jobId: string): Date | null {
    return this.actors.get(jobId)?.nextAt ?? null;
  }

  job(jobId: string): JobSnapshot | undefined {
    return this.actors.get(jobId)?.job;
  }

  jobIds(): string[] {
    return [...this.actors.keys()];
  }

  /** Drops one-time actors once their slot has fired (the job retires after its run). */
  fired(job: JobSnapshot): void {
    if (job.scheduleType === ScheduleType.ONE_TIME) this.remove(job.id);
  }

  /** Stops every actor, for good; idempotent. */
  stop(): void {
    this.stopped = true;
    this.running = false;
    for (const actor of this.actors.values()) actor.stop();
    this.actors.clear();
  }
}
