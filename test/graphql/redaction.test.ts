import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/services/redaction.js';
import { Feed, gql, startApi, wsClient, type Api } from './support.js';

const payload = {
  url: 'https://billing.example.com/close',
  headers: { Authorization: 'Bearer S3CRET-1', 'X-Trace': 'S3CRET-2' },
  body: { day: '2026-06-01', nested: [{ apiKey: 'S3CRET-3' }, { 'client_secret': 'S3CRET-4', ok: 1 }], Password: 'S3CRET-5' },
};
const redacted = {
  url: 'https://billing.example.com/close',
  headers: { Authorization: REDACTED, 'X-Trace': REDACTED },
  body: { day: '2026-06-01', nested: [{ apiKey: REDACTED }, { 'client_secret': REDACTED, ok: 1 }], Password: REDACTED },
};

/** The VIEWER token goes to browsers: it reads no credential, on any path; ADMIN reads all. */
describe('credentials and the VIEWER role', () => {
  let api: Api;
  let jobId: string;
  beforeAll(async () => {
    api = await startApi({
      instanceId: 'redaction',
      targets: { echo: async (ctx) => ({ echoed: ctx.payload, accessToken: 'S3CRET-6' }) },
    });
    const res = await gql<{ createJob: { id: string } }, unknown>(
      api.url,
      'mutation($p: JSON) { createJob(input: { key: "with-secrets", target: "echo", scheduleType: RECURRING, cronExpression: "0 3 * * *", payload: $p }) { id } }',
      { p: payload },
      api.adminToken,
    );
    jobId = res.data!.createJob.id;
  });
  afterAll(async () => {
    await api.close();
  });

  it('Job.payload, Run.payloadSnapshot and Run.output, over HTTP and in subscriptions', async () => {
    const viewerWs = wsClient(api.wsUrl, api.viewerToken);
    const adminWs = wsClient(api.wsUrl, api.adminToken);
    const doc = parse('subscription { runChanged { run { id status payloadSnapshot output } } }');
    type Event = { runChanged: { run: { id: string; status: string; payloadSnapshot: unknown; output: unknown } } };
    const viewerFeed = new Feed<Event>(viewerWs, doc);
    const adminFeed = new Feed<Event>(adminWs, doc);
    try {
      // Subscriptions are live once the server acknowledged them: a first run proves it.
      const query = 'query($id: ID!) { job(id: $id) { payload lastRun { payloadSnapshot output } } }';
      const run = await gql<{ runJobNow: { id: string } }, unknown>(api.url, 'mutation($id: ID!) { runJobNow(id: $id) { id } }', { id: jobId }, api.adminToken);
      const runId = run.data!.runJobNow.id;
      const viewerEvent = await viewerFeed.waitFor((e) => e.runChanged.run.id === runId && e.runChanged.run.status === 'SUCCEEDED');
      const adminEvent = await adminFeed.waitFor((e) => e.runChanged.run.id === runId && e.runChanged.run.status === 'SUCCEEDED');

      const viewer = await gql<{ job: { payload: unknown; lastRun: { payloadSnapshot: unknown; output: unknown } } }, unknown>(api.url, query, { id: jobId }, api.viewerToken);
      const admin = await gql<{ job: { payload: unknown; lastRun: { payloadSnapshot: unknown; output: unknown } } }, unknown>(api.url, query, { id: jobId }, api.adminToken);
      expect(viewer.data?.job.payload).toEqual(redacted);
      expect(viewer.data?.job.lastRun.payloadSnapshot).toEqual(redacted);
      expect(viewer.data?.job.lastRun.output).toEqual({ echoed: redacted, accessToken: REDACTED });
      expect(viewerEvent.runChanged.run.payloadSnapshot).toEqual(redacted);
      expect(viewerEvent.runChanged.run.output).toEqual({ echoed: redacted, accessToken: REDACTED });
      expect(JSON.stringify([viewer, viewerFeed.events])).not.toMatch(/S3CRET/);

      expect(admin.data?.job.payload).toEqual(payload);
      expect(admin.data?.job.lastRun.output).toEqual({ echoed: payload, accessToken: 'S3CRET-6' });
      expect(adminEvent.runChanged.run.payloadSnapshot).toEqual(payload);
    } finally {
      viewerFeed.close();
      adminFeed.close();
      await viewerWs.dispose();
      await adminWs.dispose();
    }
  });
});
