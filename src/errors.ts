/**
 * Typed errors with a stable `code`. Every expected failure of cronql is one of these; the
 * GraphQL layer maps them to `extensions.code` in one place, the library API throws them as is.
 */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'BAD_USER_INPUT'
  | 'INVALID_CRON_EXPRESSION'
  | 'INVALID_TIMEZONE'
  | 'INVALID_RUN_AT'
  | 'UNKNOWN_TARGET'
  | 'REASON_REQUIRED'
  | 'KEY_EXISTS'
  | 'NOT_FOUND'
  | 'INVALID_STATE'
  | 'PAYLOAD_TOO_LARGE'
  /** A retry, overlap, jitter or capture value is out of range. */
  | 'INVALID_POLICY'
  /** A payload names a secret that does not exist. */
  | 'UNKNOWN_SECRET'
  /** An interval (`every`, `anchorAt`), several expressions, bounds (`startAt`, `endAt`, `maxRuns`) or a misfire grace is invalid. */
  | 'INVALID_SCHEDULE'
  /** parseSchedule could not read the phrase (the message lists phrases that parse). */
  | 'UNPARSEABLE_SCHEDULE'
  /** A secret's name is not `[A-Z][A-Z0-9_]*` (at most 64 characters). */
  | 'INVALID_SECRET_NAME'
  /** The database did not answer within the configured bound; nothing was changed, or the sweep settles it. */
  | 'DATABASE_UNAVAILABLE'
  /** The answer would be larger than CRONQL_MAX_RESPONSE_BYTES. */
  | 'RESPONSE_TOO_LARGE'
  /** A job names a calendar that does not exist. */
  | 'UNKNOWN_CALENDAR'
  /** deleteCalendar while a live job names the calendar. */
  | 'CALENDAR_IN_USE'
  /** A backfill's range has more than 10,000 slots. */
  | 'BACKFILL_TOO_LARGE'
  /** A job's `notify` names a notification channel that does not exist. */
  | 'UNKNOWN_CHANNEL'
  /** A notification channel live jobs name in `notify` cannot be deleted. */
  | 'CHANNEL_IN_USE'
  /** An AFTER job's upstream (`after`) names a key no job has. */
  | 'UNKNOWN_JOB'
  /** A job version whose upstreams (`after`) would lead back to itself, through any number of jobs. */
  | 'DEPENDENCY_CYCLE'
  /** A job's labels are not a flat object of valid keys to valid values, or too many (domain/label-selector.ts). */
  | 'INVALID_LABELS'
  /** A label selector does not parse, or is over its caps; or a bulk action's selector is empty. */
  | 'INVALID_SELECTOR'
  /** A named token that was revoked (UNAUTHENTICATED's class: HTTP 401, WebSocket 4401/4403). */
  | 'TOKEN_REVOKED'
  /** A named token past its expiresAt (UNAUTHENTICATED's class: HTTP 401, WebSocket 4401/4403). */
  | 'TOKEN_EXPIRED'
  /** A job names a concurrency pool that does not exist. */
  | 'UNKNOWN_POOL'
  /** deleteConcurrencyPool while a live job names the pool. */
  | 'POOL_IN_USE';

/**
 * Codes of errors about the request itself (a document that does not parse or validate, a limit,
 * an operation that cannot be chosen), set by Apollo Server or by cronql's GraphQL layer.
 */
export type RequestErrorCode =
  | 'GRAPHQL_PARSE_FAILED'
  | 'GRAPHQL_VALIDATION_FAILED'
  | 'BAD_REQUEST'
  | 'OPERATION_RESOLUTION_FAILURE'
  | 'PERSISTED_QUERY_NOT_FOUND'
  | 'PERSISTED_QUERY_NOT_SUPPORTED';

/**
 * Every `extensions.code` the GraphQL API answers with (docs/api.md): an expected failure's code,
 * a request's, or INTERNAL_SERVER_ERROR for anything else (masked). `cronql/client` types its
 * errors with it, so the two cannot drift.
 */
export type ApiErrorCode = ErrorCode | RequestErrorCode | 'INTERNAL_SERVER_ERROR';

export class CronqlError extends Error {
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'CronqlError';
    this.code = code;
    this.details = details;
  }
}

/** Invalid configuration: startup stops with one line naming the variable. */
export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}
