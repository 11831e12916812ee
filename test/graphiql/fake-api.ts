import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { buildSchema, graphql } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { mountGraphiql, type GraphiqlBundle } from '../../src/http/graphiql.js';

/**
 * A stand-in for cronql's API, so the GraphiQL tests do not depend on it: a tiny schema (enough
 * for the default query, introspection and one subscription) over HTTP and graphql-ws, which
 * records what each request carried.
 */
const schema = buildSchema(/* GraphQL */ `
  type Job { id: ID!  key: String!  status: String!  nextRunAt: String }
  type JobConnection { nodes: [Job!]! }
  type Query { jobs(first: Int = 20): JobConnection! }
  type Subscription { tick(count: Int = 3): Int! }
`);

export const FAKE_JOB_KEY = 'nightly-report-7f3a';

const rootValue = {
  jobs: ({ first }: { first: number }) => ({
    nodes: [{ id: 'job-1', key: FAKE_JOB_KEY, status: 'ACTIVE', nextRunAt: '2030-01-01T00:00:00.000Z' }].slice(0, first),
  }),
  tick: async function* ({ count }: { count: number }) {
    for (let i = 1; i <= count; i++) {
      await new Promise((r) => setTimeout(r, 50));
      yield { tick: i * 1000 + 7 };
    }
  },
};

export interface RecordedHttp {
  method: string;
  path: string;
  url: string;
  authorization?: string;
  operationName?: string;
  query?: string;
}

export interface FakeApi {
  url: string;
  bundle: GraphiqlBundle;
  http: RecordedHttp[];
  /** connectionParams of every graphql-ws connection. */
  wsConnections: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function startFakeApi(requiredToken?: string): Promise<FakeApi> {
  const http: RecordedHttp[] = [];
  const wsConnections: Record<string, unknown>[] = [];
  const app = express();
  app.disable('x-powered-by');
  app.use((req, res, next) => {
    const entry: RecordedHttp = { method: req.method, path: req.path, url: req.originalUrl, authorization: req.get('authorization') };
    http.push(entry);
    res.locals.entry = entry;
    next();
  });
  const bundle = mountGraphiql(app, { endpoint: '/graphql' });
  app.post('/graphql', express.json(), async (req, res) => {
    const entry = res.locals.entry as RecordedHttp;
    const body = req.body as { query?: string; variables?: Record<string, unknown>; operationName?: string };
    entry.operationName = body.operationName;
    entry.query = body.query;
    if (requiredToken && req.get('authorization') !== `Bearer ${requiredToken}`) {
      res.json({ errors: [{ message: 'no or unknown token', extensions: { code: 'UNAUTHENTICATED' } }] });
      return;
    }
    res.json(await graphql({ schema, rootValue, source: body.query ?? '', variableValues: body.variables, operationName: body.operationName }));
  });

  const server: Server = createServer(app);
  const wss = new WebSocketServer({ server, path: '/graphql' });
  const ws = useServer(
    {
      schema,
      roots: { query: rootValue, subscription: { tick: rootValue.tick } },
      onConnect: (ctx) => {
        wsConnections.push({ ...(ctx.connectionParams ?? {}) });
        return !requiredToken || ctx.connectionParams?.authorization === `Bearer ${requiredToken}`;
      },
    },
    wss,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bundle,
    http,
    wsConnections,
    async close() {
      await ws.dispose();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
