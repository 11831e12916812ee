import { createHash, timingSafeEqual } from 'node:crypto';
import type { IRouter } from 'express';
import type { Cronql } from '../app.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * `GET /metrics`: Prometheus text format. Open like `/healthz` unless CRONQL_METRICS_TOKEN is set;
 * then it needs `Authorization: Bearer <token>` (compared in constant time).
 */
export function mountMetrics(app: IRouter, cronql: Cronql, token: string | undefined, base = ''): void {
  const expected = token ? digest(`Bearer ${token}`) : null;
  app.get(`${base}/metrics`, async (req, res, next) => {
    try {
      if (expected && !timingSafeEqual(digest(req.headers.authorization ?? ''), expected)) {
        res.status(401).set('WWW-Authenticate', 'Bearer').type('text/plain').send('401 Unauthenticated (UNAUTHENTICATED)\n');
        return;
      }
      res.type(cronql.metrics.contentType()).send(await cronql.metrics.text());
    } catch (err) {
      next(err);
    }
  });
}
