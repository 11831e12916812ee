// Type-only: erased from the emitted JavaScript, so the client carries no server code.
import type { ApiErrorCode } from '../errors.js';

/**
 * Codes of failures the client finds itself, before or instead of an answer from the API:
 * - NETWORK: the server could not be reached, the request timed out, or the WebSocket closed;
 * - BAD_RESPONSE: something answered, but not with a GraphQL result (a proxy's error page, a
 *   wrong URL).
 */
export type TransportErrorCode = 'NETWORK' | 'BAD_RESPONSE';

/** What `CronqlApiError.code` can be: the API's stable codes (docs/api.md) or the client's own. */
export type CronqlErrorCode = ApiErrorCode | TransportErrorCode;

/** One GraphQL error as the API sends it. */
export interface GraphqlErrorPayload {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; details?: Record<string, unknown>; [key: string]: unknown };
}

/**
 * Every failure of a request or a subscription: a refusal of the API (its `extensions.code`, its
 * message, and the input field it names) or a transport failure (NETWORK, BAD_RESPONSE).
 */
export class CronqlApiError extends Error {
  readonly code: CronqlErrorCode;
  /** The input field the API named (`extensions.details.field`), e.g. `retry.maxAttempts`. */
  readonly field?: string;
  /** `extensions.details` of the first error, when the API sent some. */
  readonly details?: Record<string, unknown>;
  /** The HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** Every error of the answer (the first is the one described above). */
  readonly errors: readonly GraphqlErrorPayload[];

  constructor(
    code: CronqlErrorCode,
    message: string,
    extra: { details?: Record<string, unknown>; status?: number; errors?: readonly GraphqlErrorPayload[]; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CronqlApiError';
    this.code = code;
    this.details = extra.details;
    const field = extra.details?.field;
    this.field = typeof field === 'string' ? field : undefined;
    this.status = extra.status;
    this.errors = extra.errors ?? [];
  }

  /** The error for an answer's `errors` (the first one's code and message). */
  static fromErrors(errors: readonly GraphqlErrorPayload[], status?: number): CronqlApiError {
    const [first] = errors;
    const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : 'INTERNAL_SERVER_ERROR';
    const details = first?.extensions?.details;
    return new CronqlApiError(code as CronqlErrorCode, first?.message ?? 'Unknown error', {
      details: details && typeof details === 'object' ? details : undefined,
      status,
      errors,
    });
  }
}
