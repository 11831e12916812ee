import { describe, expect, it } from 'vitest';
import { asOf, endedRun, firedRun, rowToRun, runRecord } from '../../src/db/runs/record.js';
import { RUN_COLUMNS } from '../../src/db/runs/vocabulary.js';
import { OverlapPolicy, RunStatus, TriggerType } from '../../src/domain/enums.js';
import type { RunRecord } from '../../src/domain/run.js';

/**
 * A run record is made in one place (src/db/runs/record.ts): from a row, from what the fire path
 * inserted, as the run stood at one of its changes, or as a run's end leaves it. Whichever way,
 * it has the same fields, and a field of a state the run is not in is null.
 */
describe('run record', () => {
  const t0 = new Date('2026-11-24T12:00:00.000Z');
  const t1 = new Date('2026-11-24T12:00:01.000Z');
  const row: Record<string, unknown> = {
    id: 'r1', job_definition_id: 'j1', job_key: 'k', job_version: '3', target: 'log', payload_snapshot: { a: 1 }, trigger_type: 'SCHEDULED',
    scheduled_at: t0.toISOString(), started_at: t0.toISOString(), finished_at: t1.toISOString(), status: 'FAILED', failure_code: 'X',
    failure_message: 'm', failure_details: { d: 1 }, output: { o: 1 }, runner_instance_id: 'i1', attempt: 2, retry_of: 'r0', due_at: null,
    created_at: t0.toISOString(), updated_at: t1.toISOString(),
  };
  const fields = Object.keys(rowToRun(row)).sort();

  it('a row (pg values or to_jsonb text) reads every column of RUN_COLUMNS, dates as Dates', () => {
    const run = rowToRun(row);
    expect(fields).toHaveLength(RUN_COLUMNS.split(',').length);
    expect(run).toMatchObject({ jobVersion: 3, attempt: 2, retryOf: 'r0', dueAt: null, status: RunStatus.FAILED });
    expect(run.finishedAt).toEqual(t1);
    expect(rowToRun({ ...row, attempt: null, output: undefined }).attempt).toBe(1);
  });

  it('every way of making a record gives the same fields', () => {
    const job = { jobKey: 'k', version: 3, target: 'log', payload: undefined, overlap: OverlapPolicy.SKIP };
    const fired = firedRun('r2', 'j1', job, { scheduledAt: t0, dueAt: null }, 'i1', t0);
    const minimal = runRecord({ id: 'r3', jobId: 'j1', jobKey: 'k', jobVersion: 1, target: 't', triggerType: TriggerType.MANUAL, scheduledAt: t0, status: RunStatus.PENDING, createdAt: t0, updatedAt: t0 });
    for (const run of [fired, minimal, asOf(rowToRun(row), RunStatus.RUNNING), endedRun(fired, { status: RunStatus.SUCCEEDED }, t1)]) {
      expect(Object.keys(run).sort()).toEqual(fields);
    }
    expect(fired).toMatchObject({ status: RunStatus.RUNNING, startedAt: t0, runnerInstanceId: 'i1', payloadSnapshot: null, attempt: 1, finishedAt: null });
    expect(minimal).toMatchObject({ payloadSnapshot: null, startedAt: null, output: null, attempt: 1, retryOf: null });
  });

  it('as of an earlier change: the fields of later states are cleared; as of its own state, the record itself', () => {
    const ended = rowToRun(row);
    const pending: RunRecord = asOf(ended, RunStatus.PENDING, ended.createdAt);
    expect(pending).toMatchObject({ status: RunStatus.PENDING, startedAt: null, runnerInstanceId: null, finishedAt: null, output: null, failureCode: null, failureMessage: null, failureDetails: null, updatedAt: t0 });
    expect(asOf(ended, RunStatus.RUNNING)).toMatchObject({ status: RunStatus.RUNNING, startedAt: t0, runnerInstanceId: 'i1', finishedAt: null, output: null, updatedAt: t1 });
    expect(asOf(ended, RunStatus.FAILED)).toBe(ended);
  });

  it('a run’s end: its status and what it leaves, nothing left of an earlier end', () => {
    const running = asOf(rowToRun(row), RunStatus.RUNNING);
    expect(endedRun(running, { status: RunStatus.SUCCEEDED, output: { ok: true } }, t1)).toMatchObject({
      status: RunStatus.SUCCEEDED, finishedAt: t1, updatedAt: t1, output: { ok: true }, failureCode: null, failureMessage: null, failureDetails: null,
    });
    expect(endedRun(running, { status: RunStatus.FAILED, failureCode: 'E' }, t1)).toMatchObject({ output: null, failureCode: 'E', failureDetails: null });
  });
});
