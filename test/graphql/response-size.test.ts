import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduleType } from '../../src/domain/enums.js';
import { exceedsBytes } from '../../src/graphql/response-size.js';
import { gql, startApi, wsClient, wsOnce, type Api } from './support.js';

/** An answer larger than CRONQL_MAX_RESPONSE_BYTES fails with RESPONSE_TOO_LARGE, on both paths. */
describe('the response-size ceiling', () => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi({ instanceId: 'response-size' }, { maxResponseBytes: 50_000 });
    for (let i = 0; i < 5; i++) {
      await api.cronql.jobs.create({ key: `big-${i}`, target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 3 * * *', payload: { blob: 'x'.repeat(20_000) } });
    }
  });
  afterAll(async () => {
    await api.close();
  });

  it('measures without serialising, and agrees with JSON.stringify around the limit', () => {
    for (const n of [10, 1_000, 49_000, 51_000]) {
      const value = { data: { s: 'é'.repeat(n / 2), list: Array.from({ length: 10 }, (_, i) => ({ i, ok: true, none: null })) } };
      const actual = Buffer.byteLength(JSON.stringify(value));
      expect(exceedsBytes(value, actual + 200)).toBe(false);
      expect(exceedsBytes(value, actual - 200)).toBe(true);
    }
  });

  it('refuses the whole answer over HTTP and over the WebSocket; smaller answers pass', async () => {
    const big = '{ jobs(first: 5) { nodes { key payload } } }';
    const small = '{ jobs(first: 1) { nodes { key payload } } }';
    const http = await gql<unknown, unknown>(api.url, big, undefined, api.adminToken);
    expect(http.data ?? null).toBeNull();
    expect(http.errors).toEqual([expect.objectContaining({ extensions: { code: 'RESPONSE_TOO_LARGE' } })]);
    expect((await gql(api.url, small, undefined, api.adminToken)).errors).toBeUndefined();
    const client = wsClient(api.wsUrl, api.adminToken);
    try {
      const ws = await wsOnce(client, big);
      expect(ws.errors?.[0]?.extensions?.code).toBe('RESPONSE_TOO_LARGE');
      expect((await wsOnce(client, small)).errors).toBeUndefined();
    } finally {
      await client.dispose();
    }
  });
});
