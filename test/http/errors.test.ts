import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from '../graphql/support.js';

/** Nothing of the file system or a stack leaves the process, whatever NODE_ENV says. */
describe.each(['development', undefined])('HTTP errors with NODE_ENV=%s', (nodeEnv) => {
  let api: Api;
  let base: string;
  const saved = process.env.NODE_ENV;
  beforeAll(async () => {
    if (nodeEnv) process.env.NODE_ENV = nodeEnv;
    else delete process.env.NODE_ENV;
    api = await startApi({ instanceId: `http-errors-${nodeEnv ?? 'unset'}` });
    base = api.url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await api.close();
    if (saved === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = saved;
  });

  const leaks = (body: string) => /\bat\s+\S+\s+\(|node_modules|\/work\/|\/src\/|Error:/.test(body);

  it('a malformed URL under GraphiQL (no token needed): 400, one plain line', async () => {
    const res = await fetch(`${base}/graphiql/assets/%E0%A4%A/x`);
    const body = await res.text();
    expect(res.status).toBe(400);
    expect(body).toBe('400 Bad request (BAD_REQUEST)\n');
    expect(leaks(body)).toBe(false);
  });

  it('a body in an unknown Content-Encoding: 415 as a GraphQL error', async () => {
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'zzz', authorization: `Bearer ${api.adminToken}` },
      body: '{"query":"{ targets { name } }"}',
    });
    const body = await res.text();
    expect(res.status).toBe(415);
    expect(JSON.parse(body)).toEqual({ errors: [{ message: 'Unsupported request encoding or media type', extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' } }] });
    expect(leaks(body)).toBe(false);
  });

  it('an unknown path: 404 without Express\'s page', async () => {
    const res = await fetch(`${base}/nope`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Not found' } });
  });
});

describe('CORS', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'cors' }, { corsOrigins: ['https://app.example.com'] });
  });
  afterAll(async () => {
    await api.close();
  });

  const preflight = (origin: string) =>
    fetch(api.url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } });

  it('grants only the listed origins', async () => {
    const allowed = await preflight('https://app.example.com');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const other = await preflight('https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('grants none by default', async () => {
    const plain = await startApi({ instanceId: 'cors-default' });
    try {
      const res = await fetch(plain.url, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
