import { serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApi, type Api } from '../graphql/support.js';

/**
 * graphql-http's own audit suite (the GraphQL-over-HTTP spec's MUSTs and SHOULDs) against a live
 * cronql, each audit one test. The requests carry the admin token: without one, cronql answers
 * 401 before reading the request (docs/api.md). Every MUST and every SHOULD must hold; the MAYs
 * are not asserted (cronql refuses form-encoded bodies, for one).
 */
let api: Api;
beforeAll(async () => {
  api = await startApi({ role: 'api', listen: false });
});
afterAll(async () => {
  await api?.close();
});

const audits = serverAudits({
  url: () => api.url,
  fetchFn: (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${api.adminToken}`);
    return fetch(input, { ...init, headers });
  },
});

describe('GraphQL over HTTP (graphql-http audits)', () => {
  test('the suite has audits of each level', () => {
    expect(audits.filter((a) => a.name.startsWith('MUST')).length).toBeGreaterThan(10);
    expect(audits.filter((a) => a.name.startsWith('SHOULD')).length).toBeGreaterThan(10);
  });

  test.each(audits.filter((a) => a.name.startsWith('MUST') || a.name.startsWith('SHOULD')).map((a) => [a.name, a] as const))(
    '%s',
    async (_, audit) => {
      const result = await audit.fn();
      const reason = result.status === 'ok' ? '' : `${result.reason}: ${result.response.status} ${await result.response.clone().text().catch(() => '')}`;
      expect(result.status, reason).toBe('ok');
    },
  );
});
