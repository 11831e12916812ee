import type { IRouter } from 'express';
import type { Cronql } from '../app.js';

/**
 * `/healthz`: the process lives (never touches the database). `/readyz`: the database answers
 * within a second and the runtime (if any) is armed and reaches it; the body names each check.
 */
export function mountHealth(app: IRouter, cronql: Cronql, base = ''): void {
  app.get(`${base}/healthz`, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(`${base}/readyz`, async (_req, res) => {
    const { ready, checks, lastHour } = await cronql.readiness();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready', checks, lastHour });
  });
}
