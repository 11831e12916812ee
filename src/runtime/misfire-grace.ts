import type { JobSnapshot } from '../domain/job.js';

/**
 * How late a slot may be and still run: the job's own `misfireGraceSeconds`, else the server's
 * CRONQL_MISFIRE_GRACE_MS. The one place the runtime reads it — the actor (is the alarm's slot on
 * time?), the fire path (the deadline to record it by) and the ledger (does the latest missed slot
 * of a gap still run?) all ask here, so they cannot disagree about one job.
 */
export class MisfireGrace {
  constructor(
    /** The server's grace, in ms (src/config.ts). */
    readonly defaultMs: number,
  ) {}

  /** The grace of `job`, in ms. */
  of(job: Pick<JobSnapshot, 'misfireGraceSeconds'>): number {
    return job.misfireGraceSeconds == null ? this.defaultMs : job.misfireGraceSeconds * 1000;
  }
}
