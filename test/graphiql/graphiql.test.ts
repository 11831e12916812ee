import { get as httpGet, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import express from 'express';
import { GRAPHIQL_CSP, mountGraphiql, renderGraphiqlBundle, type GraphiqlBundle } from '../../src/http/graphiql.js';
import { startFakeApi, type FakeApi } from './fake-api.js';

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

/**
 * Hosts that occur in the GraphiQL bundle only as text, never as something loaded: XML
 * namespaces (w3.org, used with createElementNS), JSON-Schema `$schema` ids, links in error
 * messages, help texts and licence comments, and placeholder examples. The browser test proves
 * that none is requested. A new host here after an upgrade needs a look before it is added.
 */
const TEXT_ONLY_HOSTS = new Set([
  'www.w3.org',
  'lists.w3.org',
  'json-schema.org',
  'react.dev',
  'github.com',
  'prettier.io',
  'yarnpkg.com',
  'commonmark.org',
  'en.wikipedia.org',
  'www.rapidtables.com',
  '24ways.org',
  'www.example.com',
  'dummyhostname.com',
  'www.onegraph.com',
  'microsoft.com',
  'code.visualstudio.com',
  'radix-ui.com',
]);

/** Anything that would make a browser load from elsewhere, in any of the page's files. */
const REMOTE_LOAD_PATTERNS: [string, RegExp][] = [
  ['script src to another origin', /<script[^>]*\ssrc\s*=\s*["']?(?:https?:)?\/\//i],
  ['link href to another origin', /<link[^>]*\shref\s*=\s*["']?(?:https?:)?\/\//i],
  ['CSS @import', /@import\s+(?:url\()?\s*["']?(?:https?:)?\/\//i],
  ['CSS url() to another origin', /url\(\s*["']?(?:https?:)?\/\//i],
  ['source map on another origin', /sourceMappingURL=(?:https?:)?\/\//i],
  ['a CDN', /unpkg\.com|jsdelivr|cdnjs|cdn\.[a-z]|[a-z]\.cdn\b|googleapis\.com|gstatic\.com|esm\.sh|skypack/i],
];

describe('GET /graphiql', () => {
  let api: FakeApi;
  let page: Raw;
  let html: string;
  const files = new Map<string, Raw>();

  beforeAll(async () => {
    api = await startFakeApi();
    page = await get(`${api.url}/graphiql`);
    html = page.body.toString('utf8');
    // Every file the page references, and every file those reference (Monaco's workers).
    const queue = [html];
    while (queue.length > 0) {
      const text = queue.shift()!;
      for (const [path] of text.matchAll(/\/graphiql\/assets\/[0-9a-f]{12}\/[\w.-]+/g)) {
        if (files.has(path)) continue;
        const file = await get(`${api.url}${path}`);
        files.set(path, file);
        if (/javascript|css/.test(String(file.headers['content-type']))) queue.push(file.body.toString('utf8'));
      }
    }
  });
  afterAll(() => api?.close());

  it('is served as HTML, without a token, with a strict policy and revalidation', () => {
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html; charset=utf-8$/);
    expect(page.headers['content-security-policy']).toBe(GRAPHIQL_CSP);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(api.http.filter((r) => r.path.startsWith('/graphiql')).every((r) => r.authorization === undefined)).toBe(true);

    const csp = Object.fromEntries(GRAPHIQL_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]); // no inline script, no eval
    expect(csp['worker-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'", 'ws:', 'wss:']);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
  });

  it('has no inline script and references only its own files', () => {
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBe(2);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\ssrc="\/graphiql\/assets\/[0-9a-f]{12}\/[\w.-]+"/);
      expect(body!.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i); // no inline event handlers
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i); // no absolute URL of any kind
    const refs = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(3);
    for (const ref of refs) expect(ref).toMatch(/^\/graphiql\/assets\/[0-9a-f]{12}\/[\w.-]+$/);
  });

  it('serves every referenced file, cacheable forever, under the same policy', () => {
    expect([...files.keys()].map((p) => p.split('/').pop()).sort()).toEqual([
      'boot.js',
      'editor.worker.js',
      'graphiql.css',
      'graphiql.js',
      'graphql.worker.js',
      'icon.svg',
      'json.worker.js',
    ]);
    for (const [path, file] of files) {
      expect(file.status, path).toBe(200);
      expect(file.headers['cache-control'], path).toBe('public, max-age=31536000, immutable');
      expect(file.headers['content-security-policy'], path).toBe(GRAPHIQL_CSP);
      expect(file.headers['x-content-type-options'], path).toBe('nosniff');
      const type = String(file.headers['content-type']);
      if (path.endsWith('.js')) expect(type, path).toBe('text/javascript; charset=utf-8');
      if (path.endsWith('.css')) expect(type, path).toBe('text/css; charset=utf-8');
      if (path.endsWith('.svg')) expect(type, path).toMatch(/^image\//);
    }
  });

  it('loads nothing from elsewhere: no CDN, no remote script, style, font or import', () => {
    const texts: [string, string][] = [
      ['/graphiql', html],
      ...[...files].filter(([p]) => !p.endsWith('.svg')).map(([p, f]) => [p, f.body.toString('utf8')] as [string, string]),
    ];
    for (const [path, text] of texts) {
      for (const [what, pattern] of REMOTE_LOAD_PATTERNS) {
        const hit = pattern.exec(text);
        expect(hit ? `${what}: …${text.slice(Math.max(0, hit.index - 60), hit.index + 80)}…` : null, path).toBeNull();
      }
    }
    // CSS: fonts and images are inlined.
    const css = texts.find(([p]) => p.endsWith('.css'))![1];
    const urls = [...css.matchAll(/url\(\s*["']?([^"')]*)/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.slice(0, 40)).toMatch(/^data:/);
    // Absolute URLs that occur as text only: a reviewed list of hosts.
    const hosts = new Set<string>();
    for (const [, text] of texts) {
      for (const [, host] of text.matchAll(/\b(?:https?|wss?):\/\/([a-z0-9.-]+\.[a-z]{2,})/gi)) hosts.add(host!.toLowerCase());
    }
    expect(hosts.has('www.w3.org')).toBe(true); // the scan does see the bundle's text
    expect([...hosts].filter((h) => !TEXT_ONLY_HOSTS.has(h)).sort()).toEqual([]);
  });

  it('takes the token from the fragment and removes it from the address bar (boot.js)', () => {
    const boot = [...files].find(([p]) => p.endsWith('/boot.js'))![1].body.toString('utf8');
    expect(boot).toContain('location.hash');
    expect(boot).toContain('history.replaceState');
    expect(boot).toContain("subscriptionsProtocol: 'WS'");
    expect(boot).toContain('connectionParams');
    expect(boot).toContain('"endpoint":"/graphql"');
    expect(boot).toContain('jobs(first: 10)');
    // The page's own requests never carry a token in the URL.
    for (const r of api.http) expect(r.url).not.toMatch(/token/i);
  });

  it('gzips large files for clients that accept it, with distinct ETags and 304s', async () => {
    const path = [...files.keys()].find((p) => p.endsWith('/graphiql.js'))!;
    const plain = files.get(path)!;
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await get(`${api.url}${path}`, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 2);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    const again = await get(`${api.url}${path}`, { 'if-none-match': String(plain.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    const pageAgain = await get(`${api.url}/graphiql`, { 'if-none-match': String(page.headers.etag) });
    expect(pageAgain.status).toBe(304);
  });

  it('answers 404 for unknown files and stale versions', async () => {
    const path = [...files.keys()].find((p) => p.endsWith('/graphiql.js'))!;
    expect((await get(`${api.url}${path.replace(/[0-9a-f]{12}/, '000000000000')}`)).status).toBe(404);
    expect((await get(`${api.url}${path.replace('graphiql.js', 'nope.js')}`)).status).toBe(404);
    expect((await get(`${api.url}${path.replace('graphiql.js', '..%2Fpackage.json')}`)).status).toBe(404);
  });
});

describe('renderGraphiqlBundle', () => {
  it('honours the endpoint, path and title options and versions its asset URLs by content', () => {
    const a: GraphiqlBundle = renderGraphiqlBundle({ endpoint: '/api/graphql', path: '/tools/graphiql/', title: 'Ops <console>' });
    expect(a.path).toBe('/tools/graphiql');
    expect(a.assetBase).toMatch(/^\/tools\/graphiql\/assets\/[0-9a-f]{12}$/);
    const html = a.html.body.toString('utf8');
    expect(html).toContain('<title>Ops &lt;console&gt;</title>');
    expect(html).toContain(`src="${a.assetBase}/graphiql.js"`);
    const boot = a.assets.get('boot.js')!.body.toString('utf8');
    expect(boot).toContain('"endpoint":"/api/graphql"');
    expect(boot).toContain('"title":"Ops \\u003cconsole\\u003e"'); // safe in a script
    expect(boot).toContain(`${a.assetBase}/graphql.worker.js`);
    const b = renderGraphiqlBundle();
    expect(b.assetBase).not.toBe(a.assetBase);
    expect(renderGraphiqlBundle().assetBase).toBe(b.assetBase); // stable across renders
  });

  it('mounts on any Express app and reports the page size', () => {
    const bundle = mountGraphiql(express());
    // The GraphiQL bundle is large (React, Monaco, three workers); measured, not a limit.
    expect(bundle.totalBytes).toBeGreaterThan(1_000_000);
    expect(bundle.totalBytes).toBeLessThan(20_000_000);
    console.info(`[graphiql] page + files: ${(bundle.totalBytes / 1e6).toFixed(2)} MB uncompressed`);
  });
});
