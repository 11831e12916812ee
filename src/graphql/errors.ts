import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { CronqlError, type ErrorCode, type RequestErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { isDatabaseUnavailable } from '../db/pool.js';

/**
 * The one place where errors become GraphQL errors. Expected failures carry a stable
 * `extensions.code`: a CronqlError's own code, or one of the request-level codes below. Anything
 * else is a bug or an outage: it is logged here and sent as "Internal server error", without
 * message, stack trace or SQL.
 */

/** Codes of errors about the request itself (bad document, limits), set by Apollo or by us. */
const REQUEST_CODES = new Set<string>(
  Object.keys({
    GRAPHQL_PARSE_FAILED: true,
    GRAPHQL_VALIDATION_FAILED: true,
    BAD_REQUEST: true,
    OPERATION_RESOLUTION_FAILURE: true,
    PERSISTED_QUERY_NOT_FOUND: true,
    PERSISTED_QUERY_NOT_SUPPORTED: true,
  } satisfies Record<RequestErrorCode, true>),
);

// Every ErrorCode, checked by the compiler both ways (a code added to ErrorCode must be listed).
const API_CODES = new Set<string>(
  Object.keys({
    UNAUTHENTICATED: true,
    FORBIDDEN: true,
    BAD_USER_INPUT: true,
    INVALID_CRON_EXPRESSION: true,
    INVALID_TIMEZONE: true,
    INVALID_RUN_AT: true,
    UNKNOWN_TARGET: true,
    REASON_REQUIRED: true,
    KEY_EXISTS: true,
    NOT_FOUND: true,
    INVALID_STATE: true,
    PAYLOAD_TOO_LARGE: true,
    INVALID_POLICY: true,
    UNKNOWN_SECRET: true,
    INVALID_SCHEDULE: true,
    INVALID_SECRET_NAME: true,
    UNPARSEABLE_SCHEDULE: true,
    DATABASE_UNAVAILABLE: true,
    RESPONSE_TOO_LARGE: true,
    UNKNOWN_CALENDAR: true,
    CALENDAR_IN_USE: true,
    BACKFILL_TOO_LARGE: true,
    UNKNOWN_CHANNEL: true,
    CHANNEL_IN_USE: true,
    UNKNOWN_JOB: true,
    DEPENDENCY_CYCLE: true,
    UNKNOWN_POOL: true,
    POOL_IN_USE: true,
    INVALID_LABELS: true,
    INVALID_SELECTOR: true,
    TOKEN_REVOKED: true,
    TOKEN_EXPIRED: true,
  } satisfies Record<ErrorCode, true>),
);

export const INTERNAL_MESSAGE = 'Internal server error';
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The database did not answer in time; nothing was changed, or the outcome is settled by the sweep within seconds. Retry later.';

export type { RequestErrorCode };

/** A GraphQL error with a literal code, for failures found by the GraphQL layer itself. */
export function graphQLError(code: ErrorCode | RequestErrorCode, message: string, details?: Record<string, unknown>): GraphQLError {
  return new GraphQLError(message, { extensions: details ? { code, details } : { code } });
}

export const unauthenticated = (): GraphQLError =>
  graphQLError('UNAUTHENTICATED', 'Unauthenticated: send "Authorization: Bearer <token>" with a known token');

/** A named token known but no longer valid: refused like an unknown one, with the reason. */
export const tokenEnded = (code: 'TOKEN_REVOKED' | 'TOKEN_EXPIRED'): GraphQLError =>
  graphQLError(code, code === 'TOKEN_REVOKED' ? 'Unauthenticated: this token was revoked' : 'Unauthenticated: this token has expired');

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
