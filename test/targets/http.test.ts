import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { blockedAddressReason, type AddressLookup } from '../../src/runtime/targets/address-guard.js';
import { createHttpTarget, type HttpTargetOptions } from '../../src/runtime/targets/builtin/http.js';
import { createTargetRegistry } from '../../src/runtime/targets/registry.js';
import { TargetError, type TargetContext } from '../../src/runtime/targets/target.js';
import { failure, targetContext } from '../support/target-context.js';

/** Every request the server received, as `METHOD /path`. */
let hits: string[] = [];
/** The local address each request arrived on. */
let arrivedOn: string[] = [];
let server: Server;
/** The same handler on 127.0.0.2, the address the guard is told is public in these tests. */
let standIn: Server;
let base: string;

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

beforeAll(async () => {
  const handler = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    hits.push(`${req.method} ${url.pathname}`);
    arrivedOn.push(req.socket.localAddress ?? '?');
    const body = await readBody(req);
    switch (url.pathname) {
      case '/echo':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
        return;
      case '/created':
        res.statusCode = 201;
        res.end('made');
        return;
      case '/big':
        res.end('é'.repeat(5_000)); // 10,000 bytes, two per character
        return;
      case '/cookies':
        res.setHeader('set-cookie', ['session=abc; HttpOnly', 'other=1']);
        res.setHeader('X-Request-Id', 'req-42');
        res.setHeader('content-type', 'application/json; charset=utf-8');
        res.end(JSON.stringify({ ok: true, items: [1, 2, 3] }));
        return;
      case '/json-big':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ padding: 'x'.repeat(200) }));
        return;
      case '/fail':
        res.statusCode = 503;
        res.end('down for maintenance');
        return;
      case '/redirect':
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/echo' });
        res.end();
        return;
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        res.end();
        return;
      case '/hang':
        return; // never answers; afterAll closes the connection
      default:
        res.statusCode = 404;
        res.end();
    }
  };
  server = createServer(handler);
  standIn = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => standIn.listen(port, '127.0.0.2', resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const s of [server, standIn]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

beforeEach(() => {
  hits = [];
  arrivedOn = [];
});

/** In these tests 127.0.0.2 (the stand-in server) passes for a public address; nothing else changes. */
const standInIsPublic = (address: string) => (address === '127.0.0.2' ? undefined : blockedAddressReason(address));

const context = (payload: unknown, signal?: AbortSignal) => targetContext(payload, signal, 'http-test');

function run(payload: unknown, options: HttpTargetOptions = { allowPrivate: true }, signal?: AbortSignal) {
  return Promise.resolve(createHttpTarget(options).handler(context(payload, signal)));
}

/**
 * Resolves `localhost` to the stand-in server's address (which passes for public here), so the
 * first hop reaches it; any other name is refused without touching real DNS.
 */
const publicLocalhost: AddressLookup = async (host) => {
  if (host === 'localhost') return [{ address: '127.0.0.2', family: 4 }];
  if (host === 'internal.test') return [{ address: '10.0.0.5', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

describe('http target', () => {
  it('POSTs a JSON body by default and returns status, duration and body', async () => {
    const output = (await run({ url: `${base}/echo`, body: { day: '2030-01-01' } })) as Record<string, unknown>;
    expect(output).toMatchObject({ status: 200, durationMs: expect.any(Number) });
    const echo = json(output.body);
    expect(echo).toMatchObject({ method: 'POST', body: '{"day":"2030-01-01"}' });
    expect(echo.headers['content-type']).toBe('application/json');
  });

  it('sends a string body as is and keeps a given content type', async () => {
    const output = (await run({
      url: `${base}/echo`,
      method: 'put',
      headers: { 'Content-Type': 'text/csv', 'X-Job': 'close-day' },
      body: 'a,b\n1,2',
    })) as { body: string };
    const echo = json(output.body);
    expect(echo).toMatchObject({ method: 'PUT', body: 'a,b\n1,2' });
    expect(echo.headers).toMatchObject({ 'content-type': 'text/csv', 'x-job': 'close-day' });
  });

  it('treats any 2xx as success', async () => {
    await expect(run({ url: `${base}/created`, method: 'GET' })).resolves.toMatchObject({ status: 201, body: 'made' });
  });

  it('keeps the first 4 KiB of the body without splitting a character', async () => {
    const { body, truncated } = (await run({ url: `${base}/big`, method: 'GET' })) as { body: string; truncated?: true };
    expect(body).toBe('é'.repeat(2_048));
    expect(truncated).toBe(true);
  });

  it('captures the response headers (lower-case names, no set-cookie) and a JSON body as JSON', async () => {
    const output = (await run({ url: `${base}/cookies`, method: 'GET' })) as { headers: Record<string, string>; body: unknown; truncated?: true };
    expect(output.body).toEqual({ ok: true, items: [1, 2, 3] });
    expect(output.headers['x-request-id']).toBe('req-42');
    expect(output.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Object.keys(output.headers).filter((h) => h.toLowerCase() === 'set-cookie')).toEqual([]);
    expect(JSON.stringify(output)).not.toContain('session=abc');
    expect(output.truncated).toBeUndefined();
  });

  it('keeps captureBytes of the body: a JSON body cut short is kept as text, marked truncated; 0 keeps nothing', async () => {
    const withCapture = (captureBytes: number) => {
      const ctx = context({ url: `${base}/json-big`, method: 'GET' });
      ctx.run.captureBytes = captureBytes;
      return Promise.resolve(createHttpTarget({ allowPrivate: true }).handler(ctx)) as Promise<{ body: unknown; truncated?: true }>;
    };
    const whole = await withCapture(1_048_576);
    expect(whole.body).toEqual({ padding: 'x'.repeat(200) });
    expect(whole.truncated).toBeUndefined();
    const cut = await withCapture(20);
    expect(cut).toMatchObject({ body: '{"padding":"xxxxxxxx', truncated: true });
    expect(await withCapture(0)).toMatchObject({ body: '', truncated: true });
    const exact = await withCapture(JSON.stringify({ padding: 'x'.repeat(200) }).length);
    expect(exact.body).toEqual({ padding: 'x'.repeat(200) });
  });

  it('fails HTTP_STATUS with the status and the start of the body', async () => {
    const err = await failure(run({ url: `${base}/fail` }));
    expect(err.code).toBe('HTTP_STATUS');
    expect(err.details).toMatchObject({ status: 503, body: 'down for maintenance' });
    expect((err.details as { headers: Record<string, string> }).headers).toBeTypeOf('object');
  });

  it('blocks loopback by default, before any request is sent', async () => {
    const err = await failure(run({ url: `${base}/echo` }, {}));
    expect(err.code).toBe('HTTP_BLOCKED');
    expect(hits).toEqual([]);
  });

  it('wires CRONQL_HTTP_ALLOW_PRIVATE through the registry', async () => {
    const blocked = createTargetRegistry().get('http')!;
    await expect(blocked.handler(context({ url: `${base}/echo` }))).rejects.toMatchObject({ code: 'HTTP_BLOCKED' });
    const allowed = createTargetRegistry({}, { httpAllowPrivate: true }).get('http')!;
    await expect(allowed.handler(context({ url: `${base}/echo` }))).resolves.toMatchObject({ status: 200 });
  });

  it('follows redirects, turning a POST into a GET on 302', async () => {
    const { body } = (await run({ url: `${base}/redirect`, body: { x: 1 } })) as { body: string };
    expect(json(body)).toMatchObject({ method: 'GET', body: '' });
    expect(json(body).headers['content-type']).toBeUndefined();
    expect(hits).toEqual(['POST /redirect', 'GET /echo']);
  });

  it('keeps method and body on 307', async () => {
    const { body } = (await run({ url: `${base}/redirect?status=307`, body: 'keep' })) as { body: string };
    expect(json(body)).toMatchObject({ method: 'POST', body: 'keep' });
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const port = new URL(base).port;
    const to = `${base}/echo`;
    const headers = { authorization: 'Bearer secret', 'x-keep': 'yes' };
    const cross = (await run({ url: `http://localhost:${port}/redirect?to=${to}`, method: 'GET', headers })) as {
      body: string;
    };
    expect(json(cross.body).headers).toMatchObject({ 'x-keep': 'yes' });
    expect(json(cross.body).headers.authorization).toBeUndefined();
    const same = (await run({ url: `${base}/redirect?to=/echo`, method: 'GET', headers })) as { body: string };
    expect(json(same.body).headers.authorization).toBe('Bearer secret');
  });

  it('gives up after 5 redirects with HTTP_NETWORK', async () => {
    const err = await failure(run({ url: `${base}/loop`, method: 'GET' }));
    expect(err.code).toBe('HTTP_NETWORK');
    expect(err.message).toContain('more than 5 redirects');
    expect(hits).toHaveLength(6);
  });

  it.each([
    ['a loopback literal', () => `${base}/echo`],
    ['a name resolving to a private address', () => 'http://internal.test/'],
    ['the metadata host', () => 'http://metadata.google.internal/computeMetadata/v1/'],
    ['the metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
  ])('checks every redirect hop: blocks a redirect to %s', async (_label, target) => {
    const port = new URL(base).port;
    const err = await failure(
      run({ url: `http://localhost:${port}/redirect?to=${encodeURIComponent(target())}`, method: 'GET' }, {
        lookup: publicLocalhost,
        blockedReason: standInIsPublic,
      }),
    );
    expect(err.code).toBe('HTTP_BLOCKED');
    expect(hits).toEqual(['GET /redirect']);
  });

  it('fails HTTP_NETWORK when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const err = await failure(run({ url: `http://127.0.0.1:${port}/` }));
    expect(err.code).toBe('HTTP_NETWORK');
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('fails HTTP_NETWORK when its own timeoutMs passes', async () => {
    const err = await failure(run({ url: `${base}/hang`, timeoutMs: 50 }));
    expect(err.code).toBe('HTTP_NETWORK');
    expect(err.message).toContain('within 50 ms');
  });

  it('rejects with the run signal reason when the run is aborted', async () => {
    const controller = new AbortController();
    const reason = new Error('job timeout');
    const pending = run({ url: `${base}/hang` }, { allowPrivate: true }, controller.signal);
    await expect.poll(() => hits).toEqual(['POST /hang']);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('rejects with the reason of a run signal that is already aborted, sending nothing', async () => {
    const reason = new Error('cancelled');
    await expect(run({ url: `${base}/echo` }, { allowPrivate: true }, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(hits).toEqual([]);
  });

  it.each([
    ['no payload', null],
    ['no url', {}],
    ['a relative url', { url: '/echo' }],
    ['an ftp url', { url: 'ftp://example.test/file' }],
    ['credentials in the url', { url: 'http://user:pw@example.test/' }],
    ['a GET with a body', { url: 'http://example.test/', method: 'GET', body: 'x' }],
    ['a forbidden method', { url: 'http://example.test/', method: 'CONNECT' }],
    ['a malformed method', { url: 'http://example.test/', method: 'PO ST' }],
    ['non-string headers', { url: 'http://example.test/', headers: { 'x-n': 1 } }],
    ['an invalid header name', { url: 'http://example.test/', headers: { 'bad name': 'x' } }],
    ['a zero timeout', { url: 'http://example.test/', timeoutMs: 0 }],
    ['an overflowing timeout', { url: 'http://example.test/', timeoutMs: 2 ** 31 }],
  ])('fails BAD_PAYLOAD for %s', async (_label, payload) => {
    const err = await failure(run(payload, {}));
    expect(err.code).toBe('BAD_PAYLOAD');
  });

  it('connects to the address it checked: a resolver that answers public first and loopback second never gets the request to loopback (DNS rebinding)', async () => {
    const port = new URL(base).port;
    const calls: string[] = [];
    const answers = new Map<string, string[]>([
      ['rebind.test', ['127.0.0.2', '127.0.0.1']],
      ['rebind2.test', ['127.0.0.2', '127.0.0.1']],
    ]);
    const rebinding: AddressLookup = async (host) => {
      calls.push(host);
      const next = answers.get(host)?.shift() ?? '127.0.0.1';
      return [{ address: next, family: 4 }];
    };
    const options = { lookup: rebinding, blockedReason: standInIsPublic };
    const to = encodeURIComponent(`http://rebind2.test:${port}/echo`);
    const output = (await run({ url: `http://rebind.test:${port}/redirect?to=${to}`, method: 'GET' }, options)) as { status: number; body: string };
    expect(output.status).toBe(200);
    // One lookup per hop (the guard's), and every hop served on the checked address.
    expect(calls).toEqual(['rebind.test', 'rebind2.test']);
    expect(hits).toEqual(['GET /redirect', 'GET /echo']);
    expect(arrivedOn).toEqual(['127.0.0.2', '127.0.0.2']);
    // The Host header still names the host, as the server (and TLS) expect.
    expect(json(output.body).headers.host).toBe(`rebind2.test:${port}`);
  });
});

/** A captured body: the echo server answers JSON, stored as JSON (a string only when it was not). */
function json(body: unknown): Record<string, any> {
  return (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, any>;
}
