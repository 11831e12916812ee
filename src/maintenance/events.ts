/**
 * The maintenance pass event: one per pass of a duty that ran (a cluster-wide duty on an instance
 * that does not hold the lease does not run, and tells nothing). Named so it merges into the
 * runtime's typed event map as `maintenancePass`.
 */
export type DutyScope = 'instance' | 'cluster';

/** `ok`; `unreachable`: the database did not answer (the outage state); `failed`: any other error (logged). */
export type PassResult = 'ok' | 'unreachable' | 'failed';

export interface MaintenancePass {
  /** The duty's name (docs/operations.md, "Maintenance"). */
  duty: string;
  scope: DutyScope;
  /** The instance that ran it. */
  instance: string;
  durationMs: number;
  result: PassResult;
}

export type MaintenanceListener = (pass: MaintenancePass) => void;
