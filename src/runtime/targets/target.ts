import type { Logger } from '../../logger.js';

/** What a handler knows about the run it executes. */
export interface TargetRunInfo {
  id: string;
  jobId: string;
  jobKey: string;
  jobVersion: number;
  scheduledAt: Date;
  triggerType: 'SCHEDULED' | 'MANUAL' | 'AD_HOC' | 'BACKFILL' | 'DEPENDENCY';
  /** 1 for the first attempt; a retry (the job's retry policy) is attempt n + 1 of the same slot. */
  attempt: number;
  /** How much of a response to keep in the output (the job's `captureBytes`; the `http` target honours it). */
  captureBytes?: number;
}

export interface TargetContext<P = any> {
  /** The run's payload snapshot. */
  payload: P;
  /** Fires on the job's timeout, on cancelRun, when a newer run replaces it (CANCEL_PREVIOUS) and on shutdown past the grace period. */
  signal: AbortSignal;
  run: TargetRunInfo;
  /** A logger bound to the run. */
  log: Logger;
  /**
   * Reports progress (0–100; clamped, a value that is not a finite number is ignored) and, if
   * given, a message (null clears it; omitted keeps the last): shown as `Run.progress` and
   * `progressMessage`, published on `runChanged`. Counts as a heartbeat. Never throws, never
   * waits: at most one write per run per second, the last value of the second is the one kept.
   */
  progress(percent: number, message?: string | null): void;
  /**
   * Tells cronql the handler is alive (`Run.heartbeatAt`). A job with `heartbeatTimeoutSeconds`
   * fails a run whose handler is silent that long (HEARTBEAT_TIMEOUT; its signal aborts). Never
   * throws, never waits; call it as often as convenient.
   */
  heartbeat(): void;
  /**
   * The W3C `traceparent` of the handler's span, to pass on to what the handler calls (the `http`
   * target sends it as a header); undefined while tracing is off (docs/operations.md, "Tracing").
   */
  traceparent?: string;
}

/**
 * A target handler: `async (ctx) => output`. The resolved value is stored as `Run.output`;
 * a throw makes the run FAILED with the error's string `code` (else HANDLER_ERROR), its
 * `message` and its `details`.
 */
export type TargetHandler<P = any> = (ctx: TargetContext<P>) => Promise<unknown> | unknown;

/** A handler with an optional description, as listed by the `targets` query. */
export interface TargetDefinition {
  handler: TargetHandler;
  description?: string;
}

/** The map accepted by `CRONQL_TARGETS` and the library API: name → handler (or definition). */
export type TargetMap = Record<string, TargetHandler | TargetDefinition>;

/**
 * An error a handler (or a built-in target) throws to fail a run with a specific code.
 * Any thrown value with a string `code` works the same; this class is a convenience.
 */
export class TargetError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'TargetError';
  }
}
