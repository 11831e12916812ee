import type { JobSnapshot } from '../domain/job.js';
import type { RunRecord } from '../domain/run.js';

/**
 * What the services tell the runtime of this process, if it has one. Other instances learn the
 * same through PostgreSQL notifications, so every call here is also a NOTIFY.
 */
export interface RuntimePort {
  jobChanged(job: JobSnapshot): void;
  /** Claims and runs PENDING runs; returns those this instance won, RUNNING. */
  claimAndExecute(runIds: string[]): Promise<RunRecord[]>;
  /** The run as its handler was entered here (its true `startedAt`); null if it is not running here or ended never entered. */
  whenEntered(runId: string): Promise<RunRecord | null>;
  abortRun(runId: string, why?: string): boolean;
  nextRunAt(jobId: string): Date | null;
}
