import { createClient, type VariablesOf } from '../../client/create-client.js';
import { CronqlApiError, type CronqlErrorCode } from '../../client/error.js';
import type { TypedDocumentString } from './queries.js';

/**
 * The dashboard's only way to the server: `cronql/client` (src/client) over HTTP POST to the
 * public endpoint, with the token in the Authorization header. Expected failures come back as
 * the client's `CronqlApiError`, here `ApiError`: the API's stable code (docs/api.md), NETWORK
 * when the server could not be reached, and, when the API names it, the input field concerned.
 */
export { CronqlApiError as ApiError };

/** An error the dashboard finds itself (a field that is not a number, not JSON), shaped as the API's. */
export const inputError = (message: string, code: CronqlErrorCode, field?: string): CronqlApiError =>
  new CronqlApiError(code, message, field ? { details: { field } } : {});

export interface Api {
  /** Sends an operation of operations.graphql (typed by codegen): its result, or an ApiError. */
  request<R, V>(document: TypedDocumentString<R, V>, variables?: V): Promise<R>;
  readonly endpoint: string;
  readonly token: string;
}

export function createApi(endpoint: string, token: string): Api {
  // No timeout: a slow answer stays pending, as the views show it (a spinner), rather than failing.
  const client = createClient({ url: endpoint, token, timeoutMs: 0 });
  return {
    endpoint,
    token,
    request<R, V>(document: TypedDocumentString<R, V>, variables?: V): Promise<R> {
      return client.request<R, V>(document, ...([variables] as unknown as VariablesOf<V>));
    },
  };
}

/** The code of any error, for display. */
export const codeOf = (err: unknown): string => (err instanceof CronqlApiError ? err.code : 'ERROR');
