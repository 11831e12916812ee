import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError } from 'graphql';
import type { Cronql } from '../app.js';
import type { GraphQLContext } from '../graphql/context.type.js';
import type { OperationTrace } from '../tracing/tracing.js';

/**
 * A span per GraphQL operation (docs/operations.md, "Tracing"), over HTTP (this Apollo plugin)
 * and over WebSocket (`WsOperationSpans`: graphql-ws runs outside Apollo, so its plugins never
 * see those operations). The span continues the caller's W3C `traceparent` (the HTTP header; on a
 * WebSocket, the operation's `extensions.traceparent`), and its own context goes on the GraphQL
 * context: a run-now continues it. Tracing off, each costs one check per operation.
 */

/** The code an error answer is known by (its `extensions.code`). */
const codeOf = (e: { extensions?: Record<string, unknown> } | undefined): string => String(e?.extensions?.code ?? 'INTERNAL_SERVER_ERROR');

export function tracingPlugin(cronql: Cronql): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ request, contextValue }) {
      const tracing = cronql.tracing;
      if (!tracing) return;
      const span = tracing.operation('http', request.http?.headers.get('traceparent') ?? undefined);
      contextValue.traceparent = span.traceparent;
      return {
        async didResolveOperation({ operation, operationName }) {
          if (operation) span.operation(operation.operation, operationName ?? undefined);
        },
        async didEncounterErrors({ errors }) {
          span.failed(codeOf(errors[0] as { extensions?: Record<string, unknown> }));
        },
        async willSendResponse() {
          span.end();
        },
      };
    },
  };
}

/** The spans of a WebSocket server's operations in flight, by connection and operation id. */
export class WsOperationSpans {
  private readonly open = new WeakMap<object, Map<string, OperationTrace>>();

  constructor(private readonly cronql: Cronql) {}

  /**
   * An operation accepted (parsed, validated, allowed): its span starts, and its context goes on
   * the operation's GraphQL context.
   */
  started(connection: object, id: string, type: string, name: string | undefined, extensions: Record<string, unknown> | null | undefined, context: GraphQLContext): void {
    const tracing = this.cronql.tracing;
    if (!tracing) return;
    const incoming = typeof extensions?.traceparent === 'string' ? extensions.traceparent : undefined;
    const span = tracing.operation('ws', incoming);
    span.operation(type, name);
    context.traceparent = span.traceparent;
    let spans = this.open.get(connection);
    if (!spans) this.open.set(connection, (spans = new Map()));
    spans.get(id)?.end();
    spans.set(id, span);
  }

  /** A result (or an error) was sent: an error marks the span failed. */
  errored(connection: object, id: string, errors: readonly (GraphQLFormattedError | { extensions?: Record<string, unknown> })[] | undefined): void {
    if (!errors?.length) return;
    this.open.get(connection)?.get(id)?.failed(codeOf(errors[0] as { extensions?: Record<string, unknown> }));
  }

  /** The operation completed (a query's or mutation's answer sent, a subscription ended). */
  completed(connection: object, id: string): void {
    const spans = this.open.get(connection);
    const span = spans?.get(id);
    if (!span) return;
    spans!.delete(id);
    span.end();
  }
}
