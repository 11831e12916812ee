import express, { type RequestHandler, type Router } from 'express';

/**
 * Routes under `prefix` whose module is imported on the first request that may concern them,
 * not at start: GraphiQL's bundle alone is ~7.5 MB of JavaScript strings, about half a second of
 * a start to parse and hash on this machine, for a page nobody needs before `/readyz` says ready.
 * `load` mounts the routes (with their full paths) on the router it is given; a request they do
 * not answer goes on down the chain as if they had been mounted here from the start.
 */
export function lazyRoutes(prefix: string, load: (router: Router) => Promise<void>): RequestHandler {
  const lower = prefix.toLowerCase();
  let loaded: Promise<Router> | undefined;
  return (req, res, next) => {
    // Express matches paths case-insensitively, and `/x/` as `/x`: anything that may match passes.
    const path = req.path.toLowerCase();
    if ((req.method !== 'GET' && req.method !== 'HEAD') || (path !== lower && !path.startsWith(`${lower}/`))) {
      next();
      return;
    }
    loaded ??= (async () => {
      const router = express.Router();
      await load(router);
      return router;
    })();
    loaded.then(
      (router) => router(req, res, next),
      (err: unknown) => {
        // A failed import is retried by the next request rather than remembered.
        loaded = undefined;
        next(err);
      },
    );
  };
}
