import { createClient as createWsClient, type Client, type ClientOptions } from 'graphql-ws/client';
import { CronqlApiError, type GraphqlErrorPayload } from './error.js';

/** What a subscription's caller receives (`subscribe(document, variables, sink)`). */
export interface SubscriptionSink<R> {
  next(data: R): void;
  /** The subscription ended with this error; nothing follows it. */
  error?(error: CronqlApiError): void;
  /** The server ended the subscription. */
  complete?(): void;
}

/** graphql-ws options a caller may set besides the URL and the token (keep-alive, retries, events). */
export type WebSocketOptions = Omit<ClientOptions, 'url' | 'connectionParams' | 'webSocketImpl'>;

export interface WsTransport {
  /** Starts one subscription; the returned function ends it (idempotent). */
  subscribe<R>(query: string, variables: unknown, sink: SubscriptionSink<R>): () => void;
  dispose(): Promise<void>;
}

/**
 * Subscriptions over graphql-ws, on the HTTP endpoint's URL with a ws(s) scheme. The token goes
 * in `connectionParams.authorization` (the server checks it at connect and closes 4401 otherwise).
 * One socket per client, opened on the first subscription (graphql-ws's lazy mode unless the
 * caller says otherwise). Browsers and Node 22+ have a global WebSocket; on Node 20 the `ws`
 * package (a cronql dependency) is loaded, by a dynamic import a browser bundle never follows.
 */
export function createWsTransport(wsUrl: string, token: string | undefined, webSocketImpl: unknown, options: WebSocketOptions): WsTransport {
  let client: Promise<Client> | undefined;
  const connect = (): Promise<Client> =>
    (client ??= resolveWebSocket(webSocketImpl).then(
      (impl) =>
        createWsClient({
          ...options,
          url: wsUrl,
          webSocketImpl: impl,
          connectionParams: token ? { authorization: `Bearer ${token}` } : {},
        }),
      (err: unknown) => {
        client = undefined; // the next subscription tries again
        throw err;
      },
    ));

  return {
    subscribe<R>(query: string, variables: unknown, sink: SubscriptionSink<R>): () => void {
      let ended = false;
      let stop: (() => void) | undefined;
      const end = () => {
        ended = true;
        stop?.();
      };
      connect().then(
        (ws) => {
          if (ended) return;
          stop = ws.subscribe<R>(
            { query, variables: (variables ?? {}) as Record<string, unknown> },
            {
              next: (result) => {
                if (ended) return;
                if (result.errors?.length) {
                  // Like a request: an answer with errors is a failure, not partial data.
                  end();
                  sink.error?.(CronqlApiError.fromErrors(result.errors as GraphqlErrorPayload[]));
                } else if (result.data) {
                  sink.next(result.data);
                }
              },
              error: (err) => {
                if (ended) return;
                ended = true;
                sink.error?.(wsError(err, wsUrl));
              },
              complete: () => {
                if (ended) return;
                ended = true;
                sink.complete?.();
              },
            },
          );
        },
        (err) => {
          if (ended) return;
          ended = true;
          sink.error?.(new CronqlApiError('NETWORK', `cannot open a WebSocket to ${wsUrl} (${(err as Error).message})`, { cause: err }));
        },
      );
      return end;
    },
    async dispose() {
      const pending = client;
      client = undefined;
      if (pending) await (await pending.catch(() => undefined))?.dispose();
    },
  };
}

/** A close code the server uses (docs/api.md, "WebSocket close codes"), or a refusal's errors. */
function wsError(err: unknown, wsUrl: string): CronqlApiError {
  if (Array.isArray(err)) return CronqlApiError.fromErrors(err as GraphqlErrorPayload[]);
  const close = err as { code?: unknown; reason?: unknown } | undefined;
  if (close && typeof close.code === 'number') {
    const reason = typeof close.reason === 'string' && close.reason ? `: ${close.reason}` : '';
    const details = { closeCode: close.code, reason: close.reason };
    if (close.code === 4401 || close.code === 4403) {
      // 4401 at connect, 4403 when the socket's named token is revoked or expires; the reason names which.
      const code = close.reason === 'TOKEN_REVOKED' || close.reason === 'TOKEN_EXPIRED' ? close.reason : 'UNAUTHENTICATED';
      return new CronqlApiError(code, `the server refused the token (WebSocket closed ${close.code}${reason})`, { details, cause: err });
    }
    return new CronqlApiError('NETWORK', `the WebSocket to ${wsUrl} closed (${close.code}${reason})`, { details, cause: err });
  }
  return new CronqlApiError('NETWORK', `the WebSocket to ${wsUrl} failed (${err instanceof Error ? err.message : String(err)})`, { cause: err });
}

async function resolveWebSocket(given: unknown): Promise<unknown> {
  if (given) return given;
  const global = (globalThis as { WebSocket?: unknown }).WebSocket;
  if (global) return global;
  // A name in a variable: bundlers leave this import alone (a browser has WebSocket anyway).
  const name = 'ws';
  try {
    const mod = (await import(/* @vite-ignore */ /* webpackIgnore: true */ name)) as { default?: unknown; WebSocket?: unknown };
    return mod.default ?? mod.WebSocket;
  } catch (err) {
    throw new Error(`no WebSocket here and the "ws" package could not be loaded; pass webSocketImpl (${(err as Error).message})`);
  }
}
