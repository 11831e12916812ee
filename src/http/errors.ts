import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Stable codes of HTTP-level failures (outside GraphQL's own error handling). */
const CODES: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

const MESSAGES: Record<number, string> = {
  400: 'Bad request',
  404: 'Not found',
  413: 'Request body too large',
  415: 'Unsupported request encoding or media type',
  500: 'Internal server error',
};

/** JSON for the API (under `graphqlPath`, wherever this handler is mounted) and anything that asks for JSON; one plain line elsewhere (GraphiQL's assets). */
function send(req: Parameters<RequestHandler>[0], res: Parameters<RequestHandler>[1], status: number, graphqlPath: string): void {
  const code = CODES[status] ?? (status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST');
  const message = MESSAGES[status] ?? (status >= 500 ? MESSAGES[500] : MESSAGES[400]);
  res.status(status);
  if (`${req.baseUrl}${req.path}`.startsWith(graphqlPath)) res.json({ errors: [{ message, extensions: { code } }] });
  else if (req.accepts(['text/plain', 'application/json']) === 'application/json') res.json({ error: { code, message } });
  else res.type('text/plain').send(`${status} ${message} (${code})\n`);
}

/** The last route: anything no route answered. */
export const notFound =
  (graphqlPath: string): RequestHandler =>
  (req, res) =>
    send(req, res, 404, graphqlPath);

/**
 * The last error handler: every error that reached Express (a malformed URL, a body that cannot
 * be decoded, a bug) becomes a status, a stable code and a fixed message — never a stack trace
 * or a path of the file system, whatever NODE_ENV says. The details go to the log.
 */
export function lastErrorHandler(log: Logger, graphqlPath: string): ErrorRequestHandler {
  return (err: { status?: unknown; statusCode?: unknown; type?: unknown }, req, res, _next) => {
    const given = Number(err?.status ?? err?.statusCode);
    const status = Number.isInteger(given) && given >= 400 && given < 600 ? given : 500;
    if (status >= 500) log.error({ err, method: req.method, path: req.path }, 'HTTP request failed');
    else log.info({ status, type: err?.type, method: req.method }, 'HTTP request refused');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    send(req, res, status, graphqlPath);
  };
}
