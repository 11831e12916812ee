import type { Logger } from '../logger.js';
import { loadJob } from '../db/job-loading.js';
import { Channel, type Notifier } from '../db/notifier.js';
import type { Pool } from '../db/pool.js';
import type { RunStore } from '../db/run-store.js';
import { RunStatus } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import type { JobSnapshot } from '../domain/job.js';

/** What the handlers act on: the runtime, seen from the notifications it listens to. */
export interface NotifiedRuntime {
  /** Arms or disarms a job from its current definition. */
  apply(job: JobSnapshot): void;
  /** Disarms a job that no longer exists. */
  remove(jobId: string): void;
  claimAndExecute(runIds: string[]): Promise<unknown>;
  /** Ids of the runs executing here. */
  inFlight(): string[];
  abortRun(runId: string): void;
  rebalance(): Promise<void>;
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
  /** Reloads of changed jobs, one chain per job, so their snapshots apply in order. */
  private readonly reloads = new Map<string, Promise<void>>();

  constructor(private readonly o: NotificationsOptions) {}

  listen(notifier: Notifier): void {
    const rt = this.o.runtime;
    notifier.on(Channel.JOB_CHANGED, (id) => isUuid(id) && this.reloadJob(id));
    notifier.on(Channel.RUN_CREATED, (id) => isUuid(id) && void rt.claimAndExecute([id]));
    notifier.on(Channel.RUN_CANCELED, (id) => isUuid(id) && void this.abortIfCanceled(id));
    // Another scheduler armed its share or stopped: the assignment is recomputed from the table.
    notifier.on(Channel.MEMBERSHIP, () => void rt.rebalance());
  }

  /** The reloads in progress (stop lets them apply). */
  pending(): Promise<void>[] {
    return [...this.reloads.values()];
  }

  /** Re-reads a changed job; reloads of one job run one after another, in notification order. */
  private reloadJob(jobId: string): void {
    const { pool, log, runtime } = this.o;
    const previous = this.reloads.get(jobId) ?? Promise.resolve();
    const next = previous.then(async () => {
      try {
        const job = await loadJob(pool, jobId);
        if (job) runtime.apply(job);
        else runtime.remove(jobId);
      } catch (err) {
        log.error({ err, jobId }, 'could not reload a changed job');
      }
    });
    this.reloads.set(jobId, next);
    void next.finally(() => {
      if (this.reloads.get(jobId) === next) this.reloads.delete(jobId);
    });
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
