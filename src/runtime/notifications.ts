import type { Logger } from '../logger.js';
import { loadJobs } from '../db/job-loading.js';
import { Channel, type Notifier } from '../db/notifier.js';
import type { Pool } from '../db/pool.js';
import type { RunStore } from '../db/run-store.js';
import { RunStatus } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import type { JobSnapshot } from '../domain/job.js';
import { CALENDAR_NAME } from '../schedule/calendar.js';
import { POOL_NAME } from '../domain/pools.js';

/** What the handlers act on: the runtime, seen from the notifications it listens to. */
export interface NotifiedRuntime {
  /** Arms or disarms a job from its current definition. */
  apply(job: JobSnapshot): void;
  /** Disarms a job that no longer exists. */
  remove(jobId: string): void;
  claimAndExecute(runIds: string[]): Promise<unknown>;
  /** Admits the waiting runs of a concurrency pool whose place freed. */
  poolFreed(name: string): void;
  /** Ids of the runs executing here. */
  inFlight(): string[];
  abortRun(runId: string): void;
  rebalance(): Promise<void>;
  /** Re-reads a calendar that was set or deleted. */
  calendarChanged(name: string): void;
}

export interface NotificationsOptions {
  pool: Pool;
  store: RunStore;
  log: Logger;
  runtime: NotifiedRuntime;
}

/**
 * The runtime's handlers of other instances' notifications. Notifications are hints: anyone who
 * can connect to the database can send them. Each only says where to look; what is done follows
 * what the tables say (the job's row, the run's status, the instances table).
 */
export class Notifications {
  /** Jobs notified and not yet re-read. */
  private readonly queued = new Set<string>();
  /** The reload in progress: one at a time, so that a job's snapshots apply in notification order. */
  private reloading?: Promise<void>;

  constructor(private readonly o: NotificationsOptions) {}

  listen(notifier: Notifier): void {
    const rt = this.o.runtime;
    notifier.on(Channel.JOB_CHANGED, (id) => isUuid(id) && this.reloadJob(id));
    notifier.on(Channel.RUN_CREATED, (id) => isUuid(id) && void rt.claimAndExecute([id]));
    notifier.on(Channel.POOL_FREED, (name) => POOL_NAME.test(name) && rt.poolFreed(name));
    notifier.on(Channel.RUN_CANCELED, (id) => isUuid(id) && void this.abortIfCanceled(id));
    // Another scheduler armed its share or stopped: the assignment is recomputed from the table.
    notifier.on(Channel.MEMBERSHIP, () => void rt.rebalance());
    // A calendar set or deleted: the payload only names it; the book re-reads its row.
    notifier.on(Channel.CALENDAR_CHANGED, (name) => CALENDAR_NAME.test(name) && rt.calendarChanged(name));
  }

  /** The reloads in progress (stop lets them apply). */
  pending(): Promise<void>[] {
    return this.reloading ? [this.reloading] : [];
  }

  /**
   * Re-reads a changed job. The jobs notified while a reload is in flight are re-read together
   * by the next one (one statement for a burst: 2,000 jobs created a second are 2,000
   * notifications on every instance); a job notified again after its read is read again, so its
   * last snapshot is the newest.
   */
  private reloadJob(jobId: string): void {
    this.queued.add(jobId);
    this.reloading ??= this.drain();
  }

  private async drain(): Promise<void> {
    const { pool, log, runtime } = this.o;
    while (this.queued.size > 0) {
      const ids = [...this.queued];
      this.queued.clear();
      try {
        const jobs = new Map((await loadJobs(pool, ids)).map((j) => [j.id, j]));
        for (const id of ids) {
          const job = jobs.get(id);
          if (job) runtime.apply(job);
          else runtime.remove(id);
        }
      } catch (err) {
        log.error({ err, jobs: ids.length }, 'could not reload a changed job');
      }
    }
    this.reloading = undefined;
  }

  /** Aborts a run in flight here if, and only if, the database says it was canceled. */
  private async abortIfCanceled(runId: string): Promise<void> {
    const { store, log, runtime } = this.o;
    if (!runtime.inFlight().includes(runId)) return;
    try {
      const status = (await store.statuses([runId])).get(runId);
      if (status === RunStatus.CANCELED) runtime.abortRun(runId);
    } catch (err) {
      // The sweep aborts runs whose row is terminal, a heartbeat later.
      log.warn({ err, runId }, 'could not check a canceled run');
    }
  }
}
