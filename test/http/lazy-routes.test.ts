import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lazyRoutes } from '../../src/http/lazy-routes.js';

/** Routes whose module is imported on first use answer as if mounted from the start. */
describe('lazyRoutes', () => {
  let server: Server;
  let base: string;
  let loads = 0;
  let failNext = false;
  beforeAll(async () => {
    const app = express();
    app.use(
      lazyRoutes('/page', async (router) => {
        loads++;
        if (failNext) {
          failNext = false;
          throw new Error('import failed');
        }
        router.get('/page', (_req, res) => void res.send('page'));
        router.get('/page/assets/:name', (req, res) => void res.send(`asset ${req.params.name}`));
      }),
    );
    app.get('/other', (_req, res) => void res.send('other'));
    app.use((_req, res) => void res.status(404).send('outer 404'));
    app.use(((err: Error, _req, res, _next) => void res.status(500).send(`outer error: ${err.message}`)) as ErrorRequestHandler);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string, method = 'GET') => {
    const res = await fetch(`${base}${path}`, { method });
    return `${res.status} ${await res.text()}`;
  };

  it('loads nothing for other paths, nor for other methods on its own', async () => {
    expect(await get('/other')).toBe('200 other');
    expect(await get('/pages')).toBe('404 outer 404');
    expect(await get('/page', 'POST')).toBe('404 outer 404');
    expect(loads).toBe(0);
  });

  it('a failed load goes to the error handlers, and the next request loads again', async () => {
    failNext = true;
    expect(await get('/page')).toBe('500 outer error: import failed');
    expect(loads).toBe(1);
    expect(await get('/page')).toBe('200 page');
    expect(loads).toBe(2);
  });

  it('loads once, then answers as Express would (case, trailing slash, params, fall-through)', async () => {
    const answers = await Promise.all(['/page', '/PAGE/', '/page/assets/a.js', '/Page/assets/b.css', '/page/nope/deeper'].map((p) => get(p)));
    expect(answers).toEqual(['200 page', '200 page', '200 asset a.js', '200 asset b.css', '404 outer 404']);
    expect(loads).toBe(2);
  });
});
