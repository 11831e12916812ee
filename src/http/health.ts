import type { Express } from 'express';
import type { Cronql } from '../app.js';

/** `/healthz`: the process lives. `/readyz`: the database answers and the runtime (if any) is armed. */
export function mountHealth(app: Express, cronql: Cronql): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = await cronql.ready();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });
}
