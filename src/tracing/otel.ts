import { DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, diag, trace, type Context, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, RandomIdGenerator, TracerProvider, type IdGenerator } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import { RunStatus } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import type { Finish } from '../db/runs/record.js';
import type { Logger } from '../logger.js';
import type { TracingSettings } from './settings.js';
import { NO_PARENT, formatTraceparent, parentOf, parseTraceparent, runSpanId } from './traceparent.js';
import { traceClock, type OperationTrace, type RunTrace, type Tracing } from './tracing.js';

/**
 * The OpenTelemetry SDK behind `Tracing`: loaded by `loadTracing` only (see tracing.ts). Spans go
 * through a batch span processor sized for bursts (settings.ts) to an OTLP/HTTP protobuf exporter,
 * which reads the standard `OTEL_EXPORTER_OTLP_*` variables itself. The provider is cronql's own,
 * not registered globally: a host application's tracing is left as it is.
 */

/** Span attributes of a run (docs/operations.md, "Tracing"). */
const A = {
  jobKey: 'cronql.job.key',
  jobVersion: 'cronql.job.version',
  runId: 'cronql.run.id',
  slot: 'cronql.run.slot',
  trigger: 'cronql.run.trigger',
  attempt: 'cronql.run.attempt',
  status: 'cronql.run.status',
  failureCode: 'cronql.run.failure_code',
  endedBy: 'cronql.run.ended_by',
  target: 'cronql.target',
} as const;

/**
 * Random ids, except for the span being started when ids are preset: a run's span has the id its
 * run id gives (any instance can end it), and a run whose trace starts with it has the trace id
 * written with its row before the span existed. `startSpan` reads them synchronously, so setting
 * them right before and clearing them right after cannot lend them to another span.
 */
class PresetIds implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  traceId: string | undefined;
  spanId: string | undefined;
  generateTraceId(): string {
    return this.traceId ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    return this.spanId ?? this.random.generateSpanId();
  }
}

const contextOf = (span: Span): string => {
  const c = span.spanContext();
  return formatTraceparent({ traceId: c.traceId, spanId: c.spanId, sampled: (c.traceFlags & TraceFlags.SAMPLED) === TraceFlags.SAMPLED });
};

/** A remote parent (a caller's span, a run-now's mutation) as a context to start children in. */
const remote = (traceparent: string | null | undefined): Context => {
  const p = parentOf(traceparent);
  if (!p) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: p.traceId, spanId: p.spanId, traceFlags: p.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true });
};

/** The outcome of a run (or its handler) on its span: status attributes, ERROR unless it succeeded. */
function setOutcome(span: Span, o: Pick<Finish, 'status' | 'failureCode' | 'failureMessage'>): void {
  span.setAttribute(A.status, o.status);
  if (o.failureCode) span.setAttribute(A.failureCode, o.failureCode);
  if (o.status !== RunStatus.SUCCEEDED) span.setStatus({ code: SpanStatusCode.ERROR, message: o.failureCode ?? o.status });
}

/**
 * One run's spans, made when the run ends. Until then only instants are kept: between a co-due
 * slot and its handlers' entry the fire path pays for no span object (three per run, 30,000 for
 * 10,000 co-due runs: creating them there cost more than the 1.2× budget; BENCHMARKS.md,
 * "tracing"). Spans take explicit start and end times, and the handler's span id is chosen at its
 * entry (its `traceparent` is handed to the handler then), so nothing is lost by waiting.
 */
class OtelRunTrace implements RunTrace {
  private enteredAt = 0;
  private leftAt = 0;
  private handlerSpanId: string | undefined;
  private handlerOutcome: Finish | undefined;

  constructor(
    private readonly t: OtelTracing,
    private readonly run: RunRecord,
    private readonly traceId: string,
    private readonly claimStart: number,
    private readonly claimEnd: number,
  ) {}

  enter(): string {
    this.enteredAt = traceClock();
    this.handlerSpanId = this.t.newSpanId();
    return `00-${this.traceId}-${this.handlerSpanId}-01`;
  }

  left(outcome: Finish): void {
    this.leftAt = traceClock();
    this.handlerOutcome = outcome;
  }

  end(outcome: Finish): void {
    const span = this.t.runSpan(this.run, this.claimStart);
    if (!span) return;
    const parent = trace.setSpan(ROOT_CONTEXT, span);
    this.t.tracer.startSpan('claim', { startTime: this.claimStart }, parent).end(this.claimEnd);
    if (this.handlerSpanId) {
      const handler = this.t.startWithId(this.handlerSpanId, `handler ${this.run.target}`, { startTime: this.enteredAt, attributes: { [A.target]: this.run.target } }, parent);
      if (this.handlerOutcome) setOutcome(handler, this.handlerOutcome);
      handler.end(this.leftAt || traceClock());
    }
    setOutcome(span, outcome);
    span.end();
  }
}

class OtelTracing implements Tracing {
  readonly tracer: Tracer;

  constructor(
    private readonly provider: TracerProvider,
    /** The provider's id generator. */
    private readonly ids: PresetIds,
    private readonly instanceId: string,
  ) {
    this.tracer = provider.getTracer('cronql');
  }

  newTrace(): string {
    return formatTraceparent({ traceId: this.ids.generateTraceId(), spanId: NO_PARENT, sampled: true });
  }

  continueOrStart(traceparent: string | null | undefined): string {
    const parent = parentOf(traceparent);
    return parent ? formatTraceparent(parent) : this.newTrace();
  }

  claimed(run: RunRecord, claimStart: number): RunTrace | undefined {
    const stored = parseTraceparent(run.traceparent);
    return stored && new OtelRunTrace(this, run, stored.traceId, claimStart, traceClock());
  }

  /** A span id for a span started later (`startWithId`). */
  newSpanId(): string {
    return this.ids.generateSpanId();
  }

  /** Starts a span whose id was chosen before (and handed out: a handler's `traceparent`). */
  startWithId(spanId: string, name: string, options: SpanOptions, parent: Context): Span {
    this.ids.spanId = spanId;
    try {
      return this.tracer.startSpan(name, options, parent);
    } finally {
      this.ids.spanId = undefined;
    }
  }

  endedElsewhere(run: RunRecord): void {
    const span = this.runSpan(run, (run.startedAt ?? run.createdAt).getTime());
    if (!span) return;
    span.setAttribute(A.endedBy, this.instanceId);
    if (run.status === RunStatus.SUCCEEDED || run.status === RunStatus.FAILED || run.status === RunStatus.CANCELED) setOutcome(span, run as Finish & RunRecord);
    span.end(run.finishedAt ?? new Date());
  }

  operation(transport: 'http' | 'ws', incoming: string | undefined): OperationTrace {
    const span = this.tracer.startSpan('graphql', { kind: SpanKind.SERVER, attributes: { 'network.transport': 'tcp', 'cronql.graphql.transport': transport } }, remote(incoming));
    return {
      traceparent: contextOf(span),
      operation(type, name) {
        span.updateName(name ? `${type} ${name}` : type);
        span.setAttribute('graphql.operation.type', type);
        if (name) span.setAttribute('graphql.operation.name', name);
      },
      failed(code) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: code });
        span.setAttribute('error.type', code);
      },
      end: () => span.end(),
    };
  }

  flush(): Promise<void> {
    return this.provider.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }

  /** The run's span: its own id (from the run id), in the trace its stored context names. */
  runSpan(run: RunRecord, start: number): Span | undefined {
    const stored = parseTraceparent(run.traceparent);
    if (!stored) return undefined;
    const parent = remote(run.traceparent);
    this.ids.spanId = runSpanId(run.id);
    this.ids.traceId = parent === ROOT_CONTEXT ? stored.traceId : undefined;
    try {
      return this.tracer.startSpan(
        `run ${run.jobKey}`,
        {
          startTime: start,
          attributes: {
            [A.jobKey]: run.jobKey,
            [A.jobVersion]: run.jobVersion,
            [A.runId]: run.id,
            [A.slot]: run.scheduledAt.toISOString(),
            [A.trigger]: run.triggerType,
            [A.attempt]: run.attempt,
          },
        },
        parent,
      );
    } finally {
      this.ids.spanId = undefined;
      this.ids.traceId = undefined;
    }
  }
}

export function createOtelTracing(o: { settings: TracingSettings; instanceId: string; version: string; log: Logger }): Tracing {
  // The SDK's own complaints (an export that failed, spans dropped) go to cronql's log.
  const log = o.log.child({ component: 'tracing' });
  diag.setLogger(
    {
      error: (message, ...args) => log.error({ args }, message),
      warn: (message, ...args) => log.warn({ args }, message),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over cronql's defaults.
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: 'cronql',
    [ATTR_SERVICE_VERSION]: o.version,
    'service.instance.id': o.instanceId,
  }).merge(detectResources({ detectors: [envDetector] }));
  const ids = new PresetIds();
  const provider = new TracerProvider({
    resource,
    idGenerator: ids,
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...o.settings })],
  });
  return new OtelTracing(provider, ids, o.instanceId);
}
