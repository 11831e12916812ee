import { ApolloClient, CombinedGraphQLErrors, HttpLink, InMemoryCache } from '@apollo/client';
import { cacheExchange, Client as UrqlClient, fetchExchange } from '@urql/core';
import { print } from 'graphql';
import { ClientError, GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CreateJobDocument, JobDocument, JobsDocument } from '../../src/client/generated/graphql.js';
import { codes, ok, startApi, type Api } from './support.js';

/**
 * The common GraphQL clients, each with its defaults, against a live cronql: urql (GET for
 * queries), Apollo Client (core, `useGETForQueries`), graphql-request (POST). A Bearer token is
 * not something a browser attaches by itself, so token-carrying requests pass the CSRF check
 * whatever their method; mutations are still never run from a GET, and a request without a token
 * is answered 401 before anything else, as before (docs/api.md, "CSRF").
 */
let api: Api;
let jobId: string;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
  const created = await ok(api.url, CreateJobDocument, { input: { key: 'clients.hello', target: 'log', scheduleType: 'RECURRING' as never, cronExpression: '0 3 * * *' } }, api.adminToken);
  jobId = created.createJob.id;
});
afterAll(async () => {
  await api?.close();
});

/** A fetch that records the method of every request the client sends. */
function recordingFetch() {
  const methods: string[] = [];
  const fetchFn: typeof fetch = (input, init) => {
    methods.push((init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase());
    return fetch(input, init);
  };
  return { methods, fetchFn };
}

const bearer = () => ({ authorization: `Bearer ${api.adminToken}` });
const jobKeys = (data: { jobs: { edges: { node: { key: string } }[] } } | undefined) => data?.jobs.edges.map((e) => e.node.key);

describe('each client reads jobs with a bearer token, with its defaults', () => {
  test('urql (@urql/core, default exchanges): queries go as GET', async () => {
    const { methods, fetchFn } = recordingFetch();
    const client = new UrqlClient({ url: api.url, exchanges: [cacheExchange, fetchExchange], fetch: fetchFn, fetchOptions: () => ({ headers: bearer() }) });
    const result = await client.query(JobsDocument, { first: 10 }).toPromise();
    expect(result.error).toBeUndefined();
    expect(jobKeys(result.data)).toEqual(['clients.hello']);
    expect(methods).toEqual(['GET']);
  });

  test('Apollo Client (core, useGETForQueries): queries go as GET', async () => {
    const { methods, fetchFn } = recordingFetch();
    const client = new ApolloClient({
      link: new HttpLink({ uri: api.url, headers: bearer(), useGETForQueries: true, fetch: fetchFn }),
      cache: new InMemoryCache(),
    });
    const result = await client.query({ query: JobsDocument, variables: { first: 10 } });
    expect(result.error).toBeUndefined();
    expect(jobKeys(result.data)).toEqual(['clients.hello']);
    expect(methods).toEqual(['GET']);
  });

  test('graphql-request (defaults): POST', async () => {
    const { methods, fetchFn } = recordingFetch();
    const client = new GraphQLClient(api.url, { headers: bearer(), fetch: fetchFn });
    const data = await client.request(JobsDocument, { first: 10 });
    expect(jobKeys(data)).toEqual(['clients.hello']);
    expect(methods).toEqual(['POST']);
  });
});

describe('a refused document reaches each client as a GraphQL error with its code', () => {
  const typo = '{ jobz { totalCount } }';

  test('urql', async () => {
    const client = new UrqlClient({ url: api.url, exchanges: [cacheExchange, fetchExchange], fetchOptions: () => ({ headers: bearer() }) });
    const result = await client.query(typo, {}).toPromise();
    expect(result.error?.graphQLErrors.map((e) => e.extensions.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  test('Apollo Client', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: api.url, headers: bearer(), useGETForQueries: true }), cache: new InMemoryCache() });
    const { gql } = await import('@apollo/client');
    const result = await client.query({ query: gql(typo), errorPolicy: 'all' });
    expect(CombinedGraphQLErrors.is(result.error)).toBe(true);
    expect((result.error as CombinedGraphQLErrors).errors.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });

  test('graphql-request', async () => {
    const client = new GraphQLClient(api.url, { headers: bearer() });
    const error = await client.request(typo).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.errors?.map((e) => e.extensions?.code)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('CSRF', () => {
  const getUrl = (query: string, variables?: unknown) =>
    `${api.url}?query=${encodeURIComponent(query)}${variables ? `&variables=${encodeURIComponent(JSON.stringify(variables))}` : ''}`;
  const jobStatus = async () => (await ok(api.url, JobDocument, { id: jobId }, api.adminToken)).job?.status;

  test('a mutation is never run from a GET, token and preflight header or not: 405, BAD_REQUEST', async () => {
    const mutation = `mutation { retireJob(id: "${jobId}") { id status } }`;
    for (const headers of [bearer(), { ...bearer(), 'apollo-require-preflight': 'true' }]) {
      const res = await fetch(getUrl(mutation), { headers });
      expect(res.status).toBe(405);
      expect(codes((await res.json()) as { errors?: [] })).toEqual(['BAD_REQUEST']);
    }
    expect(await jobStatus()).toBe('ACTIVE');
  });

  test('a GET query without a token, from a cross-site page (cookies, Origin): 401 UNAUTHENTICATED, no CORS grant, as before', async () => {
    const res = await fetch(getUrl(print(JobsDocument), { first: 10 }), {
      headers: { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', cookie: 'session=abc' },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await res.json()) as { data?: unknown; errors?: [] };
    expect(codes(body)).toEqual(['UNAUTHENTICATED']);
    expect(body.data).toBeUndefined();
  });

  test('a browser on another origin may not send the token: its preflight gets no grant', async () => {
    const res = await fetch(api.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  test('a simple-request POST (text/plain) is refused and not run, token or not', async () => {
    const body = JSON.stringify({ query: `mutation { retireJob(id: "${jobId}") { id } }` });
    const withToken = await fetch(api.url, { method: 'POST', headers: { ...bearer(), 'content-type': 'text/plain' }, body });
    expect(withToken.status).toBe(400);
    expect(codes((await withToken.json()) as { errors?: [] })).toEqual(['BAD_REQUEST']);
    const without = await fetch(api.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(without.status).toBe(401);
    expect(await jobStatus()).toBe('ACTIVE');
  });

  test('a GET query with a token needs no preflight header', async () => {
    const res = await fetch(getUrl('{ targets { name } }'), { headers: bearer() });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { targets: unknown[] } }).data.targets.length).toBeGreaterThan(0);
  });
});
