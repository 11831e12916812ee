/**
 * `cronql/client`: a typed client of cronql's GraphQL API for Node (20+) and browsers.
 *
 *   const cronql = createClient({ url: 'http://127.0.0.1:4000/graphql', token });
 *   const { createJob } = await cronql.request(CreateJobDocument, { input: { … } });
 *   for await (const { runChanged } of cronql.subscribe(RunChangedDocument, {})) …
 *
 * The documents (`…Document`) are one operation per root field of the schema, generated from it
 * (`npm run codegen`), with their result and variable types; see docs/client.md for what each
 * selects. Nothing here imports server code or the `graphql` library at run time.
 */
export { createClient } from './create-client.js';
export type { ClientOptions, CronqlClient, CronqlSubscription, RequestOptions, TypedDocument, VariablesOf } from './create-client.js';
export { CronqlApiError } from './error.js';
export type { CronqlErrorCode, GraphqlErrorPayload, TransportErrorCode } from './error.js';
export type { ApiErrorCode } from '../errors.js';
export type { SubscriptionSink, WebSocketOptions } from './websocket.js';
export * from './operations/generated/graphql.js';
