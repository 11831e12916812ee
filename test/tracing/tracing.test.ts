import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackoffKind, ScheduleType } from '../../src/domain/enums.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { TargetError } from '../../src/runtime/targets/target.js';
import { runSpanId } from '../../src/tracing/traceparent.js';
import { startApi, wsClient, type Api } from '../graphql/support.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { nextEvent } from '../support/wait-for.js';
import { targetContext } from '../support/target-context.js';
import { createHttpTarget } from '../../src/runtime/targets/builtin/http.js';
import { startCronql, testDatabase } from '../support/cronql.js';

/**
 * OpenTelemetry traces end to end (docs/operations.md, "Tracing"): cronql exports over OTLP/HTTP
 * to an in-process receiver that decodes the protobuf export, and the spans are read back from it.
 */
describe('tracing on', () => {
  let receiver: OtlpReceiver;
  let api: Api;
  let target: Server;
  let targetUrl: string;
  const seen: IncomingHttpHeaders[] = [];
  const clock = new ManualClock('2026-06-01T12:00:00.500Z');

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    // Read by the exporter (the endpoint) and by cronql (the batch delay: spans leave within 50 ms).
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    target = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    api = await startApi({
      tracing: true,
      clock,
      httpAllowPrivate: true,
      shutdownGraceMs: 2_000,
      targets: {
        traced: (ctx) => ({ traceparent: ctx.traceparent }),
        boom: () => {
          throw new TargetError('BOOM', 'it broke');
        },
        'flaky-once': ({ run }) => {
          if (run.attempt === 1) throw new TargetError('FLAKY', 'first attempt fails');
        },
      },
    });
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
    await new Promise((r) => target?.close(r));
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  });

  const inTrace = (traceId: string) => (spans: ReceivedSpan[]) => spans.filter((s) => s.traceId === traceId);

  it('a run-now mutation, its run and the http target request share one trace; Run.traceId is its id', async () => {
    const job = await api.cronql.jobs.create({ key: 'traced-http', target: 'http', payload: { url: targetUrl, method: 'GET' }, scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    // The caller's own trace: cronql's operation span continues it.
    const callerTrace = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const ended = nextEvent(api.cronql.runtimeEvents, 'runEnded', (e) => e.jobId === job.id);
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}`, traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: JSON.stringify({ query: 'mutation RunIt($id: ID!) { runJobNow(id: $id) { id traceId } }', variables: { id: job.id } }),
    });
    const body = (await res.json()) as { data: { runJobNow: { id: string; traceId: string } } };
    const run = body.data.runJobNow;
    expect(run.traceId).toBe(callerTrace);
    expect((await ended).status).toBe('SUCCEEDED');

    const spans = inTrace(callerTrace)(await receiver.waitFor((all) => inTrace(callerTrace)(all).length >= 4));
    const op = spans.find((s) => s.name === 'mutation RunIt')!;
    const runSpan = spans.find((s) => s.name === 'run traced-http')!;
    const claim = spans.find((s) => s.name === 'claim')!;
    const handler = spans.find((s) => s.name === 'handler http')!;
    expect(op.parentSpanId).toBe(callerSpan);
    expect(op.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'RunIt', 'cronql.graphql.transport': 'http' });
    expect(runSpan.parentSpanId).toBe(op.spanId);
    expect(runSpan.spanId).toBe(runSpanId(run.id));
    expect(runSpan.attributes).toMatchObject({ 'cronql.job.key': 'traced-http', 'cronql.run.trigger': 'MANUAL', 'cronql.run.status': 'SUCCEEDED' });
    expect(claim.parentSpanId).toBe(runSpan.spanId);
    expect(handler.parentSpanId).toBe(runSpan.spanId);
    expect(runSpan.resource).toMatchObject({ 'service.name': 'cronql', 'service.instance.id': api.cronql.instanceId });

    // The receiving server was called within the handler's span.
    expect(seen.at(-1)?.traceparent).toBe(`00-${callerTrace}-${handler.spanId}-01`);
    // What the API says of the run later, too.
    const read = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}` },
      body: JSON.stringify({ query: 'query($id: ID!) { run(id: $id) { traceId } }', variables: { id: run.id } }),
    });
    expect(((await read.json()) as { data: { run: { traceId: string } } }).data.run.traceId).toBe(callerTrace);
  });

  it("a scheduled run's trace starts at the run: its span is the root, with the run's attributes; ctx.traceparent names its handler span", async () => {
    const ok = await api.cronql.jobs.create({ key: 'traced-slot', target: 'traced', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    const bad = await api.cronql.jobs.create({ key: 'traced-boom', target: 'boom', scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *' });
    const okEnded = nextEvent(api.cronql.runtimeEvents, 'runEnded', (e) => e.jobId === ok.id);
    const badEnded = nextEvent(api.cronql.runtimeEvents, 'runEnded', (e) => e.jobId === bad.id);
    clock.set('2026-06-01T12:00:10.000Z');
    const [okRun, badRun] = await Promise.all([okEnded, badEnded]).then(([a, b]) => Promise.all([api.cronql.runs.get(a.runId), api.cronql.runs.get(b.runId)]));
    const traceId = okRun!.traceparent!.slice(3, 35);
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(badRun!.traceparent!.slice(3, 35)).not.toBe(traceId);

    const spans = inTrace(traceId)(await receiver.waitFor((all) => inTrace(traceId)(all).length >= 3));
    const runSpan = spans.find((s) => s.name === 'run traced-slot')!;
    expect(runSpan.parentSpanId).toBe('');
    expect(runSpan.spanId).toBe(runSpanId(okRun!.id));
    expect(runSpan.attributes).toEqual({
      'cronql.job.key': 'traced-slot',
      'cronql.job.version': 1,
      'cronql.run.id': okRun!.id,
      'cronql.run.slot': '2026-06-01T12:00:10.000Z',
      'cronql.run.trigger': 'SCHEDULED',
      'cronql.run.attempt': 1,
      'cronql.run.status': 'SUCCEEDED',
    });
    expect(spans.filter((s) => s.parentSpanId === runSpan.spanId).map((s) => s.name).sort()).toEqual(['claim', 'handler traced']);
    const handler = spans.find((s) => s.name === 'handler traced')!;
    expect(okRun!.output).toEqual({ traceparent: `00-${traceId}-${handler.spanId}-01` });
    // Its spans nest in time: the claim, then the handler, within the run.
    expect(runSpan.startNanos <= handler.startNanos && handler.endNanos <= runSpan.endNanos).toBe(true);

    const badTrace = badRun!.traceparent!.slice(3, 35);
    const failed = (await receiver.waitFor((all) => all.some((s) => s.traceId === badTrace && s.name === 'run traced-boom'))).find((s) => s.traceId === badTrace && s.name === 'run traced-boom')!;
    expect(failed.attributes).toMatchObject({ 'cronql.run.status': 'FAILED', 'cronql.run.failure_code': 'BOOM' });
    expect(failed.statusCode).toBe(2);
  });

  it('a retry stays in the trace of its first attempt', async () => {
    const job = await api.cronql.jobs.create({
      key: 'traced-retry', target: 'flaky-once', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *',
      retry: { maxAttempts: 2, backoff: BackoffKind.FIXED, delaySeconds: 0 },
    });
    const ends: string[] = [];
    const both = new Promise<void>((resolve) => {
      const off = api.cronql.runtimeEvents.on('runEnded', (e) => {
        if (e.jobId !== job.id) return;
        ends.push(e.status);
        if (ends.length === 2) resolve(off());
      });
    });
    const first = await api.cronql.runs.runNow(job.id);
    await both;
    expect(ends).toEqual(['FAILED', 'SUCCEEDED']);
    const runs = (await api.cronql.runs.list({ jobId: job.id }, 10)).nodes;
    expect(runs.map((r) => r.attempt).sort()).toEqual([1, 2]);
    expect(new Set(runs.map((r) => r.traceparent))).toEqual(new Set([first.traceparent]));
    const traceId = first.traceparent!.slice(3, 35);
    const spans = inTrace(traceId)(await receiver.waitFor((all) => inTrace(traceId)(all).filter((s) => s.name === 'run traced-retry').length === 2));
    expect(spans.filter((s) => s.name === 'run traced-retry').map((s) => s.attributes['cronql.run.attempt']).sort()).toEqual([1, 2]);
  });

  it("a backfill's runs continue its mutation's trace, one run span per slot under the operation's span", async () => {
    const job = await api.cronql.jobs.create({ key: 'traced-backfill', target: 'traced', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 * * * *' });
    const callerTrace = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';
    const callerSpan = '0badc0de0badc0de';
    const ends: string[] = [];
    const both = new Promise<void>((resolve) => {
      const off = api.cronql.runtimeEvents.on('runEnded', (e) => {
        if (e.jobId !== job.id) return;
        ends.push(e.runId);
        if (ends.length === 2) resolve(off());
      });
    });
    // Two past slots (10:00 and 11:00 of the manual clock's day), run one after the other.
    const res = await fetch(api.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.adminToken}`, traceparent: `00-${callerTrace}-${callerSpan}-01` },
      body: JSON.stringify({
        query: 'mutation Refill($id: ID!) { backfillJob(id: $id, from: "2026-06-01T10:00:00Z", to: "2026-06-01T11:00:00Z", scope: ALL, reason: "traced") { slots } }',
        variables: { id: job.id },
      }),
    });
    expect(((await res.json()) as { data: { backfillJob: { slots: string[] } } }).data.backfillJob.slots).toHaveLength(2);
    await both;
    const runs = await Promise.all(ends.map((id) => api.cronql.runs.get(id)));
    expect(runs.map((r) => [r!.triggerType, r!.status, r!.traceparent?.slice(3, 35)])).toEqual([
      ['BACKFILL', 'SUCCEEDED', callerTrace],
      ['BACKFILL', 'SUCCEEDED', callerTrace],
    ]);

    const spans = inTrace(callerTrace)(await receiver.waitFor((all) => inTrace(callerTrace)(all).filter((s) => s.name === 'run traced-backfill').length === 2));
    const op = spans.find((s) => s.name === 'mutation Refill')!;
    expect(op.parentSpanId).toBe(callerSpan);
    const runSpans = spans.filter((s) => s.name === 'run traced-backfill');
    expect(runSpans.map((s) => s.parentSpanId)).toEqual([op.spanId, op.spanId]);
    expect(runSpans.map((s) => s.attributes['cronql.run.trigger'])).toEqual(['BACKFILL', 'BACKFILL']);
    expect(runSpans.map((s) => s.attributes['cronql.run.slot']).sort()).toEqual(['2026-06-01T10:00:00.000Z', '2026-06-01T11:00:00.000Z']);
    // Each run's handler was given its own span of that trace.
    for (const run of runs) {
      const handler = spans.find((s) => s.name === 'handler traced' && s.parentSpanId === runSpanId(run!.id))!;
      expect(run!.output).toEqual({ traceparent: `00-${callerTrace}-${handler.spanId}-01` });
    }
  });

  it("a run whose runner is gone: the instance that ends it emits the run's span (same ids), saying it ended it", async () => {
    const job = await api.cronql.jobs.create({ key: 'traced-lost', target: 'traced', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
    const id = randomUUID();
    const traceId = 'fedcba98765432100123456789abcdef';
    const startedAt = new Date(clock.now().getTime() - 3_600_000);
    // A run of a runner that never registered, older than the stale threshold: the rescue ends it.
    await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id, traceparent)
       VALUES ($1, $2, 'traced-lost', 1, 'traced', 'SCHEDULED', $3, 'RUNNING', $3, 'gone-instance', $4)`,
      [id, job.id, startedAt, `00-${traceId}-0000000000000000-01`],
    );
    await api.cronql.runtime!.sweep();
    expect(await api.cronql.runs.get(id)).toMatchObject({ status: 'FAILED', failureCode: 'STALE_TIMEOUT' });
    const [span] = inTrace(traceId)(await receiver.waitFor((all) => inTrace(traceId)(all).length >= 1));
    expect(span).toMatchObject({ name: 'run traced-lost', spanId: runSpanId(id), parentSpanId: '', statusCode: 2 });
    expect(span.attributes).toMatchObject({ 'cronql.run.status': 'FAILED', 'cronql.run.failure_code': 'STALE_TIMEOUT', 'cronql.run.ended_by': api.cronql.instanceId });
    expect(span.startNanos).toBe(BigInt(startedAt.getTime()) * 1_000_000n);
  });

  it("a run whose handler stopped beating, ended by the heartbeat rule for its gone runner, gets its span too", async () => {
    const job = await api.cronql.jobs.create({ key: 'traced-silent', target: 'traced', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *', heartbeatTimeoutSeconds: 60 });
    const id = randomUUID();
    const traceId = '0123456789abcdeffedcba9876543210';
    // Silent for 5 minutes: past its 60 s heartbeat timeout, not yet stale (15 minutes), so the
    // heartbeat rule ends it, not the lost-run rescue (which ends a never-registered runner's runs once stale).
    const startedAt = new Date(clock.now().getTime() - 300_000);
    await api.cronql.pool.query(
      `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, trigger_type, scheduled_at, status, started_at, runner_instance_id, traceparent)
       VALUES ($1, $2, 'traced-silent', 1, 'traced', 'SCHEDULED', $3, 'RUNNING', $3, 'gone-instance', $4)`,
      [id, job.id, startedAt, `00-${traceId}-0000000000000000-01`],
    );
    await api.cronql.runtime!.sweep();
    expect(await api.cronql.runs.get(id)).toMatchObject({ status: 'FAILED', failureCode: 'HEARTBEAT_TIMEOUT' });
    const [span] = inTrace(traceId)(await receiver.waitFor((all) => inTrace(traceId)(all).length >= 1));
    expect(span).toMatchObject({ name: 'run traced-silent', spanId: runSpanId(id), statusCode: 2 });
    expect(span.attributes).toMatchObject({ 'cronql.run.failure_code': 'HEARTBEAT_TIMEOUT', 'cronql.run.ended_by': api.cronql.instanceId });
  });

  it('a graphql-ws operation gets its span (graphql-ws bypasses Apollo), continuing the traceparent of its extensions', async () => {
    const client = wsClient(api.wsUrl, api.adminToken);
    const traceId = 'aaaabbbbccccddddeeeeffff00001111';
    try {
      await new Promise<void>((resolve, reject) => {
        client.subscribe(
          { query: 'query OverWs { runs(first: 1) { totalCount } }', extensions: { traceparent: `00-${traceId}-1111222233334444-01` } },
          { next: () => {}, error: reject, complete: resolve },
        );
      });
    } finally {
      await client.dispose();
    }
    const [span] = inTrace(traceId)(await receiver.waitFor((all) => inTrace(traceId)(all).length >= 1));
    expect(span).toMatchObject({ name: 'query OverWs', parentSpanId: '1111222233334444', kind: 2 });
    expect(span.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'OverWs', 'cronql.graphql.transport': 'ws' });
  });
});

describe('the http target and the handler context', () => {
  it("sends the handler's traceparent, unless the payload sets its own; sends none while tracing is off", async () => {
    const got: (string | undefined)[] = [];
    const server = createServer((req, res) => {
      got.push(req.headers.traceparent as string | undefined);
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const http = createHttpTarget({ allowPrivate: true });
      const mine = `00-${'1'.repeat(32)}-${'2'.repeat(16)}-01`;
      const theirs = `00-${'3'.repeat(32)}-${'4'.repeat(16)}-01`;
      await http.handler({ ...targetContext({ url, method: 'GET' }), traceparent: mine });
      await http.handler({ ...targetContext({ url, method: 'GET', headers: { TraceParent: theirs } }), traceparent: mine });
      await http.handler(targetContext({ url, method: 'GET' }));
      expect(got).toEqual([mine, theirs, undefined]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('tracing on, stopping', () => {
  it('an orderly stop exports the spans still queued', async () => {
    const receiver = await startOtlpReceiver();
    const db = await testDatabase();
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
    // Nothing leaves on its own within the test: only the stop's flush can send the spans.
    process.env.OTEL_BSP_SCHEDULE_DELAY = '600000';
    try {
      const cronql = await startCronql(db.url, { tracing: true });
      const job = await cronql.jobs.create({ key: 'flushed', target: 'log', scheduleType: ScheduleType.RECURRING, cronExpression: '0 0 1 1 *' });
      const ended = nextEvent(cronql.runtimeEvents, 'runEnded', (e) => e.jobId === job.id);
      const run = await cronql.runs.runNow(job.id);
      await ended;
      expect(receiver.count).toBe(0);
      await cronql.stop();
      const traceId = run.traceparent!.slice(3, 35);
      expect(receiver.spans.filter((s) => s.traceId === traceId).map((s) => s.name).sort()).toEqual(['claim', 'handler log', 'run flushed']);
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      delete process.env.OTEL_BSP_SCHEDULE_DELAY;
      await receiver.close();
      await db.drop();
    }
  });
});

