import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

/** A failure the CLI reports as one line (`error CODE: message`) and a non-zero exit. */
export class CliError extends Error {
  /** @param details the API error's `extensions.details`, when it had some */
  constructor(readonly code: string, message: string, readonly details?: Record<string, unknown>) {
    super(message);
  }
}

export interface Endpoint {
  /** The server, e.g. http://127.0.0.1:4000 (CRONQL_URL). */
  url: string;
  /** Bearer token (CRONQL_TOKEN). */
  token?: string;
}

/** One GraphQL operation over HTTP with the project's typed documents; errors become CliError. */
export async function request<R, V>(endpoint: Endpoint, document: TypedDocumentNode<R, V>, variables?: V): Promise<R> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.token) headers.authorization = `Bearer ${endpoint.token}`;
  let res: Response;
  try {
    res = await fetch(`${endpoint.url.replace(/\/$/, '')}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: print(document), variables }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    throw new CliError('UNREACHABLE', `cannot reach ${endpoint.url} (${(err as Error).message}); set CRONQL_URL or --url`);
  }
  let body: { data?: R; errors?: { message: string; extensions?: { code?: string; details?: Record<string, unknown> } }[] };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new CliError('BAD_RESPONSE', `${endpoint.url} answered ${res.status} without a GraphQL body`);
  }
  if (body.errors?.length) {
    const [first] = body.errors;
    throw new CliError(first.extensions?.code ?? 'ERROR', first.message, first.extensions?.details);
  }
  if (!body.data) throw new CliError('BAD_RESPONSE', `${endpoint.url} answered ${res.status} without data`);
  return body.data;
}
