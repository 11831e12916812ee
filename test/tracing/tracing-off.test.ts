import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/cronql.js';
import { createJob, useProcessTest } from '../process/support.js';

/**
 * Tracing off (no OTLP endpoint in the environment): nothing of OpenTelemetry is loaded — a real
 * `npm start` process whose module loader refuses every `@opentelemetry/*` import
 * (test/fixtures/forbid-opentelemetry.mjs) starts, runs a run-now, and answers — and runs have
 * no trace id.
 */
const forbid = fileURLToPath(new URL('../fixtures/forbid-opentelemetry.mjs', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('tracing off', () => {
  const t = useProcessTest();

  it('the guard refuses an @opentelemetry import (so the next test can fail)', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', forbid, '--input-type=module', '-e', "await import('@opentelemetry/api')"], { cwd: root });
    await expect(run).rejects.toThrow(/loaded @opentelemetry\/api with tracing off/);
  });

  it('a process without OTEL_EXPORTER_OTLP_ENDPOINT loads no @opentelemetry module; its runs have traceId null', async () => {
    const p = await t.spawn({ databaseUrl: t.url, shell: `node --import ${forbid} dist/src/main.js` });
    const jobId = await createJob(p, { key: 'untraced', cronExpression: '0 0 1 1 *' });
    const made = await p.graphql<{ runJobNow: { id: string; traceId: string | null } }>('mutation($id: ID!) { runJobNow(id: $id) { id traceId } }', { id: jobId });
    expect(made.errors).toBeUndefined();
    const runId = made.data!.runJobNow.id;
    expect(made.data!.runJobNow.traceId).toBeNull();
    const ended = await eventually(async () => {
      const res = await p.graphql<{ run: { status: string; traceId: string | null } }>('query($id: ID!) { run(id: $id) { status traceId } }', { id: runId });
      return res.data?.run.status === 'SUCCEEDED' ? res.data.run : null;
    }, 20_000);
    expect(ended.traceId).toBeNull();
    expect(p.logs.filter((l) => /opentelemetry/i.test(l.line))).toEqual([]);
  });
});
