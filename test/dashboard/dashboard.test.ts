import { execFile } from 'node:child_process';
import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_CSP } from '../../src/http/dashboard.js';
import { startApi, type Api } from '../graphql/support.js';

interface Raw {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A raw GET (no automatic decompression, unlike fetch). */
function get(url: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    }).on('error', reject);
  });
}

const root = fileURLToPath(new URL('../../', import.meta.url));

/** `/dashboard` as cronql's server serves it (no browser needed). */
describe('GET /dashboard', () => {
  let api: Api;
  let base: string;
  let page: Raw;
  let html: string;
  let assets: string[];

  beforeAll(async () => {
    api = await startApi();
    base = api.http.url;
    page = await get(`${base}/dashboard`);
    html = page.body.toString('utf8');
    assets = [...html.matchAll(/\/dashboard\/assets\/[0-9a-f]{12}\/[\w.-]+/g)].map((m) => m[0]);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('serves the page without a token, under a strict CSP', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).not.toContain('unsafe-inline');
    expect(DASHBOARD_CSP).not.toContain('unsafe-eval');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-cache');
    // No inline script: the only scripts have a same-origin src.
    for (const [tag] of html.matchAll(/<script[^>]*>/g)) expect(tag).toMatch(/src="\/dashboard\/assets\//);
    expect(html).toContain('data-endpoint="/graphql"');
  });

  it('serves every asset the page names, cacheable forever, gzipped when asked', async () => {
    expect(new Set(assets.map((a) => a.split('/').at(-1)))).toEqual(new Set(['icon.svg', 'dashboard.css', 'dashboard.js']));
    for (const path of assets) {
      const plain = await get(`${base}${path}`);
      expect(plain.status).toBe(200);
      expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(plain.headers['content-security-policy']).toBe(DASHBOARD_CSP);
      expect(plain.headers['x-content-type-options']).toBe('nosniff');
      const zipped = await get(`${base}${path}`, { 'accept-encoding': 'gzip' });
      const body = zipped.headers['content-encoding'] === 'gzip' ? gunzipSync(zipped.body) : zipped.body;
      expect(body.equals(plain.body)).toBe(true);
    }
    const js = await get(`${base}${assets.find((a) => a.endsWith('.js'))}`, { 'accept-encoding': 'gzip' });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['content-encoding']).toBe('gzip');
    // Small: well under 50 KiB over the wire.
    expect(js.body.length).toBeLessThan(50 * 1024);
  });

  it('answers 404 for an unknown asset, an old version or a path below the page', async () => {
    const js = assets.find((a) => a.endsWith('.js'))!;
    const dir = js.slice(0, js.lastIndexOf('/'));
    expect((await get(`${base}${dir}/nope.js`)).status).toBe(404);
    expect((await get(`${base}${dir}/..%2Fpackage.json`)).status).toBe(404);
    expect((await get(`${base}/dashboard/assets/000000000000/dashboard.js`)).status).toBe(404);
    expect((await get(`${base}/dashboard/anything`)).status).toBe(404);
  });

  it('loads nothing from elsewhere: no remote URL in the page or its files', async () => {
    for (const path of ['/dashboard', ...assets]) {
      const text = (await get(`${base}${path}`)).body.toString('utf8');
      expect(text).not.toMatch(/<script[^>]*\ssrc\s*=\s*["']?(?:https?:)?\/\//i);
      expect(text).not.toMatch(/<link[^>]*\shref\s*=\s*["']?(?:https?:)?\/\//i);
      expect(text).not.toMatch(/@import|url\(\s*["']?(?:https?:)?\/\//i);
      expect(text).not.toMatch(/sourceMappingURL/);
      expect(text).not.toMatch(/unpkg\.com|jsdelivr|cdnjs|googleapis\.com|gstatic\.com|esm\.sh|skypack/i);
      // The only absolute URLs are XML namespaces (preact's createElementNS, the icon), never loaded.
      const namespaces = new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1998/Math/MathML']);
      expect([...text.matchAll(/https?:\/\/[^\s"'`)<>\\]+/g)].map((m) => m[0]).filter((u) => !namespaces.has(u))).toEqual([]);
    }
  });
});

describe('the committed build', () => {
  it('is what `npm run build:dashboard` makes of src/dashboard/app (it has not drifted)', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build-dashboard.mjs', '--check'], { cwd: root }).catch((err: { stderr?: string }) => {
      throw new Error(err.stderr || String(err));
    });
    expect(stdout).toContain('up to date');
  });
});
