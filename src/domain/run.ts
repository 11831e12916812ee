import { RunStatus, TriggerType } from './enums.js';

/** One state change of a run; `previousStatus` is null when the run was created. */
export interface RunChange {
  run: RunRecord;
  previousStatus: RunStatus | null;
  changedAt: Date;
  /** Made by another instance and relayed here (metrics count only their own instance's). */
  remote?: true;
  /** A FAILED attempt that got a next attempt: not the slot's outcome (alerts wait for the last). */
  retried?: true;
}

/** The change that created `run` (in its current state). */
export const created = (run: RunRecord): RunChange => ({ run, previousStatus: null, changedAt: run.createdAt });

/**
 * The change that moved `run` from `previousStatus` to its current state. A RUNNING run whose
 * handler reported progress is a change RUNNING → RUNNING, at the report (`progressed`).
 */
export const moved = (run: RunRecord, previousStatus: RunStatus): RunChange => ({ run, previousStatus, changedAt: run.updatedAt });

/** A run as the runtime, the services and the API see it (a row of `cron_job_runs`). */
export interface RunRecord {
  id: string;
  jobId: string;
  jobKey: string;
  jobVersion: number;
  target: string;
  payloadSnapshot: unknown;
  triggerType: TriggerType;
  scheduledAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  status: RunStatus;
  failureCode: string | null;
  failureMessage: string | null;
  failureDetails: unknown;
  output: unknown;
  runnerInstanceId: string | null;
  /** 1 for a slot's (or a run-now's) first attempt; a retry is attempt n + 1 of the same slot. */
  attempt: number;
  /** The attempt this one retries. */
  retryOf: string | null;
  /** When the run was due to start, when that is not its slot: a retry's end of backoff, a jittered slot's offset. */
  dueAt: Date | null;
  /** The handler's last reported progress (0–100, `ctx.progress`); null until it reports one. */
  progress: number | null;
  /** The message of its last progress report, if it gave one. */
  progressMessage: string | null;
  /** When the handler last beat (`ctx.heartbeat`, `ctx.progress`), as last written; null if it never did. */
  heartbeatAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /**
   * The run's W3C trace context (docs/operations.md, "Tracing"): the span its own span continues
   * (a run-now's mutation), or its trace id with a parent id of zeros when the trace starts at the
   * run. Null when the run was created with tracing off.
   */
  traceparent: string | null;
  /** Who asked for a MANUAL, AD_HOC or BACKFILL run (the principal's name; its retries keep it); null for the others. */
  triggeredBy: string | null;
  /**
   * The concurrency pool the run was created in (its job version's, docs/behaviour.md, "Concurrency
   * pools"): it becomes RUNNING only while the pool has a free place. Null: none.
   */
  concurrencyPool?: string | null;
}

/** A RUNNING run's progress report, as a change RUNNING → RUNNING at the beat that carried it. */
export const progressed = (run: RunRecord): RunChange => ({ run, previousStatus: RunStatus.RUNNING, changedAt: run.heartbeatAt ?? run.updatedAt });

/** Whether a change is a progress report (RUNNING → RUNNING) rather than a change of status. */
export const isProgress = (c: RunChange): boolean => c.previousStatus === RunStatus.RUNNING && c.run.status === RunStatus.RUNNING;

export const runDurationMs = (run: RunRecord): number | null =>
  run.startedAt && run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null;
