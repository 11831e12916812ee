import { FailureCode, OverlapPolicy, RunStatus, TriggerType } from '../../domain/enums.js';
import { created, type RunChange, type RunRecord } from '../../domain/run.js';
import { auditFromRows, type AuditBy } from '../audit.js';
import { jsonParam } from '../pool.js';
import { inTransaction, type Query, type RunContext } from './context.js';
import { afterRunsEnd, changedRows, publishEnded } from './end-rules.js';
import { insertRuns } from './new-runs.js';
import { FREE_LANE, NOT_BEHIND_BUFFER, OVERLAP_MESSAGE, cancelActive, lockJob } from './overlap.js';
import { rowToRun } from './record.js';
import { BUFFER_LANE, JOB, S, qualified } from './vocabulary.js';

/** What an admin does to runs by hand: run a job now, cancel a run. */

/**
 * Creates a MANUAL run of a job that is not RETIRED, or an AD_HOC one when a payload is given,
 * by the job's overlap policy like a slot: PENDING in a free lane; else buffered (BUFFER_ONE),
 * or in place of the active run (CANCEL_PREVIOUS: returned with the runs it `replaced`, for the
 * caller to abort), or SKIPPED/OVERLAP. Null when the job is RETIRED (or unknown). `traceparent`:
 * the run's trace context (tracing on), written with its row. `actor` is the run's `triggeredBy`,
 * and the audit entry `action` (the mutation) is written by the statement that creates the run.
 */
export async function insertManual(
  ctx: RunContext,
  jobId: string,
  payload: unknown | undefined,
  traceparent: string | null,
  audit: AuditBy,
): Promise<{ run: RunRecord; replaced: RunRecord[] } | null> {
  const policy = await ctx.pool.query(`SELECT overlap FROM cron_job_definitions WHERE id = $1 AND status <> ${JOB.RETIRED}`, [jobId]);
  if (!policy.rows[0]) return null;
  const overlap = policy.rows[0].overlap as OverlapPolicy;
  const source = `(SELECT $1::uuid AS job_id, $3::timestamptz AS slot, $4::jsonb AS payload) s
      JOIN cron_job_definitions j ON j.id = s.job_id AND j.status <> ${JOB.RETIRED}`;
  const trigger = payload === undefined ? TriggerType.MANUAL : TriggerType.AD_HOC;
  const now = ctx.now();
  const insert = async (q: Query, status: RunStatus, code: string | null, message: string | null, lane: string, where?: string) => {
    const insert = insertRuns(source, { trigger: '$2::text', status: '$5::text', code: '$6::text', message: '$7::text', at: '$3', lane, where, traceparent: '$8::text', triggeredBy: '$9::text' });
    // The audit entry is written by the statement that made the run: none when it made none.
    const entry = auditFromRows({
      from: 'made',
      at: '$3',
      actor: '$9::text',
      action: '$10::text',
      jobKey: 'made.job_key',
      subject: 'made.id::text',
      details: `jsonb_build_object('trigger', made.trigger_type, 'status', made.status, 'version', made.job_version)`,
    });
    const res = await q(`WITH made AS (${insert}), audit AS (${entry}) SELECT * FROM made`, [
      jobId,
      trigger,
      now,
      jsonParam(payload),
      status,
      code,
      message,
      traceparent,
      audit.actor,
      audit.action,
    ]);
    return res.rows[0] ? rowToRun(res.rows[0]) : null;
  };
  const q: Query = (text, params) => ctx.pool.query(text, params);
  let run = await insert(q, RunStatus.PENDING, null, null, FREE_LANE, NOT_BEHIND_BUFFER);
  let replaced: RunRecord[] = [];
  if (!run && overlap === OverlapPolicy.BUFFER_ONE) run = await insert(q, RunStatus.PENDING, null, null, String(BUFFER_LANE));
  if (!run && overlap === OverlapPolicy.CANCEL_PREVIOUS) {
    const done = await inTransaction(ctx.pool, async (tq) => {
      await lockJob(tq, jobId);
      const canceled = await cancelActive(tq, jobId, now);
      return { canceled, run: await insert(tq, RunStatus.PENDING, null, null, '0') };
    });
    replaced = publishEnded(ctx, done.canceled).map((c) => c.run);
    run = done.run;
  }
  run ??= await insert(q, RunStatus.SKIPPED, FailureCode.OVERLAP, OVERLAP_MESSAGE, '0');
  if (!run) return null;
  ctx.publish([created(run)]);
  return { run, replaced };
}

/** PENDING|RUNNING → CANCELED, and its audit entry (`audit`), in one statement; null when the run is terminal already (or unknown). */
export async function cancel(ctx: RunContext, runId: string, audit: AuditBy): Promise<RunChange | null> {
  const res = await ctx.pool.query(
    `WITH before AS (
         SELECT id, status FROM cron_job_runs WHERE id = $1 AND status IN (${S.ACTIVE_RUN}) FOR UPDATE
       ), done AS (
         UPDATE cron_job_runs r SET status = ${S.CANCELED}, finished_at = $2, updated_at = $2,
           failure_code = $3, failure_message = 'canceled by an admin'
         FROM before
         WHERE r.id = before.id AND r.status IN (${S.ACTIVE_RUN})
         RETURNING ${qualified('r')}, before.status AS previous_status
       ), audit AS (${auditFromRows({
         from: 'done',
         at: '$2',
         actor: '$4::text',
         action: '$5::text',
         jobKey: 'done.job_key',
         subject: 'done.id::text',
         details: `jsonb_build_object('from', done.previous_status, 'trigger', done.trigger_type)`,
       })}), ${afterRunsEnd('done', '$2')}
       ${changedRows('done', ['previous_status'])}`,
    [runId, ctx.now(), FailureCode.CANCELED, audit.actor, audit.action],
  );
  return publishEnded(ctx, res.rows)[0] ?? null;
}
