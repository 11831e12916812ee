import { RunStatus } from '../../domain/enums.js';
import type { RunRecord } from '../../domain/run.js';
import { jsonParam } from '../pool.js';
import { instantArray, nullsOr, uuidArray, wordArray } from '../array-literals.js';
import { afterFires, type RunContext } from './context.js';
import { afterRunsEnd, changedIds, changedRows, publishEnded } from './end-rules.js';
import { endedRun, type Finish } from './record.js';
import { S, qualified } from './vocabulary.js';

/**
 * The executor's ends of runs: RUNNING → SUCCEEDED | FAILED | CANCELED, runs ending together in
 * one UPDATE, with what follows an end (`afterRunsEnd`) in the same statement.
 */

/** A run's end to record; with the run as this instance knows it, the statement need not send it back. */
export interface Ending {
  runId: string;
  run?: RunRecord;
  finish: Finish;
  /** When its handler was entered, if not written yet: its `startedAt` (`started.ts`). */
  startedAt?: Date;
}

export const ending = (run: RunRecord | string, finish: Finish, startedAt?: Date): Ending =>
  typeof run === 'string' ? { runId: run, finish, startedAt } : { runId: run.id, run, finish, startedAt };

/**
 * The handler's last report, when the run given says it beat (the executor's record carries the
 * reports it took off the write queue, `progress.ts`): written with the end.
 */
const beat = (i: Ending): RunRecord | null => (i.run?.heartbeatAt ? i.run : null);

/**
 * Records the ends of `all` (RUNNING → terminal); null for a run that was no longer RUNNING
 * (canceled or failed by someone else meanwhile): terminal states never change.
 */
export async function finishBatch(ctx: RunContext, all: Ending[]): Promise<(RunRecord | null)[]> {
  // Co-due slots first: this UPDATE would compete with their INSERT for the same indexes.
  await afterFires(ctx);
  const now = ctx.now();
  // One outcome per run: a second one in the same batch loses.
  const seen = new Set<string>();
  const items = all.filter((i) => !seen.has(i.runId) && seen.add(i.runId)).sort((a, b) => (a.runId < b.runId ? -1 : 1));
  const slim = items.every((i) => i.run);
  const res = await ctx.pool.query(
    `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::jsonb[], $8::timestamptz[],
             $9::float8[], $10::text[], $11::timestamptz[])
           AS t(id, status, output, failure_code, failure_message, failure_details, started_at, progress, progress_message, heartbeat_at)
       ), done AS (
         UPDATE cron_job_runs r SET status = i.status, finished_at = $7, updated_at = $7, output = i.output,
           started_at = coalesce(i.started_at, r.started_at),
           -- a handler that reported: its last report (a beat always comes with one)
           progress = CASE WHEN i.heartbeat_at IS NULL THEN r.progress ELSE i.progress END,
           progress_message = CASE WHEN i.heartbeat_at IS NULL THEN r.progress_message ELSE i.progress_message END,
           heartbeat_at = coalesce(i.heartbeat_at, r.heartbeat_at),
           failure_code = i.failure_code, failure_message = i.failure_message, failure_details = i.failure_details
         FROM input i
         WHERE r.id = i.id AND r.status = ${S.RUNNING}
         RETURNING ${qualified('r')}
       ), ${afterRunsEnd('done', '$7')}
       ${slim ? changedIds('done') : changedRows('done')}`,
    // As literals where the values need no quoting, and all-null arrays as such: pg's own
    // serialisation of eleven arrays of 10,000 co-due ends (a Date at ~1 µs, every string escaped)
    // ran on the cores the next fire's statement needs (BENCHMARKS.md, "2026-11-26 (s8, N)").
    [
      uuidArray(items.map((i) => i.runId)),
      wordArray(items.map((i) => i.finish.status)),
      nullsOr(items.map((i) => jsonParam(i.finish.output))),
      nullsOr(items.map((i) => i.finish.failureCode ?? null)),
      nullsOr(items.map((i) => i.finish.failureMessage ?? null)),
      nullsOr(items.map((i) => jsonParam(i.finish.failureDetails))),
      now,
      instantArray(items.map((i) => i.startedAt ?? null)),
      nullsOr(items.map((i) => beat(i)?.progress ?? null)),
      nullsOr(items.map((i) => beat(i)?.progressMessage ?? null)),
      instantArray(items.map((i) => beat(i)?.heartbeatAt ?? null)),
    ],
  );
  // The ended runs as the rows now hold them: known ones built here (what the statement wrote).
  const known = slim ? new Map(items.map((i) => [i.runId, endedRun(i.run!, i.finish, now)])) : undefined;
  const byId = new Map(publishEnded(ctx, res.rows, RunStatus.RUNNING, known).map((c) => [c.run.id, c.run]));
  return all.map((i) => {
    const run = byId.get(i.runId) ?? null;
    byId.delete(i.runId);
    return run;
  });
}
