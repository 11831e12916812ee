import { randomBytes, randomUUID } from 'node:crypto';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  print,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLInputType,
  type GraphQLScalarType,
} from 'graphql';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { createCronql, type Cronql, type CronqlOptions } from '../../src/app.js';
import { startHttpServer, type HttpServer, type HttpServerOptions } from '../../src/http/server.js';
import { createTestDatabase } from '../support/db.js';

/** A cronql with its HTTP/WebSocket server on a free port, over a fresh database. */
export interface Api {
  cronql: Cronql;
  http: HttpServer;
  url: string;
  wsUrl: string;
  adminToken: string;
  viewerToken: string;
  close(): Promise<void>;
}

export async function startApi(options: CronqlOptions = {}, http: Partial<HttpServerOptions> = {}): Promise<Api> {
  const db = await createTestDatabase();
  const cronql = createCronql({ databaseUrl: db.url, ...options });
  await cronql.start();
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const viewerToken = `viewer-${randomBytes(16).toString('hex')}`;
  const server = await startHttpServer(cronql, { host: '127.0.0.1', port: 0, role: cronql.role, adminToken, viewerToken, ...http });
  return {
    cronql,
    http: server,
    url: `${server.url}/graphql`,
    wsUrl: `${server.url.replace(/^http/, 'ws')}/graphql`,
    adminToken,
    viewerToken,
    async close() {
      await server.close();
      await cronql.stop();
      await db.drop();
    },
  };
}

export interface GqlResponse<R> {
  status: number;
  data?: R | null;
  errors?: GraphQLFormattedError[];
}

/** POSTs a typed document (printed, as any client would send it) and returns the parsed response. */
export async function gql<R, V>(
  url: string,
  document: TypedDocumentNode<R, V> | DocumentNode | string,
  variables?: V,
  token?: string | null,
): Promise<GqlResponse<R>> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const query = typeof document === 'string' ? document : print(document);
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: R; errors?: GraphQLFormattedError[] };
  return { status: res.status, ...body };
}

/** The data of a response that must have succeeded. */
export async function ok<R, V>(url: string, document: TypedDocumentNode<R, V>, variables: V, token: string): Promise<R> {
  const res = await gql(url, document, variables, token);
  if (res.errors?.length || !res.data) throw new Error(`GraphQL errors: ${JSON.stringify(res.errors)}`);
  return res.data;
}

/** The codes of a response's errors. */
export const codes = (res: { errors?: readonly GraphQLFormattedError[] }): unknown[] =>
  (res.errors ?? []).map((e) => e.extensions?.code);

export function wsClient(wsUrl: string, token?: string | null): Client {
  return createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

/**
 * A query's or mutation's result over a WebSocket: resolves with its result (or its errors), or
 * rejects with the close event. The operation completes by itself after its one result; it is
 * not disposed early (graphql-ws 6's client would then release its connection lock twice and
 * close the socket under the other subscriptions).
 */
export function wsOnce<R, V>(client: Client, document: TypedDocumentNode<R, V> | DocumentNode | string, variables?: V): Promise<{
  data?: R | null;
  errors?: readonly GraphQLFormattedError[];
}> {
  const query = typeof document === 'string' ? document : print(document);
  return new Promise((resolve, reject) => {
    let result: { data?: R | null; errors?: readonly GraphQLFormattedError[] } | undefined;
    client.subscribe<R>(
      { query, variables: variables as Record<string, unknown> | undefined },
      {
        next: (value) => {
          result ??= value;
        },
        error: (err) => {
          // graphql-ws reports operation errors as an array of GraphQL errors, a refused socket as its close event.
          if (Array.isArray(err)) resolve({ errors: err as GraphQLFormattedError[] });
          else reject(err);
        },
        complete: () => (result ? resolve(result) : reject(new Error('completed without a result'))),
      },
    );
  });
}

/**
 * A live subscription whose events are kept, so a test can wait for the one it expects (no
 * sleeping: `next` resolves as soon as a matching event has arrived).
 */
export class Feed<R> {
  readonly events: R[] = [];
  readonly errors: unknown[] = [];
  private waiters: { match: (e: R) => boolean; resolve: (e: R) => void }[] = [];
  private readonly dispose: () => void;

  constructor(client: Client, document: TypedDocumentNode<R, unknown> | DocumentNode, variables?: Record<string, unknown>) {
    this.dispose = client.subscribe<R>(
      { query: print(document), variables },
      {
        next: (value) => {
          if (value.errors) this.errors.push(value.errors);
          if (!value.data) return;
          this.events.push(value.data);
          for (const w of [...this.waiters]) {
            if (w.match(value.data)) {
              this.waiters.splice(this.waiters.indexOf(w), 1);
              w.resolve(value.data);
            }
          }
        },
        error: (err) => this.errors.push(err),
        complete: () => {},
      },
    );
  }

  /** The first event (already received or still to come) that matches. (The deadline is a safety net for a busy machine, not a speed goal.) */
  waitFor(match: (e: R) => boolean, timeoutMs = 30_000): Promise<R> {
    const seen = this.events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(this.events)} ${JSON.stringify(this.errors)}`)), timeoutMs);
      this.waiters.push({ match, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  }

  close(): void {
    this.dispose();
  }
}

/** Resolves when the client's socket is acknowledged, or rejects with the close event. */
export function connected(client: Client): Promise<void> {
  return new Promise((resolve, reject) => {
    const offs = [
      client.on('connected', () => (offs.forEach((off) => off()), resolve())),
      client.on('closed', (event) => (offs.forEach((off) => off()), reject(event))),
    ];
  });
}

/** Every row of the jobs, runs and secrets tables, for "nothing changed" assertions. */
export async function snapshot(cronql: Cronql): Promise<string> {
  const jobs = await cronql.pool.query('SELECT * FROM cron_job_definitions ORDER BY id');
  const runs = await cronql.pool.query('SELECT * FROM cron_job_runs ORDER BY id');
  const secrets = await cronql.pool.query('SELECT * FROM cron_secrets ORDER BY name');
  return JSON.stringify({ jobs: jobs.rows, runs: runs.rows, secrets: secrets.rows });
}

/** A well-typed value for an input type: required fields only, first enum value, a random id. */
export function sample(type: GraphQLInputType): unknown {
  if (type instanceof GraphQLNonNull) return sample(type.ofType);
  if (type instanceof GraphQLList) return [sample(type.ofType)];
  if (type instanceof GraphQLEnumType) return type.getValues()[0].value;
  if (type instanceof GraphQLInputObjectType) {
    return Object.fromEntries(
      Object.values(type.getFields())
        .filter((f) => f.type instanceof GraphQLNonNull)
        .map((f) => [f.name, sample(f.type)]),
    );
  }
  const scalar = type as GraphQLScalarType;
  switch (scalar.name) {
    case 'ID':
      return randomUUID();
    case 'Int':
      return 1;
    case 'Float':
      return 1.5;
    case 'Boolean':
      return true;
    case 'DateTime':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'JSON':
      return {};
    default:
      return 'made-up';
  }
}
