import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  CancelRunDocument,
  CreateJobDocument,
  CreateJobVersionDocument,
  JobDocument,
  PauseJobDocument,
  ResumeJobDocument,
  RetireJobDocument,
  RunChangedDocument,
  RunJobNowDocument,
  RunsDocument,
  type RunChangedSubscription,
} from '../../src/client/generated/graphql.js';
import { Feed, codes, gql, ok, startApi, wsClient, type Api } from './support.js';
import { eventually } from '../support/cronql.js';

/**
 * The admin journey of issue 3, over real HTTP and WebSocket with the typed documents of
 * src/client: create a seconds job, watch a scheduled run go PENDING → RUNNING → SUCCEEDED in
 * a subscription, pause (a blank reason is refused), run now, resume, new version, retire, and
 * cancel a running run — each visible in `runs`.
 */
let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => {
  await api?.close();
});

type Change = RunChangedSubscription['runChanged'];

test('the admin journey', async () => {
  const { url, wsUrl, adminToken: admin } = api;
  const client = wsClient(wsUrl, admin);
  const feed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobKey: 'journey' } });
  const sleepFeed = new Feed<RunChangedSubscription>(client, RunChangedDocument, { filter: { jobKey: 'sleeper' } });
  try {
    // Subscribed before the job exists: the filter is on the server, not on an id.
    await waitSubscribed(client);

    const { createJob: v1 } = await ok(url, CreateJobDocument, {
      input: {
        key: 'journey',
        target: 'log',
        scheduleType: 'RECURRING',
        cronExpression: '*/1 * * * * *',
        payload: { message: 'tick' },
        timezone: 'europe/berlin',
      },
    }, admin);
    expect(v1).toMatchObject({ key: 'journey', version: 1, status: 'ACTIVE', timezone: 'Europe/Berlin', createdBy: 'admin' });
    expect(v1.createdAt).toMatch(/Z$/);
    expect(v1.nextRunAt).toMatch(/Z$/);

    // A scheduled run, created, started and finished, in that order, without polling. (On a busy
    // machine the first slots may be recorded SKIPPED/MISSED, a stall: the run followed is one created PENDING.)
    const created = await feed.waitFor((e) => e.runChanged.previousStatus === null && e.runChanged.run.triggerType === 'SCHEDULED' && e.runChanged.run.status === 'PENDING');
    const runId = created.runChanged.run.id;
    const succeeded = await feed.waitFor((e) => e.runChanged.run.id === runId && e.runChanged.run.status === 'SUCCEEDED');
    const ofRun = feed.events.map((e) => e.runChanged).filter((c: Change) => c.run.id === runId);
    expect(ofRun.map((c) => [c.previousStatus, c.run.status])).toEqual([
      [null, 'PENDING'],
      ['PENDING', 'RUNNING'],
      ['RUNNING', 'SUCCEEDED'],
    ]);
    expect(succeeded.runChanged.run).toMatchObject({ jobKey: 'journey', jobVersion: 1, output: { message: 'tick' }, job: { id: v1.id } });
    expect(succeeded.runChanged.run.durationMs).toBeGreaterThanOrEqual(0);

    // Pause: a blank reason is refused and changes nothing; a real one pauses.
    const blank = await gql(url, PauseJobDocument, { id: v1.id, reason: '   ' }, admin);
    expect(codes(blank)).toEqual(['REASON_REQUIRED']);
    const paused = (await ok(url, PauseJobDocument, { id: v1.id, reason: 'maintenance window' }, admin)).pauseJob;
    expect(paused).toMatchObject({ status: 'PAUSED', pauseReason: 'maintenance window', nextRunAt: null, updatedBy: 'admin' });

    // A slot that fell due just before the pause may still be running (on a busy machine it
    // does): run-now would then be SKIPPED (OVERLAP), as it should. Wait until nothing is active.
    await eventually(async () => (await ok(url, RunsDocument, { filter: { jobId: v1.id, status: ['PENDING', 'RUNNING'] } }, admin)).runs.totalCount === 0, 30_000);

    // Run now while paused: a MANUAL run, then an AD_HOC one with its own payload.
    const manual = (await ok(url, RunJobNowDocument, { id: v1.id }, admin)).runJobNow;
    expect(manual.triggerType).toBe('MANUAL');
    await feed.waitFor((e) => e.runChanged.run.id === manual.id && e.runChanged.run.status === 'SUCCEEDED');
    const adHoc = (await ok(url, RunJobNowDocument, { id: v1.id, payload: { message: 'by hand' } }, admin)).runJobNow;
    expect(adHoc).toMatchObject({ triggerType: 'AD_HOC', payloadSnapshot: { message: 'by hand' } });
    const adHocDone = await feed.waitFor((e) => e.runChanged.run.id === adHoc.id && e.runChanged.run.status === 'SUCCEEDED');
    expect(adHocDone.runChanged.run.output).toEqual({ message: 'by hand' });

    const resumed = (await ok(url, ResumeJobDocument, { id: v1.id }, admin)).resumeJob;
    expect(resumed).toMatchObject({ status: 'ACTIVE', pauseReason: null });
    expect(resumed.nextRunAt).not.toBeNull();

    // A new version replaces v1 atomically and keeps what was not given.
    const v2 = (await ok(url, CreateJobVersionDocument, { id: v1.id, input: { cronExpression: '*/2 * * * * *' } }, admin)).createJobVersion;
    expect(v2).toMatchObject({
      key: 'journey',
      version: 2,
      status: 'ACTIVE',
      cronExpression: '*/2 * * * * *',
      target: 'log',
      timezone: 'Europe/Berlin',
      payload: { message: 'tick' },
      supersedes: { id: v1.id, version: 1, status: 'RETIRED' },
    });
    const oldVersion = (await ok(url, JobDocument, { id: v1.id }, admin)).job;
    expect(oldVersion).toMatchObject({ status: 'RETIRED', supersededBy: { id: v2.id, version: 2 } });

    const retired = (await ok(url, RetireJobDocument, { id: v2.id }, admin)).retireJob;
    expect(retired).toMatchObject({ status: 'RETIRED', nextRunAt: null });

    // Cancel a running run: a sleeper run now, canceled mid-sleep.
    const { createJob: sleeper } = await ok(url, CreateJobDocument, {
      input: {
        key: 'sleeper',
        target: 'sleep',
        scheduleType: 'ONE_TIME',
        runAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
        payload: { ms: 60_000 },
      },
    }, admin);
    const sleeping = (await ok(url, RunJobNowDocument, { id: sleeper.id }, admin)).runJobNow;
    await sleepFeed.waitFor((e) => e.runChanged.run.id === sleeping.id && e.runChanged.run.status === 'RUNNING');
    const canceled = (await ok(url, CancelRunDocument, { id: sleeping.id }, admin)).cancelRun;
    expect(canceled.status).toBe('CANCELED');
    const canceledEvent = await sleepFeed.waitFor((e) => e.runChanged.run.id === sleeping.id && e.runChanged.run.status === 'CANCELED');
    expect(canceledEvent.runChanged.previousStatus).toBe('RUNNING');

    // Everything above is in `runs`.
    const runs = (await ok(url, RunsDocument, { filter: { jobKey: 'journey' }, first: 500 }, admin)).runs;
    const byId = new Map(runs.edges.map((e) => [e.node.id, e.node]));
    expect(byId.get(runId)).toMatchObject({ status: 'SUCCEEDED', triggerType: 'SCHEDULED' });
    expect(byId.get(manual.id)).toMatchObject({ status: 'SUCCEEDED', triggerType: 'MANUAL' });
    expect(byId.get(adHoc.id)).toMatchObject({ status: 'SUCCEEDED', triggerType: 'AD_HOC' });
    expect(runs.totalCount).toBe(runs.edges.length);
    const sleeperRuns = (await ok(url, RunsDocument, { filter: { jobId: sleeper.id } }, admin)).runs;
    expect(sleeperRuns.edges.map((e) => [e.node.id, e.node.status, e.node.failureCode])).toEqual([[sleeping.id, 'CANCELED', 'CANCELED']]);
    const job = (await ok(url, JobDocument, { id: v1.id, runStatus: ['SUCCEEDED'], runsFirst: 2 }, admin)).job!;
    expect(job.runs.nodes).toHaveLength(2);
    expect(job.runs.pageInfo.hasNextPage).toBe(job.runs.totalCount > 2);
    expect(job.lastRun?.jobVersion).toBe(1);
    expect(feed.errors).toEqual([]);
  } finally {
    feed.close();
    sleepFeed.close();
    await client.dispose();
  }
});

/** graphql-ws acknowledges the connection before it reads subscribe messages; one round trip settles both. */
async function waitSubscribed(client: ReturnType<typeof wsClient>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const off = client.on('connected', () => (off(), resolve()));
    setTimeout(() => reject(new Error('no connection')), 5_000);
  });
}
