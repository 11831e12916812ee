import type { TypedDocumentString } from './queries.js';

/**
 * The dashboard's only way to the server: GraphQL over HTTP POST to the public endpoint, with
 * the token in the Authorization header. Expected failures come back as `ApiError`s carrying the
 * API's stable code (docs/api.md) and, when the API names it, the input field concerned.
 */
export class ApiError extends Error {
  constructor(
    message: string,
    /** `extensions.code`, e.g. REASON_REQUIRED; NETWORK when the server could not be reached. */
    readonly code: string,
    /** The input field the API named (`extensions.details.field`), if any. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface GraphqlError {
  message: string;
  extensions?: { code?: string; details?: { field?: unknown } };
}

export interface Api {
  /** Sends an operation of operations.graphql (typed by codegen): its result, or an ApiError. */
  request<R, V>(document: TypedDocumentString<R, V>, variables?: V): Promise<R>;
  readonly endpoint: string;
  readonly token: string;
}

export function createApi(endpoint: string, token: string): Api {
  return {
    endpoint,
    token,
    async request<R, V>(document: TypedDocumentString<R, V>, variables?: V): Promise<R> {
      const query = document.toString();
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
          credentials: 'omit',
          cache: 'no-store',
        });
      } catch (err) {
        throw new ApiError(`cronql did not answer (${(err as Error).message})`, 'NETWORK');
      }
      let body: { data?: R | null; errors?: GraphqlError[] };
      try {
        body = (await res.json()) as typeof body;
      } catch {
        throw new ApiError(`cronql answered HTTP ${res.status} without GraphQL`, 'NETWORK');
      }
      const error = body.errors?.[0];
      if (error) {
        const field = error.extensions?.details?.field;
        throw new ApiError(error.message, error.extensions?.code ?? 'INTERNAL_SERVER_ERROR', typeof field === 'string' ? field : undefined);
      }
      if (!body.data) throw new ApiError(`cronql answered HTTP ${res.status} without data`, 'NETWORK');
      return body.data;
    },
  };
}

/** The code of any error, for display. */
export const codeOf = (err: unknown): string => (err instanceof ApiError ? err.code : 'ERROR');
