import type { ClaimedRun, WaitingRun } from '../db/run-store.js';

/** What the maintenance duties ask of the runtime they serve (src/runtime/runtime.ts). */
export interface MaintainedRuntime {
  /** Claims PENDING runs and executes those won. */
  claimAndExecute(runIds: string[]): Promise<unknown>;
  /** Executes runs the database says this instance runs but nothing here does. */
  resume(runs: ClaimedRun[]): void;
  /** Ids of the runs executing here. */
  inFlight(): string[];
  abortRun(runId: string): void;
  /** Start of the oldest fire or claim still waiting for its answer (its runs may exist already). */
  oldestPendingWrite(): Date | null;
  /** The database answers (false) or not (true): while it does not, slots are deferred, not sent. */
  setOutage(outage: boolean): void;
  /** Sets alarms that claim waiting runs (retries) when due. */
  wake(runs: readonly WaitingRun[]): void;
  /** Sets alarms that resume paused jobs when their pause ends (pauseJob's `until`). */
  endPauses(pauses: readonly { jobId: string; until: Date }[]): void;
  /** Moves the backfills in flight on (their next slots started and run here). */
  advanceBackfills(): Promise<void>;
  /** Recomputes which jobs this instance arms from the live schedulers. */
  rebalance(): Promise<void>;
  /** Jobs armed here (recorded with each beat). */
  readonly actorCount: number;
}
