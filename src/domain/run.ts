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

/** The change that moved `run` from `previousStatus` to its current state. */
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
  createdAt: Date;
  updatedAt: Date;
}

/** The columns every run statement returns, in the order `rowToRun` reads them. */
export const RUN_COLUMNS = `id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type,
  scheduled_at, started_at, finished_at, status, failure_code, failure_message, failure_details, output,
  runner_instance_id, attempt, retry_of, due_at, created_at, updated_at`;

const date = (v: unknown): Date => (v instanceof Date ? v : new Date(v as string));
const dateOrNull = (v: unknown): Date | null => (v == null ? null : date(v));

export function rowToRun(row: Record<string, unknown>): RunRecord {
  return {
    id: row.id as string,
    jobId: row.job_definition_id as string,
    jobKey: row.job_key as string,
    jobVersion: Number(row.job_version),
    target: row.target as string,
    payloadSnapshot: row.payload_snapshot ?? null,
    triggerType: row.trigger_type as TriggerType,
    scheduledAt: date(row.scheduled_at),
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    status: row.status as RunStatus,
    failureCode: (row.failure_code as string) ?? null,
    failureMessage: (row.failure_message as string) ?? null,
    failureDetails: row.failure_details ?? null,
    output: row.output ?? null,
    runnerInstanceId: (row.runner_instance_id as string) ?? null,
    attempt: row.attempt == null ? 1 : Number(row.attempt),
    retryOf: (row.retry_of as string) ?? null,
    dueAt: dateOrNull(row.due_at),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

export const runDurationMs = (run: RunRecord): number | null =>
  run.startedAt && run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null;
