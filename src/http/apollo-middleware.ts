import { HeaderMap, type ApolloServer, type BaseContext, type HTTPGraphQLRequest } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Apollo Server behind Express, as `@as-integrations/express5` does it, less two costs paid on
 * every answer: Express's `res.send` hashes the whole body for an ETag (SHA-1 of a 50-run page,
 * ≈ 2 % of a page read's CPU here) that no GraphQL client uses — answers are `no-store` — and
 * copies the text into a Buffer, so that headers and body leave in two writes. Here the text is
 * handed to Node's `res.end`, which sends headers and body in one. The JSON body is parsed before
 * (`express.json`); what Apollo answers (status, headers, body) is written as it says.
 */
export function apolloMiddleware<T extends BaseContext>(server: ApolloServer<T>, context: (req: Request, res: Response) => Promise<T>): RequestHandler {
  server.assertStarted('apolloMiddleware()');
  return (req, res, next) => {
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const url = req.url;
    const query = url.indexOf('?');
    const httpGraphQLRequest: HTTPGraphQLRequest = {
      method: req.method.toUpperCase(),
      headers,
      search: query === -1 ? '' : url.slice(query),
      body: req.body,
    };
    server
      .executeHTTPGraphQLRequest({ httpGraphQLRequest, context: () => context(req, res) })
      .then(async (answer) => {
        for (const [key, value] of answer.headers) res.setHeader(key, value);
        res.statusCode = answer.status ?? 200;
        if (answer.body.kind === 'complete') {
          res.setHeader('Content-Length', Buffer.byteLength(answer.body.string));
          res.end(answer.body.string);
          return;
        }
        // Incremental delivery (@defer), should a schema ever use it.
        for await (const chunk of answer.body.asyncIterator) res.write(chunk);
        res.end();
      })
      .catch(next);
  };
}
