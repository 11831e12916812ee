import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/**
 * A stand-in for an OpenTelemetry collector: an HTTP server taking OTLP/HTTP protobuf trace
 * exports (`POST /v1/traces`) and keeping the spans, decoded by a small reader of the protobuf
 * wire format (only the fields of `ExportTraceServiceRequest` the tests and the tracing benchmark
 * read). `count` alone skips keeping the spans (the benchmark's 30,000).
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNanos: bigint;
  endNanos: bigint;
  attributes: Record<string, string | number | boolean>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  /** The resource's attributes (service.name …). */
  resource: Record<string, string | number | boolean>;
}

/** One protobuf field: its number, wire type and value (a sub-buffer for length-delimited ones). */
type Field = { no: number; wire: number; value: number | bigint | Buffer };

function* fields(buf: Buffer): Generator<Field> {
  let i = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const no = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) yield { no, wire, value: varint() };
    else if (wire === 1) {
      yield { no, wire, value: buf.readBigUInt64LE(i) };
      i += 8;
    } else if (wire === 2) {
      const len = varint();
      yield { no, wire, value: buf.subarray(i, i + len) };
      i += len;
    } else if (wire === 5) {
      yield { no, wire, value: buf.readUInt32LE(i) };
      i += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const text = (v: Field['value']) => (v as Buffer).toString('utf8');
const hex = (v: Field['value']) => (v as Buffer).toString('hex');

function anyValue(buf: Buffer): string | number | boolean {
  for (const f of fields(buf)) {
    if (f.no === 1) return text(f.value);
    if (f.no === 2) return f.value === 1;
    if (f.no === 3) return Number(f.value);
    if (f.no === 4) {
      const bytes = Buffer.alloc(8);
      bytes.writeBigUInt64LE(f.value as bigint);
      return bytes.readDoubleLE(0);
    }
  }
  return '';
}

function keyValues(into: Record<string, string | number | boolean>, buf: Buffer): void {
  let key = '';
  let value: string | number | boolean = '';
  for (const f of fields(buf)) {
    if (f.no === 1) key = text(f.value);
    else if (f.no === 2) value = anyValue(f.value as Buffer);
  }
  into[key] = value;
}

function span(buf: Buffer, resource: ReceivedSpan['resource']): ReceivedSpan {
  const s: ReceivedSpan = { traceId: '', spanId: '', parentSpanId: '', name: '', kind: 0, startNanos: 0n, endNanos: 0n, attributes: {}, statusCode: 0, statusMessage: '', resource };
  for (const f of fields(buf)) {
    if (f.no === 1) s.traceId = hex(f.value);
    else if (f.no === 2) s.spanId = hex(f.value);
    else if (f.no === 4) s.parentSpanId = hex(f.value);
    else if (f.no === 5) s.name = text(f.value);
    else if (f.no === 6) s.kind = f.value as number;
    else if (f.no === 7) s.startNanos = f.value as bigint;
    else if (f.no === 8) s.endNanos = f.value as bigint;
    else if (f.no === 9) keyValues(s.attributes, f.value as Buffer);
    else if (f.no === 15) {
      for (const g of fields(f.value as Buffer)) {
        if (g.no === 2) s.statusMessage = text(g.value);
        else if (g.no === 3) s.statusCode = g.value as number;
      }
    }
  }
  return s;
}

/** A span's trace and span ids (hex), read without decoding the rest. */
function spanKey(buf: Buffer): string {
  let trace = '';
  let id = '';
  for (const f of fields(buf)) {
    if (f.no === 1) trace = hex(f.value);
    else if (f.no === 2) id = hex(f.value);
    if (trace && id) break;
  }
  return trace + id;
}

/**
 * The spans of an `ExportTraceServiceRequest`; with `countOnly`, only how many there are and, in
 * `keys`, each one's trace and span ids (a batch the exporter sent again is counted once there).
 */
export function decodeExport(body: Buffer, countOnly = false, keys?: Set<string>): { count: number; spans: ReceivedSpan[] } {
  const spans: ReceivedSpan[] = [];
  let count = 0;
  for (const rs of fields(body)) {
    if (rs.no !== 1) continue;
    const resource: ReceivedSpan['resource'] = {};
    const scopes: Buffer[] = [];
    for (const f of fields(rs.value as Buffer)) {
      if (f.no === 1) for (const a of fields(f.value as Buffer)) if (a.no === 1) keyValues(resource, a.value as Buffer);
      if (f.no === 2) scopes.push(f.value as Buffer);
    }
    for (const scope of scopes) {
      for (const f of fields(scope)) {
        if (f.no !== 2) continue;
        count++;
        if (!countOnly) spans.push(span(f.value as Buffer, resource));
        else keys?.add(spanKey(f.value as Buffer));
      }
    }
  }
  return { count, spans };
}

export interface OtlpReceiver {
  /** The endpoint to export to (`OTEL_EXPORTER_OTLP_ENDPOINT`). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Spans received (kept or not). */
  readonly count: number;
  /** With `countOnly`: distinct spans received (by trace and span id), whatever was sent twice. */
  readonly distinct: number;
  /** Export requests received. */
  readonly requests: number;
  /** Resolves once `predicate` holds for the spans received, or rejects after `timeoutMs`. */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(o: { countOnly?: boolean } = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let count = 0;
  let requests = 0;
  const keys = new Set<string>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      requests++;
      const decoded = decodeExport(body, o.countOnly, keys);
      count += decoded.count;
      spans.push(...decoded.spans);
      // An empty ExportTraceServiceResponse: everything accepted.
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      for (const w of waiters) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    get count() {
      return count;
    },
    get requests() {
      return requests;
    },
    get distinct() {
      return o.countOnly ? keys.size : new Set(spans.map((x) => x.traceId + x.spanId)).size;
    },
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the OTLP receiver did not get the expected spans within ${timeoutMs} ms (got ${spans.length})`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
