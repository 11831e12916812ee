/**
 * The `OTEL_*` variables cronql reads itself (docs/configuration.md, "Tracing"); the exporter
 * reads its own (`OTEL_EXPORTER_OTLP_*`), the resource `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES`. Read once, at start; nothing of OpenTelemetry is loaded to read them.
 */
type Env = Record<string, string | undefined>;

export interface TracingSettings {
  /** Spans queued for export at most; past it they are dropped. */
  maxQueueSize: number;
  /** Spans per export request. */
  maxExportBatchSize: number;
  /** How long a span may wait for its batch, in ms. */
  scheduledDelayMillis: number;
  /** How long one export may take, in ms. */
  exportTimeoutMillis: number;
}

/**
 * Sized for a burst: 10,000 co-due runs make 30,000 spans (run, claim, handler) within a second,
 * and the SDK's default queue (2,048) would drop most of them (BENCHMARKS.md, "tracing"). The
 * queue is bounded all the same: a collector that does not answer costs at most this many spans
 * of memory (about 1 KiB each), then spans are dropped, not queued.
 */
export const TRACING_DEFAULTS: TracingSettings = {
  maxQueueSize: 65_536,
  maxExportBatchSize: 2_048,
  scheduledDelayMillis: 1_000,
  exportTimeoutMillis: 30_000,
};

/** A bad `OTEL_*` value: the message names the variable. */
export class TracingSettingsError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'TracingSettingsError';
  }
}

/**
 * Whether the environment asks for traces: an OTLP endpoint is named
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and neither
 * `OTEL_SDK_DISABLED=true` nor `OTEL_TRACES_EXPORTER=none` says otherwise.
 */
export function tracingRequested(env: Env = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * The batch span processor's settings from `OTEL_BSP_*`, cronql's defaults where unset.
 * @throws TracingSettingsError on a value that is not a positive integer, or a batch larger than the queue
 */
export function tracingSettings(env: Env = process.env): TracingSettings {
  const int = (name: string, fallback: number): number => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
      throw new TracingSettingsError(name, `must be a positive integer, got "${raw}"`);
    }
    return Number(raw);
  };
  const s: TracingSettings = {
    maxQueueSize: int('OTEL_BSP_MAX_QUEUE_SIZE', TRACING_DEFAULTS.maxQueueSize),
    maxExportBatchSize: int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', TRACING_DEFAULTS.maxExportBatchSize),
    scheduledDelayMillis: int('OTEL_BSP_SCHEDULE_DELAY', TRACING_DEFAULTS.scheduledDelayMillis),
    exportTimeoutMillis: int('OTEL_BSP_EXPORT_TIMEOUT', TRACING_DEFAULTS.exportTimeoutMillis),
  };
  if (s.maxExportBatchSize > s.maxQueueSize) {
    throw new TracingSettingsError('OTEL_BSP_MAX_EXPORT_BATCH_SIZE', `(${s.maxExportBatchSize}) must not exceed OTEL_BSP_MAX_QUEUE_SIZE (${s.maxQueueSize})`);
  }
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim();
  if (protocol && protocol !== 'http/protobuf') {
    throw new TracingSettingsError(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL', `must be http/protobuf (the one protocol cronql exports with), got "${protocol}"`);
  }
  return s;
}
