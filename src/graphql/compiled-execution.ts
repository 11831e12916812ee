import { execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { getVariableValues } from 'graphql/execution/values.js';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

/** What one operation over HTTP is executed with (what Apollo hands its executor). */
export interface Execution {
  document: DocumentNode;
  operation?: OperationDefinitionNode;
  operationName?: string | null;
  variables?: Record<string, unknown>;
  context: unknown;
}

/**
 * Executes the queries of the HTTP API with graphql-jit: each validated document is compiled once
 * into a function that resolves exactly its selection (no per-field argument parsing, resolve-info
 * building or type dispatch at run time), then run for every request of the same document — Apollo
 * keeps a parsed document per query text, so a client's repeated operations (a dashboard's page, a
 * poll) hit the same compiled function. graphql-js's per-field machinery was about a fifth of a
 * 50-run page's CPU (BENCHMARKS.md, "Page reads").
 *
 * The resolvers are the schema's own, so roles, scopes, redaction and every error they raise are
 * unchanged. What stays with graphql-js, which answers exactly as before:
 * - mutations (serial, and not where the time goes) and anything but a query;
 * - an operation whose variables do not coerce (graphql-js's messages and locations are what
 *   Apollo recognises as BAD_USER_INPUT, status 400);
 * - a document graphql-jit cannot compile.
 */
export class CompiledExecution {
  /** By document (Apollo's cached one), then by operation name. null: graphql-jit declined it. */
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  constructor(private readonly schema: GraphQLSchema) {}

  run(e: Execution): ExecutionResult | Promise<ExecutionResult> {
    const operation = e.operation;
    if (operation?.operation !== 'query') return this.interpreted(e);
    if (operation.variableDefinitions?.length) {
      // Coerced here only to learn whether they do; graphql-js reports the errors as before.
      const coerced = getVariableValues(this.schema, operation.variableDefinitions, e.variables ?? {});
      if (coerced.errors) return this.interpreted(e);
    }
    const query = this.compiled(e.document, e.operationName ?? '');
    if (!query) return this.interpreted(e);
    const result = query.query(undefined, e.context, e.variables ?? {}) as ExecutionResult | Promise<ExecutionResult>;
    return result instanceof Promise ? result.then(withGraphQLErrors) : withGraphQLErrors(result);
  }

  /** The document's operation compiled (once), or null if graphql-jit cannot compile it. */
  compiled(document: DocumentNode, operationName = ''): CompiledQuery | null {
    let byName = this.byDocument.get(document);
    if (!byName) this.byDocument.set(document, (byName = new Map()));
    let query = byName.get(operationName);
    if (query === undefined) {
      const result = compileQuery(this.schema, document, operationName || undefined);
      query = isCompiledQuery(result) ? result : null;
      byName.set(operationName, query);
    }
    return query;
  }

  private interpreted(e: Execution): ExecutionResult | Promise<ExecutionResult> {
    return execute({
      schema: this.schema,
      document: e.document,
      contextValue: e.context,
      variableValues: e.variables,
      operationName: e.operationName,
    });
  }
}

/**
 * graphql-jit's errors are objects of its own (no `extensions` unless the original error had
 * some, locations given as such rather than by nodes); Apollo, the plugins and the error
 * formatting expect graphql-js's. Each becomes the GraphQLError graphql-js would have made: the
 * same message, path, locations, and the error the resolver threw as `originalError` (whose
 * `extensions` it takes, as graphql-js's `locatedError` does).
 */
function withGraphQLErrors(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = result.errors.map((e) => {
    const error = new GraphQLError(e.message, { path: e.path, originalError: e.originalError ?? undefined });
    (error as { locations?: GraphQLError['locations'] }).locations = e.locations;
    return error;
  });
  return { ...result, errors };
}
