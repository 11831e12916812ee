import type { Logger } from '../logger.js';
import type { RunRecord } from '../domain/run.js';
import type { Finish } from '../db/runs/record.js';
import type { TracingSettings } from './settings.js';

/**
 * OpenTelemetry traces (docs/operations.md, "Tracing"), seen from the rest of cronql. This file
 * loads nothing of OpenTelemetry: `loadTracing` imports the SDK (`otel.ts`) only when tracing is
 * on, and everywhere else a `Tracing` is optional — off, the fire path pays one `undefined` check.
 * Spans are given their parents explicitly (no context manager: async context tracking would cost
 * every promise of the fire path).
 */
export interface Tracing {
  /**
   * The stored context of a run whose trace starts at the run (a slot's, or a run-now without a
   * caller's trace): a new trace id, no parent. Written with the run's row.
   */
  newTrace(): string;
  /**
   * The stored context of a run created on behalf of a caller (run-now, backfill): the caller's
   * span when `traceparent` names one, else a new trace.
   */
  continueOrStart(traceparent: string | null | undefined): string;
  /**
   * A run claimed here (RUNNING on this instance): starts its span at `claimStart` (a `traceClock`
   * instant) and records the claim, from then to now, as its child. Undefined for a run without a
   * stored context (created while tracing was off).
   */
  claimed(run: RunRecord, claimStart: number): RunTrace | undefined;
  /**
   * A run that ended without its runner (lost, stale at startup): its span is emitted by the
   * instance that recorded the end, with the run's own span id, its start and end instants.
   */
  endedElsewhere(run: RunRecord): void;
  /** A GraphQL operation (HTTP or WebSocket), continuing the caller's `traceparent` if it sent one. */
  operation(transport: 'http' | 'ws', incoming: string | undefined): OperationTrace;
  /** Exports what is queued (tests, benchmarks). */
  flush(): Promise<void>;
  /** Exports what is queued and stops exporting (the orderly stop). */
  shutdown(): Promise<void>;
}

/**
 * One run's spans on the instance that runs it. Called on the fire path (`enter`, `left` run for
 * each handler of a co-due batch before the next is entered), so those two only note instants;
 * the spans are made by `end`.
 */
export interface RunTrace {
  /** The handler is entered: its span's id is chosen; returns its context, the handler's `ctx.traceparent`. */
  enter(): string;
  /** The handler settled. */
  left(outcome: Finish): void;
  /** The run's end is recorded (or was recorded by someone else first): its spans are made and ended. */
  end(outcome: Finish): void;
}

/** One GraphQL operation's span. */
export interface OperationTrace {
  /** Its context: what the runs the operation creates continue. */
  readonly traceparent: string;
  /** Names the span once the operation is known: `query runs`, `mutation runJobNow`. */
  operation(type: string, name: string | undefined): void;
  /** Marks the span failed, with the first error's code. */
  failed(code: string): void;
  end(): void;
}

/** The instant spans are stamped with: epoch milliseconds, sub-millisecond (wall time, not the runtime's clock). */
export const traceClock = (): number => performance.timeOrigin + performance.now();

/** Loads the OpenTelemetry SDK and starts exporting (OTLP over HTTP, protobuf). */
export async function loadTracing(o: { settings: TracingSettings; instanceId: string; version: string; log: Logger }): Promise<Tracing> {
  const { createOtelTracing } = await import('./otel.js');
  return createOtelTracing(o);
}
