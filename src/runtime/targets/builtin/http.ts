import ipaddr from 'ipaddr.js';
import type { Agent, Dispatcher } from 'undici';
import { assertPublicUrl, blockedAddressReason, type AddressLookup } from '../address-guard.js';
import { DEFAULT_CAPTURE_BYTES } from '../../../domain/job.js';
import { TargetError, type TargetContext, type TargetDefinition } from '../target.js';

/**
 * undici, loaded by the first request an `http` target (or an alert) sends: a start does not need
 * it, and it was about 50 ms of a start's imports (BENCHMARKS.md, "npm start to ready").
 */
let undici: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undici ??= import('undici'));

export interface HttpTargetOptions {
  /**
   * Let the target call loopback, private, link-local and metadata addresses
   * (`CRONQL_HTTP_ALLOW_PRIVATE`).
   * @default false
   */
  allowPrivate?: boolean;
  /**
   * Resolves host names for the address guard; tests inject a stub.
   * @default dns.promises.lookup(host, { all: true })
   */
  lookup?: AddressLookup;
  /**
   * Why an address may not be called (undefined: it may); tests inject one that lets a loopback
   * test server pass for public.
   * @default blockedAddressReason (public unicast only)
   */
  blockedReason?: (address: string) => string | undefined;
}

export interface HttpPayload {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs?: number;
}

export interface HttpOutput {
  status: number;
  durationMs: number;
  /** The response headers, names in lower case, without `set-cookie`. */
  headers: Record<string, string>;
  /** The body: parsed JSON when the response says JSON and all of it was kept; else its first `captureBytes` as UTF-8 text. */
  body: unknown;
  /** Present (true) when the body was longer than `captureBytes` and cut. */
  truncated?: true;
}

/** Redirects followed by hand, so that every hop goes through the address guard. */
export const MAX_REDIRECTS = 5;
/** Bytes of the response body kept in the output or the error details, unless the job says otherwise (`captureBytes`). */
export const BODY_LIMIT_BYTES = DEFAULT_CAPTURE_BYTES;
const DEFAULT_TIMEOUT_MS = 10_000;
/** Node's timers overflow past this and fire after 1 ms instead. */
const MAX_TIMEOUT_MS = 2_147_483_647;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FORBIDDEN_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);
/** Dropped when a redirect turns the request into a GET (fetch spec, "request-body-header"). */
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];
/** Dropped when a redirect leaves the origin, so credentials do not leak to another host. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

interface HttpRequest {
  url: URL;
  method: string;
  headers: Headers;
  body: string | undefined;
  timeoutMs: number;
}

const badPayload = (message: string): TargetError => new TargetError('BAD_PAYLOAD', `http: ${message}`);

function parsePayload(payload: unknown): HttpRequest {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw badPayload('payload must be an object with a url');
  }
  const p = payload as Partial<Record<keyof HttpPayload, unknown>>;
  if (typeof p.url !== 'string' || p.url === '') throw badPayload('payload.url must be a non-empty string');
  const url = URL.canParse(p.url) ? new URL(p.url) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw badPayload(`payload.url must be an absolute http: or https: URL, got ${JSON.stringify(p.url)}`);
  }
  // fetch refuses URLs with credentials; say so up front rather than as a network error.
  if (url.username || url.password) throw badPayload('payload.url must not embed credentials; use headers');

  const method = p.method === undefined ? 'POST' : p.method;
  if (typeof method !== 'string' || !TOKEN.test(method) || FORBIDDEN_METHODS.has(method.toUpperCase())) {
    throw badPayload(`payload.method ${JSON.stringify(method)} is not a usable HTTP method`);
  }
  const upper = method.toUpperCase();

  const rawHeaders = p.headers ?? {};
  if (
    typeof rawHeaders !== 'object' ||
    Array.isArray(rawHeaders) ||
    !Object.values(rawHeaders).every((v) => typeof v === 'string')
  ) {
    throw badPayload('payload.headers must be an object of header name → string');
  }
  let headers: Headers;
  try {
    headers = new Headers(rawHeaders as Record<string, string>);
  } catch (err) {
    throw badPayload(`payload.headers: ${(err as Error).message}`);
  }

  let body: string | undefined;
  if (typeof p.body === 'string') body = p.body;
  else if (p.body !== undefined && p.body !== null) {
    body = JSON.stringify(p.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  if (body !== undefined && (upper === 'GET' || upper === 'HEAD')) {
    throw badPayload(`payload.body is not allowed with ${upper}`);
  }

  const timeoutMs = p.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : p.timeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
    throw badPayload(`payload.timeoutMs must be a number in (0, ${MAX_TIMEOUT_MS}]`);
  }
  return { url, method: upper, headers, body, timeoutMs };
}

/**
 * Reads at most `limit` bytes (one more, to know whether there was more) and drops the rest, so
 * a huge response costs nothing.
 */
async function readBodyPrefix(res: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size <= limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  // stream: true holds back a multi-byte character cut at the limit instead of emitting U+FFFD.
  return { text: new TextDecoder().decode(bytes, { stream: true }), truncated: size > limit };
}

/** The response headers worth keeping: all but the cookies it sets. */
function keptHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name.toLowerCase() !== 'set-cookie') out[name.toLowerCase()] = value;
  });
  return out;
}

/** A JSON body (by its content type) kept whole is stored as JSON; anything else as its text. */
function capturedBody(res: Response, body: { text: string; truncated: boolean }): unknown {
  if (body.truncated || !/\bjson\b/i.test(res.headers.get('content-type') ?? '')) return body.text;
  try {
    return JSON.parse(body.text);
  } catch {
    return body.text;
  }
}

/** Rejects with the signal's reason as soon as it aborts (DNS lookups cannot be cancelled). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The request for the next hop, per the fetch spec's redirect rules. */
function redirectRequest(req: HttpRequest, status: number, location: URL): HttpRequest {
  const headers = new Headers(req.headers);
  let { method, body } = req;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    for (const name of BODY_HEADERS) headers.delete(name);
  }
  if (location.origin !== req.url.origin) {
    for (const name of CREDENTIAL_HEADERS) headers.delete(name);
  }
  return { ...req, url: location, method, headers, body };
}

/**
 * A connection pool that connects to `address` whatever name it is asked for: the hop's host name
 * still goes in the Host header and in TLS (SNI, and the certificate is checked against it), but
 * the socket goes to the address the guard checked.
 */
function pinnedDispatcher(Agent: typeof import('undici').Agent, address: string): Agent {
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
  return new Agent({
    connect: {
      lookup: (_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
        if (options?.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
    } as never,
  });
}

async function send(
  ctx: TargetContext,
  first: HttpRequest,
  options: HttpTargetOptions,
  signal: AbortSignal,
): Promise<HttpOutput> {
  const { Agent, fetch: pinnedFetch } = await loadUndici();
  let req = first;
  const started = performance.now();
  for (let hop = 0; ; hop++) {
    let dispatcher: Dispatcher | undefined;
    if (!options.allowPrivate) {
      const checked = await untilAborted(assertPublicUrl(req.url, options.lookup, options.blockedReason ?? blockedAddressReason), signal);
      dispatcher = pinnedDispatcher(Agent, checked[0]);
    }
    try {
      const res = (await pinnedFetch(req.url.href, {
        method: req.method,
        // As name/value pairs: undici's own Headers type is not Node's global one (their iterator
        // types differ between undici 7 and the undici-types that @types/node bundles).
        headers: [...req.headers],
        body: req.body,
        redirect: 'manual',
        signal,
        dispatcher,
      })) as unknown as Response;
      const outcome = await answer(ctx, req, res, hop, started);
      if (outcome.kind === 'done') return outcome.output;
      req = outcome.next;
    } finally {
      void dispatcher?.destroy().catch(() => undefined);
    }
  }
}

/** What one hop's response means: the output, or the request of the next hop. */
async function answer(
  ctx: TargetContext,
  req: HttpRequest,
  res: Response,
  hop: number,
  started: number,
): Promise<{ kind: 'done'; output: HttpOutput } | { kind: 'redirect'; next: HttpRequest }> {
  const location = res.headers.get('location');
  if (res.status >= 300 && res.status < 400 && location !== null) {
    await res.body?.cancel().catch(() => undefined);
    if (hop === MAX_REDIRECTS) {
      throw new TargetError('HTTP_NETWORK', `http: more than ${MAX_REDIRECTS} redirects`, { url: req.url.href });
    }
    const next = URL.canParse(location, req.url.href) ? new URL(location, req.url) : undefined;
    if (!next || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
      throw new TargetError('HTTP_NETWORK', `http: unusable redirect location ${JSON.stringify(location)}`, {
        url: req.url.href,
        status: res.status,
      });
    }
    ctx.log.debug({ from: req.url.href, to: next.href, status: res.status }, 'http target redirect');
    return { kind: 'redirect', next: redirectRequest(req, res.status, next) };
  }
  const limit = ctx.run.captureBytes ?? BODY_LIMIT_BYTES;
  const read = await readBodyPrefix(res, limit);
  const body = capturedBody(res, read);
  const headers = keptHeaders(res);
  const durationMs = Math.round(performance.now() - started);
  const truncated = read.truncated ? ({ truncated: true } as const) : {};
  if (res.status < 200 || res.status >= 300) {
    throw new TargetError('HTTP_STATUS', `http: ${req.method} ${req.url.href} answered ${res.status}`, {
      status: res.status,
      headers,
      body,
      ...truncated,
    });
  }
  return { kind: 'done', output: { status: res.status, durationMs, headers, body, ...truncated } };
}

/** The `http` built-in target. */
export function createHttpTarget(options: HttpTargetOptions = {}): TargetDefinition {
  return {
    description: 'Sends an HTTP request (payload: url, method = POST, headers, body, timeoutMs = 10000); with tracing on, a traceparent header.',
    async handler(ctx: TargetContext): Promise<HttpOutput> {
      const req = parsePayload(ctx.payload);
      // The request continues the run's trace (W3C Trace Context), unless the payload sends its own.
      if (ctx.traceparent && !req.headers.has('traceparent')) req.headers.set('traceparent', ctx.traceparent);
      const { timeoutMs } = req;
      // One budget for all hops, the guard's lookups and reading the body.
      const timeout = AbortSignal.timeout(timeoutMs);
      try {
        return await send(ctx, req, options, AbortSignal.any([ctx.signal, timeout]));
      } catch (err) {
        // The run's own abort (job timeout, cancel, shutdown) wins: the runtime classifies it.
        if (ctx.signal.aborted) throw ctx.signal.reason;
        if (err instanceof TargetError) throw err;
        if (timeout.aborted) {
          throw new TargetError('HTTP_NETWORK', `http: no complete response within ${timeoutMs} ms`, {
            timeoutMs,
          });
        }
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const detail = cause?.code ?? cause?.message ?? (err as Error).message;
        throw new TargetError('HTTP_NETWORK', `http: request failed (${detail})`, { cause: detail });
      }
    },
  };
}
