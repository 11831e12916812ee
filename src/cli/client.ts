import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
// The printer alone: `graphql`'s index loads the whole library (validation, execution, the type
// system) before every command, and the CLI only ever prints its documents.
import { print } from 'graphql/language/printer.js';
import { createClient, type CronqlClient, type TypedDocument, type VariablesOf } from '../client/create-client.js';
import { CronqlApiError } from '../client/error.js';

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

/**
 * The CLI talks to the server through `cronql/client` (src/client). Its documents are the
 * parsed ones of src/client/*.graphql (shared with the end-to-end tests), sent as their text.
 */
const texts = new WeakMap<object, string>();
function asText<R, V>(document: TypedDocumentNode<R, V>): TypedDocument<R, V> {
  let text = texts.get(document);
  if (text === undefined) texts.set(document, (text = print(document)));
  return { toString: () => text };
}

function clientFor(endpoint: Endpoint): CronqlClient {
  // The server's own path under the URL given (which may carry a prefix of its own).
  return createClient({ url: `${endpoint.url.replace(/\/$/, '')}/graphql`, token: endpoint.token, timeoutMs: 30_000 });
}

/** The client's error as the CLI's one line: the API's code, UNREACHABLE, or BAD_RESPONSE. */
function cliError(endpoint: Endpoint, err: unknown): unknown {
  if (!(err instanceof CronqlApiError)) return err;
  if (err.code === 'NETWORK') {
    const why = err.cause instanceof Error ? err.cause.message : err.message;
    return new CliError('UNREACHABLE', `cannot reach ${endpoint.url} (${why}); set CRONQL_URL or --url`);
  }
  return new CliError(err.code, err.message, err.details);
}

/** One GraphQL operation over HTTP with the project's typed documents; errors become CliError. */
export async function request<R, V>(endpoint: Endpoint, document: TypedDocumentNode<R, V>, variables?: V): Promise<R> {
  try {
    // V is generic here: whether its variables are optional is for the callers' types to say.
    return await clientFor(endpoint).request(asText(document), ...([variables] as unknown as VariablesOf<V>));
  } catch (err) {
    throw cliError(endpoint, err);
  }
}

/**
 * A subscription over the server's WebSocket: `onData` gets each result until it returns false,
 * the server ends it, or `stop` (e.g. on SIGINT) is called. Rejects with a CliError.
 */
export async function subscribe<R, V>(
  endpoint: Endpoint,
  document: TypedDocumentNode<R, V>,
  variables: V,
  onData: (data: R) => boolean,
  stopOn?: (stop: () => void) => void,
): Promise<void> {
  const client = createClient({ url: `${endpoint.url.replace(/\/$/, '')}/graphql`, token: endpoint.token, ws: { retryAttempts: 5 } });
  try {
    await new Promise<void>((resolve, reject) => {
      const stop = client.subscribe(asText(document), variables, {
        next: (data) => {
          if (!onData(data)) {
            stop();
            resolve();
          }
        },
        error: (err) => reject(new CliError('SUBSCRIPTION', err.message)),
        complete: () => resolve(),
      });
      stopOn?.(() => (stop(), resolve()));
    });
  } finally {
    await client.dispose();
  }
}
