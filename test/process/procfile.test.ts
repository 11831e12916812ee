import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { wsClient } from '../graphql/support.js';
import { createJob, runs, useProcessTest } from './support.js';

/**
 * The Procfile's two roles as separate processes on one database: the API instance's subscribers
 * see the runs the scheduler executes, and a run-now made through the API is run by the scheduler.
 */
describe('the Procfile: web (api) and scheduler as two processes', () => {
  const t = useProcessTest();

  it('the Railway configs (one per service) start what the Procfile starts', async () => {
    const procfile = await readFile(new URL('../../Procfile', import.meta.url), 'utf8');
    const entries = Object.fromEntries(procfile.trim().split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
    for (const [service, entry] of [['api', 'web'], ['scheduler', 'scheduler']]) {
      const config = JSON.parse(await readFile(new URL(`../../deploy/railway/${service}.json`, import.meta.url), 'utf8'));
      expect(config.deploy).toMatchObject({ startCommand: entries[entry], healthcheckPath: '/readyz' });
      expect(config.build.buildCommand).toBe('npm ci && npm run build');
    }
  });

  it('serves the API from web and runs everything on scheduler', async () => {
    const procfile = await readFile(new URL('../../Procfile', import.meta.url), 'utf8');
    const entries = Object.fromEntries(procfile.trim().split('\n').map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]));
    expect(Object.keys(entries).sort()).toEqual(['scheduler', 'web']);
    // HOST=0.0.0.0 in the Procfile (containers); the test binds loopback.
    const local = (cmd: string) => cmd.replace('HOST=0.0.0.0', 'HOST=127.0.0.1');
    const web = await t.spawn({ databaseUrl: t.url, shell: local(entries.web), env: { CRONQL_INSTANCE_ID: 'procfile-web' } });
    const scheduler = await t.spawn({ databaseUrl: t.url, shell: local(entries.scheduler), env: { CRONQL_INSTANCE_ID: 'procfile-scheduler' } });
    expect((await scheduler.get('/readyz')).status).toBe(200);
    expect((await scheduler.get('/graphql')).status).toBe(404); // the scheduler serves no API

    const client = wsClient(`${web.baseUrl.replace(/^http/, 'ws')}/graphql`, web.adminToken);
    const seen: { runnerInstanceId: string | null; status: string; triggerType: string }[] = [];
    const stop = client.subscribe<{ runChanged: { run: { runnerInstanceId: string | null; status: string; triggerType: string } } }>(
      { query: 'subscription { runChanged { run { runnerInstanceId status triggerType } } }' },
      { next: (m) => m.data && seen.push(m.data.runChanged.run), error: () => {}, complete: () => {} },
    );
    try {
      const jobId = await createJob(web, { key: 'procfile-tick', cronExpression: '* * * * * *' });
      await eventually(() => seen.some((r) => r.status === 'SUCCEEDED' && r.triggerType === 'SCHEDULED' && r.runnerInstanceId === 'procfile-scheduler'), 15_000);
      // Run-now through the API (a job with no slot today, so nothing overlaps it).
      const nightly = await createJob(web, { key: 'procfile-nightly', cronExpression: '0 3 1 1 *' });
      const now = await web.graphql<{ runJobNow: { id: string } }>('mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: nightly });
      const runId = now.data!.runJobNow.id;
      const done = await eventually(async () => (await runs(web, { jobId: nightly })).find((r) => r.id === runId && r.status !== 'PENDING' && r.status !== 'RUNNING'), 15_000);
      expect(done).toMatchObject({ status: 'SUCCEEDED', runnerInstanceId: 'procfile-scheduler' });
      expect((await runs(web, { jobId })).every((r) => r.runnerInstanceId !== 'procfile-web')).toBe(true);
      const instances = await web.graphql<{ instances: { id: string; role: string }[] }>('{ instances { id role } }');
      expect(instances.data?.instances).toEqual([{ id: 'procfile-scheduler', role: 'scheduler' }]);
    } finally {
      stop();
      await client.dispose();
    }
  }, 60_000);
});
