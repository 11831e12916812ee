import type { Logger } from '../logger.js';
import { JobStatus, ScheduleType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import type { Clock } from './clock.js';
import { JobActor } from './job-actor.js';

/**
 * Holds one actor per ACTIVE job. `upsert` is idempotent and is called for every change a job
 * goes through (local service calls and notifications from other instances alike). Snapshots
 * can arrive out of order (a local call and a notification race), so a snapshot older than the
 * newest one applied (by `updatedAt`) is ignored, whether or not the job has an actor.
 */
export class Scheduler {
  private readonly actors = new Map<string, JobActor>();
  /** updatedAt (ms) of the newest snapshot applied, per job. */
  private readonly applied = new Map<string, number>();
  private running = false;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (job: JobSnapshot, slot: Date) => void,
    private readonly log: Logger,
  ) {}

  /** From now on, `upsert` arms and disarms actors. */
  start(): void {
    this.running = true;
  }

  upsert(job: JobSnapshot): void {
    if (!this.running) return;
    const at = job.updatedAt.getTime();
    if (at < (this.applied.get(job.id) ?? -Infinity)) return;
    this.applied.set(job.id, at);
    const current = this.actors.get(job.id);
    if (current && current.job.updatedAt.getTime() === at && current.job.status === job.status) return;
    current?.stop();
    this.actors.delete(job.id);
    if (job.status !== JobStatus.ACTIVE) return;
    try {
      const actor = new JobActor(job, this.clock, this.fire, this.log);
      this.actors.set(job.id, actor);
      actor.start();
    } catch (err) {
      // A definition that no longer parses (e.g. a zone removed from the tz database) must not
      // stop the others.
      this.log.error({ err, jobId: job.id, jobKey: job.jobKey }, 'cannot arm job');
    }
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

  /** Stops every actor; idempotent. */
  stop(): void {
    this.running = false;
    for (const actor of this.actors.values()) actor.stop();
    this.actors.clear();
  }
}
