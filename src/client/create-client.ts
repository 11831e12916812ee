import type { CronqlApiError } from './error.js';
import { postOperation } from './http.js';
import { createWsTransport, type SubscriptionSink, type WebSocketOptions } from './websocket.js';

/**
 * A GraphQL document typed with its result and variables: the generated documents of
 * `cronql/client` (and any codegen `TypedDocumentString`). Sent as its text, so no GraphQL
 * library is needed at run time. A parsed `DocumentNode` is refused by the types (`kind`): its
 * text is not its `toString()`.
 */
export interface TypedDocument<R, V> {
  __apiType?: (variables: V) => R;
  toString(): string;
  kind?: never;
}

/** The variables argument: required when the operation has a required variable. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export type VariablesOf<V> = {} extends V ? [variables?: V] : [variables: V];

export interface ClientOptions {
  /**
   * The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql` (relative to the page in a
   * browser). A bare origin (`http://127.0.0.1:4000`) means its `/graphql`. Subscriptions use the
   * same URL with `ws:`/`wss:`.
   */
  url: string;
  /** A token of the server (CRONQL_ADMIN_TOKEN for mutations, CRONQL_VIEWER_TOKEN to read). */
  token?: string;
  /** Another fetch (a test double, a proxy agent); default: the global one. */
  fetch?: typeof fetch;
  /** A WebSocket class (e.g. `ws`'s); default: the global one, else the `ws` package in Node. */
  webSocketImpl?: unknown;
  /** A request without an answer after this long fails NETWORK; 0: no limit. Default 30 000. */
  timeoutMs?: number;
  /** Extra headers on every HTTP request. */
  headers?: Record<string, string>;
  /** graphql-ws options for subscriptions (keep-alive, retries, lazy, connection events). */
  ws?: WebSocketOptions;
}

export interface RequestOptions {
  /** Aborting it fails the request with NETWORK. */
  signal?: AbortSignal;
}

/** A subscription as an async iterator of typed results; `unsubscribe()` or `break` ends it. */
export interface CronqlSubscription<R> extends AsyncIterableIterator<R> {
  unsubscribe(): void;
}

export interface CronqlClient {
  /** The endpoint requests go to. */
  readonly url: string;
  /** A query or a mutation: its data, or a CronqlApiError. */
  request<R, V>(document: TypedDocument<R, V>, ...args: [...VariablesOf<V>, options?: RequestOptions]): Promise<R>;
  /**
   * A subscription. With a sink: results go to `sink.next`, the returned function ends it.
   * Without: an async iterator of results, which throws the CronqlApiError that ends it.
   */
  subscribe<R, V>(document: TypedDocument<R, V>, variables: V, sink: SubscriptionSink<R>): () => void;
  subscribe<R, V>(document: TypedDocument<R, V>, ...args: VariablesOf<V>): CronqlSubscription<R>;
  /** Closes the WebSocket, if one was opened; requests over HTTP keep working. */
  dispose(): Promise<void>;
}

export function createClient(options: ClientOptions): CronqlClient {
  const url = endpointOf(options.url);
  const fetchImpl = options.fetch ?? ((...args: Parameters<typeof fetch>) => globalThis.fetch(...args));
  const http = { endpoint: url, token: options.token, fetch: fetchImpl, timeoutMs: options.timeoutMs ?? 30_000, headers: options.headers ?? {} };
  const wsUrl = url.replace(/^http/, 'ws');
  const ws = createWsTransport(wsUrl, options.token, options.webSocketImpl, { lazy: true, ...options.ws });

  return {
    url,
    request<R, V>(document: TypedDocument<R, V>, ...args: [...VariablesOf<V>, options?: RequestOptions]): Promise<R> {
      const [variables, requestOptions] = args as unknown as [V | undefined, RequestOptions | undefined];
      return postOperation<R>(http, document.toString(), variables, requestOptions?.signal);
    },
    subscribe<R, V>(document: TypedDocument<R, V>, variables?: V, sink?: SubscriptionSink<R>): never {
      if (sink) return ws.subscribe(document.toString(), variables, sink) as never;
      return iterate<R>((s) => ws.subscribe(document.toString(), variables, s)) as never;
    },
    dispose: () => ws.dispose(),
  };
}

/**
 * The endpoint as an absolute http(s) URL: relative to the page in a browser, `/graphql` for a bare
 * origin. A URL that cannot be one is a mistake in the caller's code: a TypeError, at once.
 */
function endpointOf(raw: string): string {
  const base = (globalThis as { location?: { href?: string } }).location?.href;
  let parsed: URL;
  try {
    parsed = new URL(raw, base);
  } catch {
    throw new TypeError(`cronql/client: not a URL: ${JSON.stringify(raw)} (give the GraphQL endpoint, the URL ending in /graphql)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`cronql/client: the URL must be http: or https:, not ${parsed.protocol} (subscriptions use the same URL over ws:/wss:)`);
  }
  if (parsed.pathname === '/') parsed.pathname = '/graphql';
  return parsed.href;
}

/** A sink-based subscription as an async iterator (results queue while nobody reads). */
function iterate<R>(start: (sink: SubscriptionSink<R>) => () => void): CronqlSubscription<R> {
  const queue: R[] = [];
  let failure: CronqlApiError | undefined;
  let done = false;
  let waiting: { resolve: (r: IteratorResult<R>) => void; reject: (e: unknown) => void } | undefined;
  const settle = () => {
    if (!waiting) return;
    const w = waiting;
    if (queue.length > 0) {
      waiting = undefined;
      w.resolve({ value: queue.shift() as R, done: false });
    } else if (failure) {
      waiting = undefined;
      const err = failure;
      failure = undefined;
      w.reject(err);
    } else if (done) {
      waiting = undefined;
      w.resolve({ value: undefined, done: true });
    }
  };
  const stop = start({
    next: (data) => {
      queue.push(data);
      settle();
    },
    error: (err) => {
      failure = err;
      done = true;
      settle();
    },
    complete: () => {
      done = true;
      settle();
    },
  });
  const finish = (): IteratorResult<R> => {
    stop();
    done = true;
    queue.length = 0;
    failure = undefined;
    settle();
    return { value: undefined, done: true };
  };
  const subscription: CronqlSubscription<R> = {
    next: () =>
      new Promise<IteratorResult<R>>((resolve, reject) => {
        if (waiting) return reject(new Error('next() called again before the previous result arrived'));
        waiting = { resolve, reject };
        settle();
      }),
    return: async () => finish(),
    throw: async (err?: unknown) => {
      finish();
      throw err;
    },
    unsubscribe: () => void finish(),
    [Symbol.asyncIterator]() {
      return subscription;
    },
  };
  return subscription;
}
