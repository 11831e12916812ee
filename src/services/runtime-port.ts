import type { JobSnapshot } from '../domain/job.js';

/**
 * What the services tell the runtime of this process, if it has one. Other instances learn the
 * same through PostgreSQL notifications, so every call here is also a NOTIFY.
 */
export interface RuntimePort {
  jobChanged(job: JobSnapshot): void;
  claimAndExecute(runIds: string[]): Promise<void>;
  abortRun(runId: string): boolean;
  nextRunAt(jobId: string): Date | null;
}
