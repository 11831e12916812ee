/**
 * W3C Trace Context (`traceparent`, https://www.w3.org/TR/trace-context/#traceparent-header) as
 * cronql reads and writes it: in the `traceparent` header of requests (in from GraphQL clients,
 * out from the `http` target) and in a run's `traceparent` column. Pure: no OpenTelemetry module
 * is needed to read or write one, so nothing of it is loaded while tracing is off.
 */

/** A parsed `traceparent`: version 00, trace id (32 hex), parent span id (16 hex), sampled flag. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
/** What cronql itself writes (version 00, lower case): read by offsets, once per run on the fire path. */
const WRITTEN = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;
const ZERO_TRACE = '0'.repeat(32);

/**
 * The parent id a run's stored context holds when the run's span is its trace's root (a scheduled
 * slot's run): the trace id is known before the run is inserted, the parent is nobody. Zeros are
 * not a valid parent id in a header (the spec forbids them), which is why they can mean "none" here.
 */
export const NO_PARENT = '0'.repeat(16);

/**
 * Reads a `traceparent`; undefined when it is absent or not one (an invalid header is ignored, as
 * the spec asks: a new trace starts). Version ff is invalid; a later version is read as 00 is.
 */
export function parseTraceparent(value: string | null | undefined): TraceContext | undefined {
  if (!value) return undefined;
  if (WRITTEN.test(value)) {
    const traceId = value.slice(3, 35);
    return traceId === ZERO_TRACE ? undefined : { traceId, spanId: value.slice(36, 52), sampled: value[54] === '1' };
  }
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === 'ff' || (version === '00' && rest !== undefined) || traceId === ZERO_TRACE) return undefined;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}

/** A `traceparent` (version 00). */
export function formatTraceparent(c: TraceContext): string {
  return `00-${c.traceId}-${c.spanId}-${c.sampled ? '01' : '00'}`;
}

/** The W3C trace id a run's stored context names (`Run.traceId`); null when it has none. */
export function traceIdOf(traceparent: string | null | undefined): string | null {
  return parseTraceparent(traceparent)?.traceId ?? null;
}

/** A header's context, when it names a parent span (zeros do not: see NO_PARENT). */
export function parentOf(traceparent: string | null | undefined): TraceContext | undefined {
  const c = parseTraceparent(traceparent);
  return c && c.spanId !== NO_PARENT ? c : undefined;
}

/**
 * The span id of a run's own span: derived from the run's id (a random UUID), so that whichever
 * instance ends the run — the one that ran it, or the one that found its runner lost — names the
 * same span. The last 16 hex digits of a version-4 UUID are 62 random bits.
 */
export function runSpanId(runId: string): string {
  // xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx: the last 16 hex digits are the last two groups.
  const id = runId.length === 36 ? `${runId.slice(19, 23)}${runId.slice(24)}`.toLowerCase() : runId.replaceAll('-', '').toLowerCase().slice(-16).padStart(16, '0');
  return id === NO_PARENT ? '0000000000000001' : id;
}
