import { RunStatus, TriggerType, isTerminal } from '../../domain/enums.js';
import { DEFAULT_CAPTURE_BYTES, type JobSnapshot } from '../../domain/job.js';
import type { RunRecord } from '../../domain/run.js';

/**
 * Where a run record is made — from a row, from what the fire path inserted, as the run stood at
 * one of its changes, or as its end leaves it. A record is built by `runRecord` alone, so which
 * fields a record has, and what an unset one holds, is written once; another state of a run is
 * derived from its record (`asOf`, `endedRun`), field for field the same record with the fields of
 * that state set. (Deriving by spreading the record keeps every record one object shape: passing
 * each state through `runRecord` instead made the fire path's per-run work about ten times slower
 * in a micro-benchmark, the builder's property reads seeing a new shape at every call site.)
 */

/** What a run is (fixed at its creation) and its state: the fields a record cannot do without. */
type RunFields = Pick<RunRecord, 'id' | 'jobId' | 'jobKey' | 'jobVersion' | 'target' | 'triggerType' | 'scheduledAt' | 'status' | 'createdAt' | 'updatedAt'> &
  Partial<RunRecord>;

/** The one builder of a run record: a field not given holds what an unset column does (null; attempt 1). */
export function runRecord(f: RunFields): RunRecord {
  return {
    id: f.id,
    jobId: f.jobId,
    jobKey: f.jobKey,
    jobVersion: f.jobVersion,
    target: f.target,
    payloadSnapshot: f.payloadSnapshot ?? null,
    triggerType: f.triggerType,
    scheduledAt: f.scheduledAt,
    startedAt: f.startedAt ?? null,
    finishedAt: f.finishedAt ?? null,
    status: f.status,
    failureCode: f.failureCode ?? null,
    failureMessage: f.failureMessage ?? null,
    failureDetails: f.failureDetails ?? null,
    output: f.output ?? null,
    runnerInstanceId: f.runnerInstanceId ?? null,
    attempt: f.attempt ?? 1,
    retryOf: f.retryOf ?? null,
    dueAt: f.dueAt ?? null,
    progress: f.progress ?? null,
    progressMessage: f.progressMessage ?? null,
    heartbeatAt: f.heartbeatAt ?? null,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
    traceparent: f.traceparent ?? null,
    triggeredBy: f.triggeredBy ?? null,
    concurrencyPool: f.concurrencyPool ?? null,
  };
}

const date = (v: unknown): Date => (v instanceof Date ? v : new Date(v as string));
const dateOrNull = (v: unknown): Date | null => (v == null ? null : date(v));

/** A row of `cron_job_runs` (`RUN_COLUMNS`, as pg returns them or as `to_jsonb` spells them) as a record. */
export function rowToRun(row: Record<string, unknown>): RunRecord {
  return runRecord({
    id: row.id as string,
    jobId: row.job_definition_id as string,
    jobKey: row.job_key as string,
    jobVersion: Number(row.job_version),
    target: row.target as string,
    payloadSnapshot: row.payload_snapshot,
    triggerType: row.trigger_type as TriggerType,
    scheduledAt: date(row.scheduled_at),
    startedAt: dateOrNull(row.started_at),
    finishedAt: dateOrNull(row.finished_at),
    status: row.status as RunStatus,
    failureCode: row.failure_code as string | null,
    failureMessage: row.failure_message as string | null,
    failureDetails: row.failure_details,
    output: row.output,
    runnerInstanceId: row.runner_instance_id as string | null,
    attempt: row.attempt == null ? 1 : Number(row.attempt),
    retryOf: row.retry_of as string | null,
    dueAt: dateOrNull(row.due_at),
    progress: row.progress == null ? null : Number(row.progress),
    progressMessage: (row.progress_message as string | null | undefined) ?? null,
    heartbeatAt: dateOrNull(row.heartbeat_at),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
    traceparent: row.traceparent as string | null,
    triggeredBy: (row.triggered_by as string | null | undefined) ?? null,
    concurrencyPool: (row.concurrency_pool as string | null | undefined) ?? null,
  });
}

/**
 * A slot's first attempt as the fire path inserted it RUNNING on `runnerInstanceId` at `now`:
 * built from what the firing actor knows of the job (the statement returns only the id), which is
 * what the row holds.
 */
export function firedRun(
  id: string,
  jobId: string,
  job: Pick<JobSnapshot, 'jobKey' | 'version' | 'target' | 'payload'> & Partial<Pick<JobSnapshot, 'concurrencyPool'>>,
  slot: { scheduledAt: Date; dueAt: Date | null; traceparent?: string },
  runnerInstanceId: string,
  now: Date,
): RunRecord {
  return runRecord({
    id,
    jobId,
    jobKey: job.jobKey,
    jobVersion: job.version,
    target: job.target,
    payloadSnapshot: job.payload,
    triggerType: TriggerType.SCHEDULED,
    scheduledAt: slot.scheduledAt,
    startedAt: now,
    status: RunStatus.RUNNING,
    runnerInstanceId,
    dueAt: slot.dueAt,
    createdAt: now,
    updatedAt: now,
    traceparent: slot.traceparent,
    concurrencyPool: job.concurrencyPool,
  });
}

/**
 * The run as it was right after the change that put it in `status` (last updated at
 * `updatedAt`). A record further along already (a fast run is SUCCEEDED by the time its RUNNING
 * change is told) has the fields that belong to later states cleared, so that each change shows
 * the state it announces.
 */
export function asOf(run: RunRecord, status: RunStatus, updatedAt: Date = run.updatedAt): RunRecord {
  if (run.status === status && updatedAt === run.updatedAt) return run;
  const ended = isTerminal(status);
  return {
    ...run,
    status,
    updatedAt,
    startedAt: status === RunStatus.PENDING ? null : run.startedAt,
    runnerInstanceId: status === RunStatus.PENDING ? null : run.runnerInstanceId,
    finishedAt: ended ? run.finishedAt : null,
    output: ended ? run.output : null,
    failureCode: ended ? run.failureCode : null,
    failureMessage: ended ? run.failureMessage : null,
    failureDetails: ended ? run.failureDetails : null,
  };
}

/** How a run ends: its terminal status and what it leaves. */
export interface Finish {
  status: RunStatus.SUCCEEDED | RunStatus.FAILED | RunStatus.CANCELED;
  output?: unknown;
  failureCode?: string | null;
  failureMessage?: string | null;
  failureDetails?: unknown;
}

/** What a RUNNING run becomes when `finish` is recorded at `now` (what the finishing statement writes). */
export function endedRun(run: RunRecord, f: Finish, now: Date): RunRecord {
  return {
    ...run,
    status: f.status,
    finishedAt: now,
    updatedAt: now,
    output: f.output ?? null,
    failureCode: f.failureCode ?? null,
    failureMessage: f.failureMessage ?? null,
    failureDetails: f.failureDetails ?? null,
  };
}

/** What a job says of running each of its runs: its timeouts, and how much of a response to keep. */
export interface RunLimits {
  timeoutSeconds: number | null;
  /** A run whose handler is silent this long fails HEARTBEAT_TIMEOUT; null: no heartbeat required. */
  heartbeatTimeoutSeconds: number | null;
  captureBytes: number;
}

/** The job columns a claim returns with each run (`limitsOf` reads them), qualified with the job's alias. */
export const limitColumns = (job: string) => `${job}.timeout_seconds, ${job}.heartbeat_timeout_seconds, ${job}.capture_bytes`;

/** The limits a claimed row carries (its job's `limitColumns`). */
export const limitsOf = (row: Record<string, unknown>): RunLimits => ({
  timeoutSeconds: row.timeout_seconds == null ? null : Number(row.timeout_seconds),
  heartbeatTimeoutSeconds: row.heartbeat_timeout_seconds == null ? null : Number(row.heartbeat_timeout_seconds),
  captureBytes: row.capture_bytes == null ? DEFAULT_CAPTURE_BYTES : Number(row.capture_bytes),
});
