import type { ApolloServerPlugin } from '@apollo/server';
import Negotiator from 'negotiator';

/**
 * The HTTP status of a request refused before execution, by the media type of the answer
 * (GraphQL over HTTP, "Status Codes"; the choice is explained in docs/api.md):
 *
 * - `application/graphql-response+json`: 400, as Apollo answers — the spec requires a 4xx there.
 * - `application/json`: 200 — the spec says SHOULD, because a client of that older media type may
 *   treat any non-2xx as a transport failure and drop the `errors` it carries.
 *
 * Only the three refusals the spec names move: a document that does not parse
 * (GRAPHQL_PARSE_FAILED), one that does not validate (GRAPHQL_VALIDATION_FAILED, which includes
 * cronql's limits: depth, aliases, cost), and variables that do not coerce (BAD_USER_INPUT
 * raised before execution). A request that is not a GraphQL request at all (no query, a
 * batch, a body that is not JSON), a subscription sent over HTTP, or a missing token keep their
 * 4xx whatever the media type.
 */
const REFUSED_BEFORE_EXECUTION = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT']);

const JSON_TYPE = 'application/json';
const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

/**
 * The media type Apollo answers with for an `Accept` header: the same negotiation, in the same
 * order (application/json first, so `*\/*` and a missing header get application/json).
 */
export function answerMediaType(accept: string | undefined): string | undefined {
  if (!accept) return JSON_TYPE;
  return new Negotiator({ headers: { accept } }).mediaType([JSON_TYPE, GRAPHQL_RESPONSE_TYPE]);
}

export function requestErrorStatusPlugin(): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ request, response }) {
          if (response.http.status !== 400 || response.body.kind !== 'single') return;
          const result = response.body.singleResult;
          // `data` present (even null) means execution started: not a refusal.
          if ('data' in result && result.data !== undefined) return;
          if (!result.errors?.length || !result.errors.every((e) => REFUSED_BEFORE_EXECUTION.has(String(e.extensions?.code)))) return;
          if (answerMediaType(request.http?.headers.get('accept')) === JSON_TYPE) response.http.status = 200;
        },
      };
    },
  };
}
