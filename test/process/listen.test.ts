import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { wsClient } from '../graphql/support.js';
import { createJob, useProcessTest } from './support.js';

/**
 * The LISTEN connection of an API instance goes half-open (the network drops its packets, nothing
 * is closed): the notifier's own round trip notices, it reconnects, and a subscriber on that
 * instance sees the runs executed by the other instance again within seconds.
 */
describe('a half-open LISTEN connection', () => {
  const t = useProcessTest({ proxy: true });

  it('is replaced, and cross-instance events flow again within seconds', async () => {
    const bounds = { CRONQL_DB_CONNECT_TIMEOUT_MS: '1000', CRONQL_DB_QUERY_TIMEOUT_MS: '2000' };
    // Both started together (a start is seconds on a busy machine; neither needs the other to start).
    const [scheduler, api] = await Promise.all([
      t.spawn({ databaseUrl: t.url, env: { ...bounds, CRONQL_INSTANCE_ID: 'listen-scheduler' } }),
      t.spawn({ databaseUrl: t.proxy.url, env: { ...bounds, CRONQL_INSTANCE_ID: 'listen-api', CRONQL_ROLE: 'api' } }),
    ]);
    const client = wsClient(`${api.baseUrl.replace(/^http/, 'ws')}/graphql`, api.adminToken);
    const seen: { at: number; scheduledAt: string }[] = [];
    const stop = client.subscribe<{ runChanged: { run: { scheduledAt: string; status: string } } }>(
      { query: 'subscription { runChanged { run { scheduledAt status } } }' },
      {
        next: (m) => {
          if (m.data?.runChanged.run.status === 'SUCCEEDED') seen.push({ at: Date.now(), scheduledAt: m.data.runChanged.run.scheduledAt });
        },
        error: () => {},
        complete: () => {},
      },
    );
    try {
      await createJob(scheduler, { key: 'listen-tick', cronExpression: '* * * * * *' });
      await eventually(() => seen.length >= 2, 10_000);

      t.proxy.blackholeExisting(); // the API instance's connections go half-open; new ones get through
      const cutAt = Date.now();
      const back = await eventually(() => seen.find((s) => s.at > cutAt + 1_500 && Date.parse(s.scheduledAt) > cutAt + 1_500), 20_000);
      const ms = back.at - cutAt;
      expect(ms).toBeLessThan(15_000);
      console.log(`events flowed again ${ms} ms after the LISTEN connection went half-open`);
    } finally {
      stop();
      await client.dispose();
    }
  }, 60_000);
});
