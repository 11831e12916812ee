import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApolloServer, type ApolloServerOptionsWithGateway, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
  ApolloServerPluginSchemaReportingDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import cors from 'cors';
import express, { type ErrorRequestHandler, type IRouter, type RequestHandler } from 'express';
import {
  GraphQLError,
  getOperationAST,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type FormattedExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { SharedSubscriptions } from '../graphql/shared-subscriptions.js';
import { WebSocketServer } from 'ws';
import type { Cronql } from '../app.js';
import type { Logger } from '../logger.js';
import { authenticationError, TokenAuthenticator, type Tokens } from '../graphql/auth.js';
import type { GraphQLContext, Principal } from '../graphql/context.type.js';
import { formatError, formatWsResultError, graphQLError, unauthenticated } from '../graphql/errors.js';
import { LIMIT_RULES, LIMITS, costError } from '../graphql/limits.js';
import { Loaders } from '../graphql/loaders.js';
import { CompiledExecution } from '../graphql/compiled-execution.js';
import { scopeOf } from '../domain/scope.js';
import { cronqlSchema } from '../graphql/schema.js';
import { exceedsBytes, tooLargeError } from '../graphql/response-size.js';
import { apolloMiddleware } from './apollo-middleware.js';
import { requestErrorStatusPlugin } from './response-status.js';
import { WsOperationSpans, tracingPlugin } from './graphql-tracing.js';

export const GRAPHQL_PATH = '/graphql';

export interface GraphqlApiOptions extends Tokens {
  /** Where the API answers, over HTTP and WebSocket. @default "/graphql" */
  path?: string;
  /** Largest accepted HTTP request body or WebSocket message, in bytes. @default 1048576 (1 MiB) */
  maxBodyBytes?: number;
  /** Subscriptions one WebSocket may hold at once; the next is refused. @default 50 */
  maxSubscriptionsPerConnection?: number;
  /** Open WebSocket connections per process; the next is closed with 1013 (try again later). @default 5000 */
  maxConnections?: number;
  /** Largest answer to one operation (or one subscription event). @default 8388608 */
  maxResponseBytes?: number;
  /** Browser origins allowed to call the API (CORS); none beyond the same origin by default. */
  corsOrigins?: string[];
}

/** What may wait unsent on one WebSocket before its reader is judged too slow and closed (4429). */
export const MAX_SOCKET_BACKLOG_BYTES = 4 * 1024 * 1024;

/**
 * Calls `fn` at an instant, however far (a timer holds at most 2^31-1 ms: longer waits are made of
 * several); unref'd, so it never holds the process open.
 */
function at(when: Date, fn: () => void): { cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const wait = when.getTime() - Date.now();
    if (wait <= 0) return fn();
    timer = setTimeout(arm, Math.min(wait, 2 ** 31 - 1));
    timer.unref();
  };
  arm();
  return { cancel: () => clearTimeout(timer) };
}

/** What ends a named token's sockets: its revocation, on any instance (services/token.service.ts). */
interface TokenWatch {
  watch(tokenId: string, onEnd: () => void): () => void;
}

/** WebSocket limits, resolved. */
interface WsLimits {
  maxSubscriptions: number;
  maxConnections: number;
  maxResponseBytes: number;
}

export interface GraphqlApi {
  /** Where the API answers (HTTP and WebSocket). */
  readonly path: string;
  /**
   * Takes an HTTP server's `upgrade` to the API's path (graphql-ws) and returns true; returns false,
   * touching nothing, for any other path: a host application's own WebSocket routes stay its own.
   */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Closes the WebSocket server (its clients get 1001 "Going away"), then stops Apollo. */
  close(): Promise<void>;
  /** The subscriptions shared among subscribers of the same operation (channels, executions). */
  readonly subscriptions: SharedSubscriptions;
}

/**
 * The GraphQL API on `/graphql` (or `options.path`): Apollo Server over HTTP (POST, and GET for
 * queries) and graphql-ws over WebSocket, for the HTTP server that passes its upgrades to `upgrade`. Both paths enforce the same things, in the
 * same order: a known token before anything is parsed (so unauthenticated callers learn nothing
 * of the schema), the limits of limits.ts, the role rules of graphql/auth.ts, and the error masking of
 * graphql/errors.ts. graphql-ws runs outside Apollo, hence the explicit hooks below.
 */
export async function mountGraphqlApi(app: IRouter, cronql: Cronql, options: GraphqlApiOptions): Promise<GraphqlApi> {
  const path = options.path ?? GRAPHQL_PATH;
  const schema = await cronqlSchema();
  // Reached per request, not now: the API may be mounted before cronql has started (attachCronql).
  const auth = new TokenAuthenticator(options, { check: (secret) => cronql.tokens.check(secret) });
  const log = cronql.log.child({ component: 'graphql' });
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  const maxResponseBytes = options.maxResponseBytes ?? 8_388_608;
  const contextFor = (principal: Principal): GraphQLContext => ({ cronql, principal, loaders: new Loaders(cronql, scopeOf(principal)), log });

  const apollo = new ApolloServer<GraphQLContext>({
    // The schema with its executor: queries run compiled (graphql/compiled-execution.ts).
    gateway: compiledGateway(schema),
    // Only authenticated callers get this far (see requireToken).
    introspection: true,
    // CSRF is a forged request that rides on credentials the browser attaches by itself (cookies,
    // Basic auth). cronql has none: every request reaching Apollo carries a known Bearer token
    // (requireToken runs first, and refuses "Basic"), which no browser adds on its own and which
    // makes a cross-origin browser request preflighted. Such a request is let through Apollo's
    // CSRF check whatever its method or content type, so the GET queries of clients that do not
    // add Apollo's preflight headers (urql's default) work. Mutations over GET stay refused
    // (405, BAD_REQUEST) by Apollo itself, whatever the headers. The default headers stay listed.
    csrfPrevention: { requestHeaders: ['authorization', 'x-apollo-operation-name', 'apollo-require-preflight'] },
    allowBatchedHttpRequests: false,
    hideSchemaDetailsFromClientErrors: true,
    includeStacktraceInErrorResponses: false,
    // main.ts owns shutdown: the runtime drains first.
    stopOnTerminationSignals: false,
    parseOptions: { maxTokens: LIMITS.maxTokens },
    validationRules: [...LIMIT_RULES],
    formatError: (formatted, error) => formatError(formatted, error, log),
    // The response-size limit is applied where the answer is serialised: written once, measured once.
    stringifyResult: stringifyWithin(maxResponseBytes),
    // Apollo's implicit plugins, each decided here rather than by NODE_ENV or APOLLO_* variables.
    // Landing pages load from a CDN; GraphiQL is served offline by cronql itself. cronql sends
    // nothing to Apollo's cloud (usage, schema, traces). Cache control is replaced by noStorePlugin:
    // Apollo's wraps every resolver to collect hints cronql never gives, and always answered
    // `no-store`.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginSchemaReportingDisabled(),
      ApolloServerPluginInlineTraceDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      noStorePlugin(),
      operationGuardPlugin(),
      requestErrorStatusPlugin(),
      tracingPlugin(cronql),
    ],
  });
  await apollo.start();

  app.use(
    path,
    // Browsers on other origins get no CORS grant unless listed (CRONQL_CORS_ORIGINS).
    cors({ origin: options.corsOrigins?.length ? options.corsOrigins : false, maxAge: 600 }),
    requireToken(auth),
    requireJsonBody(),
    express.json({ limit: maxBodyBytes }),
    bodyErrors(maxBodyBytes),
    apolloMiddleware(apollo, async (_req, res) => contextFor(res.locals.principal as Principal)),
  );

  // Not `{ server, path }`: that form answers 400 to an upgrade on any other path, which would
  // break a host application's own WebSocket routes (attachCronql). The path is matched as ws does.
  const wss = new WebSocketServer({ noServer: true, maxPayload: maxBodyBytes });
  const ws = useWebSocketApi(wss, schema, auth, { watch: (id, onEnd) => cronql.tokens.watch(id, onEnd) }, contextFor, log, new WsOperationSpans(cronql), {
    maxSubscriptions: options.maxSubscriptionsPerConnection ?? 50,
    maxConnections: options.maxConnections ?? 5_000,
    maxResponseBytes,
  });

  let closing: Promise<void> | undefined;
  return {
    path,
    subscriptions: ws.shared,
    upgrade(req, socket, head) {
      const url = req.url ?? '';
      const query = url.indexOf('?');
      if ((query === -1 ? url : url.slice(0, query)) !== path) return false;
      wss.handleUpgrade(req, socket, head, (client) => wss.emit('connection', client, req));
      return true;
    },
    close() {
      closing ??= (async () => {
        await ws.dispose();
        await apollo.stop();
      })();
      return closing;
    },
  };
}

/**
 * The schema and its executor, handed to Apollo through its gateway interface: the one way Apollo
 * Server 5 takes an executor of one's own. Everything before execution (parsing, the document
 * store, validation with the limit rules, the plugins' hooks) and after it (error formatting, the
 * serialiser with the response-size limit) stays Apollo's. The schema never changes.
 */
function compiledGateway(schema: GraphQLSchema): ApolloServerOptionsWithGateway<GraphQLContext>['gateway'] {
  const execution = new CompiledExecution(schema);
  return {
    async load() {
      return {
        executor: async ({ document, operation, request, context }) =>
          execution.run({ document, operation, operationName: request.operationName, variables: request.variables, context }),
      };
    },
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => {};
    },
    async stop() {},
  };
}

/**
 * Turns away requests without a valid token before Apollo parses anything: 401, with
 * UNAUTHENTICATED for an unknown token, TOKEN_REVOKED or TOKEN_EXPIRED for a named token that
 * was valid once.
 */
function requireToken(auth: TokenAuthenticator): RequestHandler {
  return async (req, res, next) => {
    let result;
    try {
      result = await auth.fromAuthorization(req.headers.authorization);
    } catch (err) {
      next(err);
      return;
    }
    if (!result.ok) {
      const error = authenticationError(result.code);
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer')
        .json({ errors: [{ message: error.message, extensions: error.extensions }] });
      return;
    }
    res.locals.principal = result.principal;
    next();
  };
}

/**
 * A POST body must be JSON. Apollo would refuse other types as a CSRF risk, but a request with a
 * token passes that check (see csrfPrevention), and without a parsed body Apollo answers 500.
 */
function requireJsonBody(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.is('application/json')) {
      next();
      return;
    }
    res.status(400).json({
      errors: [{ message: 'A POST body must be JSON, with "Content-Type: application/json"', extensions: { code: 'BAD_REQUEST' } }],
    });
  };
}

/** JSON body errors as GraphQL-shaped responses: 413 over the limit, 400 when not JSON. */
function bodyErrors(maxBodyBytes: number): ErrorRequestHandler {
  return (err: { type?: string }, _req, res, next) => {
    if (err?.type === 'entity.too.large') {
      res.status(413).json({
        errors: [{ message: `Request body is larger than ${maxBodyBytes} bytes`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
      });
    } else if (err?.type === 'entity.parse.failed') {
      res.status(400).json({ errors: [{ message: 'Request body is not valid JSON', extensions: { code: 'BAD_REQUEST' } }] });
    } else {
      next(err);
    }
  };
}

/**
 * Checks that need the resolved operation: subscriptions are refused (they stream over the
 * WebSocket; executed over HTTP they would only fail inside), and the cost limit, which needs
 * the operation's variables (`first: $n`).
 */
function operationGuardPlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operation }) {
          if (operation?.operation === 'subscription') {
            throw new GraphQLError('Subscriptions are served over WebSocket (graphql-ws) on this same path', {
              extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
            });
          }
          const error = costError(schema, document, request.variables, request.operationName);
          if (error) throw error;
        },
      };
    },
  };
}

/**
 * Every answer is marked `Cache-Control: no-store` (what Apollo's cache-control plugin said for
 * a schema without cache hints, without its per-field hook): answers are per token and live.
 */
function noStorePlugin(): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (!response.http.headers.has('cache-control')) response.http.headers.set('cache-control', 'no-store');
        },
      };
    },
  };
}

/**
 * Apollo's serialiser (compact JSON and a newline), with the response-size limit: an answer past
 * `limit` bytes is replaced by one RESPONSE_TOO_LARGE error. Measuring the written text is exact
 * and cheaper than walking the result beforehand (which graphql-ws still does, see exceedsBytes);
 * what may be serialised first is bounded by the cost limit (limits.ts).
 */
export function stringifyWithin(limit: number): (result: FormattedExecutionResult) => string {
  return (result) => {
    const text = `${JSON.stringify(result)}\n`;
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most answers need no byte count.
    if (text.length * 3 <= limit || Buffer.byteLength(text, 'utf8') <= limit) return text;
    return `${JSON.stringify({ errors: [tooLargeError(limit)] })}\n`;
  };
}

/**
 * graphql-ws on the API's path. The token travels in `connectionParams` and is
 * checked at connect: an unknown one closes the socket (4401) before any operation is read. Each
 * operation is then parsed and validated here with the same limits as HTTP, the role rules
 * apply in the resolvers (graphql/auth.ts) as over HTTP, and results go through the same masking.
 * A named token's socket is closed (4403) when the token is revoked, on any instance, or expires.
 */
function useWebSocketApi(
  wss: WebSocketServer,
  schema: GraphQLSchema,
  auth: TokenAuthenticator,
  tokens: TokenWatch,
  contextFor: (principal: Principal) => GraphQLContext,
  log: Logger,
  spans: WsOperationSpans,
  limits: WsLimits,
) {
  const principals = new WeakMap<object, Principal>();
  const subscriptionsOf = new WeakMap<object, Set<string>>();
  // Past the cap, a new connection is closed before it costs anything: 1013 "try again later".
  wss.on('connection', (socket) => {
    if (wss.clients.size > limits.maxConnections) socket.close(1013, 'too many connections');
  });
  const tooSlow = (socket: { bufferedAmount: number; close(code: number, reason: string): void }) => {
    if (socket.bufferedAmount <= MAX_SOCKET_BACKLOG_BYTES) return false;
    log.warn({ backlog: socket.bufferedAmount }, 'WebSocket reader too slow; closing it');
    socket.close(4429, 'too slow');
    return true;
  };
  const shared = new SharedSubscriptions({
    format: (result) => (result.errors ? { ...result, errors: result.errors.map((e) => formatWsResultError(e as GraphQLError, log)) } : result),
    maxResponseBytes: limits.maxResponseBytes,
    tooLarge: () => ({ errors: [tooLargeError(limits.maxResponseBytes)] }),
    maxBacklogBytes: MAX_SOCKET_BACKLOG_BYTES,
  });
  const server = useServer(
    {
      schema,
      subscribe: (args) => shared.subscribe(args),
      async onConnect(ctx) {
        const params = ctx.connectionParams ?? {};
        const socket = ctx.extra.socket;
        const result = await auth.fromAuthorization(params.authorization ?? params.Authorization);
        if (!result.ok) {
          // graphql-ws would close with 4403 "Forbidden"; the caller is unauthenticated, not forbidden.
          socket.close(4401, result.code);
          return false;
        }
        principals.set(ctx, result.principal);
        const { tokenId } = result.principal;
        if (tokenId !== null) {
          // A named token's socket ends with the token: 4403, which clients do not retry
          // (the dashboard's feed stops, see dashboard/app/live.ts).
          const end = (code: 'TOKEN_REVOKED' | 'TOKEN_EXPIRED') => socket.readyState <= socket.OPEN && socket.close(4403, code);
          const unwatch = tokens.watch(tokenId, () => end('TOKEN_REVOKED'));
          const expiry = result.expiresAt ? at(result.expiresAt, () => end('TOKEN_EXPIRED')) : undefined;
          socket.once('close', () => {
            unwatch();
            expiry?.cancel();
          });
        }
        return true;
      },
      onSubscribe(ctx, _id, payload): ExecutionArgs | readonly GraphQLError[] {
        const principal = principals.get(ctx);
        if (!principal) return [unauthenticated()];
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: LIMITS.maxTokens });
        } catch (err) {
          return [graphQLError('GRAPHQL_PARSE_FAILED', err instanceof GraphQLError ? err.message : 'Syntax error')];
        }
        // Limits first: they are cheap and bound the work of the standard rules.
        let errors = validate(schema, document, LIMIT_RULES);
        if (errors.length === 0) errors = validate(schema, document, specifiedRules);
        if (errors.length > 0) {
          return errors.map(
            (e) => new GraphQLError(e.message, { nodes: e.nodes, extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED' } }),
          );
        }
        const operation = getOperationAST(document, payload.operationName);
        if (!operation) return [graphQLError('BAD_REQUEST', 'Could not pick the operation to run; name it with operationName')];
        // A subscription's selection is executed again for every event: its own, lower ceiling.
        const subscription = operation.operation === 'subscription';
        const tooCostly = costError(schema, document, payload.variables, payload.operationName, subscription ? LIMITS.maxEventCost : LIMITS.maxCost);
        if (tooCostly) return [tooCostly];
        if (subscription) {
          // This connection's subscriptions still in graphql-ws's table of live operations (a
          // client's Complete removes its entry at once; queries are not counted).
          const mine = subscriptionsOf.get(ctx) ?? new Set<string>();
          subscriptionsOf.set(ctx, mine);
          for (const id of mine) if (!(id in ctx.subscriptions)) mine.delete(id);
          if (mine.size >= limits.maxSubscriptions) {
            return [graphQLError('BAD_REQUEST', `This connection holds ${mine.size} subscriptions, the limit (CRONQL_MAX_SUBSCRIPTIONS_PER_CONNECTION); end one first`)];
          }
          mine.add(_id);
        }
        const context = contextFor(principal);
        // The run feed closes a reader that lets changes pile up (see run-feed.ts).
        const socket = ctx.extra.socket;
        context.onSlowConsumer = () => socket.close(4429, 'too slow');
        if (subscription) {
          // Results of shared subscriptions are written here, serialised once per channel.
          context.delivery = {
            id: _id,
            send: (data) => socket.readyState === socket.OPEN && socket.send(data),
            backlog: () => socket.bufferedAmount,
            tooSlow: () => {
              log.warn({ backlog: socket.bufferedAmount }, 'WebSocket reader too slow; closing it');
              socket.close(4429, 'too slow');
            },
          };
        }
        // Apollo's plugins never see this operation: its span is started (and ended) here.
        spans.started(ctx, _id, operation.operation, payload.operationName ?? operation.name?.value, payload.extensions, context);
        return {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: context,
        };
      },
      onNext(ctx, _id, _payload, _args, result) {
        spans.errored(ctx, _id, result.errors);
        if (tooSlow(ctx.extra.socket)) return undefined; // closing: what is sent now is dropped
        if (exceedsBytes(result, limits.maxResponseBytes)) return { errors: [tooLargeError(limits.maxResponseBytes)] } as never;
        if (!result.errors) return undefined;
        return { ...result, errors: result.errors.map((e) => formatWsResultError(e, log)) };
      },
      onError(ctx, id, _payload, errors) {
        spans.errored(ctx, id, errors);
        return errors.map((e) => formatError(e.toJSON(), e, log));
      },
      onComplete(ctx, id) {
        spans.completed(ctx, id);
      },
    },
    wss,
  );
  return { dispose: () => server.dispose(), shared };
}
