import { CronqlApiError, type GraphqlErrorPayload } from './error.js';

/** What one HTTP request needs; built once per client (see create-client.ts). */
export interface HttpTransport {
  endpoint: string;
  token?: string;
  fetch: typeof fetch;
  /** 0: no timeout. */
  timeoutMs: number;
  headers: Record<string, string>;
}

/**
 * One GraphQL operation as a POST with a JSON body (docs/api.md, "Over HTTP"). The answer's body
 * is read whatever the status: a request refused before execution is a 400 with `errors` when
 * the client accepts `application/graphql-response+json`, and those errors carry the code.
 */
export async function postOperation<R>(
  http: HttpTransport,
  query: string,
  variables: unknown,
  signal?: AbortSignal,
): Promise<R> {
  const headers: Record<string, string> = {
    ...http.headers,
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json;q=0.9',
  };
  if (http.token) headers.authorization = `Bearer ${http.token}`;
  // One controller for the timeout and the caller's signal (AbortSignal.any is too recent for
  // the browsers the dashboard supports).
  const controller = new AbortController();
  const abort = () => controller.abort(signal?.reason);
  if (signal?.aborted) abort();
  signal?.addEventListener('abort', abort, { once: true });
  const timer = http.timeoutMs > 0 ? setTimeout(() => controller.abort(), http.timeoutMs) : undefined;
  let res: Response;
  try {
    res = await http.fetch(http.endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
      // The token is the only credential: no cookie is sent or kept.
      credentials: 'omit',
      signal: controller.signal,
    });
  } catch (err) {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
    const why = signal?.aborted ? 'the request was aborted' : controller.signal.aborted ? `no answer within ${http.timeoutMs} ms` : describe(err);
    throw new CronqlApiError('NETWORK', `cronql at ${http.endpoint} did not answer (${why})`, { cause: err });
  }
  let body: { data?: R | null; errors?: GraphqlErrorPayload[] };
  try {
    body = (await res.json()) as typeof body;
  } catch (err) {
    throw new CronqlApiError('BAD_RESPONSE', `${http.endpoint} answered HTTP ${res.status} without a GraphQL result`, { status: res.status, cause: err });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', abort);
  }
  if (Array.isArray(body?.errors) && body.errors.length > 0) throw CronqlApiError.fromErrors(body.errors, res.status);
  if (!body?.data) throw new CronqlApiError('BAD_RESPONSE', `${http.endpoint} answered HTTP ${res.status} without data`, { status: res.status });
  return body.data;
}

/** A fetch failure in a few words: Node's "fetch failed" hides the reason in `cause`. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause as { code?: unknown; message?: unknown } | undefined;
  if (cause && typeof cause.code === 'string') return `${err.message}: ${cause.code}`;
  if (cause && typeof cause.message === 'string') return `${err.message}: ${cause.message}`;
  return err.message;
}
