import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { CronqlError, type ErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';

/**
 * The one place where errors become GraphQL errors. Expected failures carry a stable
 * `extensions.code`: a CronqlError's own code, or one of the request-level codes below. Anything
 * else is a bug or an outage: it is logged here and sent as "Internal server error", without
 * message, stack trace or SQL.
 */

/** Codes of errors about the request itself (bad document, limits), set by Apollo or by us. */
const REQUEST_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

const API_CODES = new Set<string>([
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'BAD_USER_INPUT',
  'INVALID_CRON_EXPRESSION',
  'INVALID_TIMEZONE',
  'INVALID_RUN_AT',
  'UNKNOWN_TARGET',
  'REASON_REQUIRED',
  'KEY_EXISTS',
  'NOT_FOUND',
  'INVALID_STATE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_POLICY',
  'UNKNOWN_SECRET',
  'INVALID_SECRET_NAME',
  'UNPARSEABLE_SCHEDULE',
  'DATABASE_UNAVAILABLE',
  'RESPONSE_TOO_LARGE',
] satisfies ErrorCode[]);

export const INTERNAL_MESSAGE = 'Internal server error';
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database did not answer in time; nothing was changed, or the outcome is settled by the sweep within seconds. Retry later.';

export type RequestErrorCode = 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_REQUEST';

/** A GraphQL error with a literal code, for failures found by the GraphQL layer itself. */
export function graphQLError(code: ErrorCode | RequestErrorCode, message: string, details?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { extensions: details ? { code, details } : { code } });
}

export const unauthenticated = (): GraphQLError =>
  graphQLError('UNAUTHENTICATED', 'Unauthenticated: send "Authorization: Bearer <token>" with a known token');

export const forbidden = (message: string): GraphQLError => graphQLError('FORBIDDEN', `Forbidden: ${message}`);

/** Schema hints ("Did you mean …?") are for nobody: they would map the schema for a guesser. */
const withoutSuggestions = (message: string): string => message.replace(/\s*Did you mean .+\?$/s, '');

/** The error a resolver (or a service below it) actually threw, through GraphQL's wrappers. */
function unwrap(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError && current.originalError !== current) {
    current = current.originalError;
  }
  return current;
}

/**
 * Formats one error for a response. `formatted` is what the transport made of it (Apollo sets
 * request codes such as GRAPHQL_VALIDATION_FAILED or BAD_USER_INPUT for variable values).
 */
export function formatError(formatted: GraphQLFormattedError, error: unknown, log: Logger): GraphQLFormattedError {
  const base = { locations: formatted.locations, path: formatted.path };
  const original = unwrap(error);
  if (original instanceof CronqlError) {
    const extensions = original.details ? { code: original.code, details: original.details } : { code: original.code };
    return { message: original.message, ...base, extensions };
  }
  if (isDatabaseUnavailable(original)) {
    log.warn({ err: original, path: formatted.path }, 'the database did not answer a GraphQL operation in time');
    return { message: DATABASE_UNAVAILABLE_MESSAGE, ...base, extensions: { code: 'DATABASE_UNAVAILABLE' } };
  }
  const code = formatted.extensions?.code;
  if (typeof code === 'string' && (API_CODES.has(code) || REQUEST_CODES.has(code))) {
    const details = formatted.extensions?.details;
    return { message: withoutSuggestions(formatted.message), ...base, extensions: details ? { code, details } : { code } };
  }
  log.error({ err: original, path: formatted.path }, 'internal error in a GraphQL operation');
  return { message: INTERNAL_MESSAGE, ...base, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
}

/**
 * Formats the errors of an execution result on the WebSocket path (Apollo does not see that
 * path). An error outside any field (no `path`) came from graphql-js before execution: a variable
 * value that does not coerce, or an operation that cannot be chosen; both are the client's input.
 */
export function formatWsResultError(error: GraphQLError, log: Logger): GraphQLFormattedError {
  const formatted = error.toJSON();
  if (formatted.extensions?.code === undefined && error.path === undefined) {
    return formatError({ ...formatted, extensions: { ...formatted.extensions, code: 'BAD_USER_INPUT' } }, error, log);
  }
  return formatError(formatted, error, log);
}
