import type { RunContext } from './context.js';
import { Channel } from '../notifier.js';
import { CRONQL, JOB, S } from './vocabulary.js';

/**
 * Retires an ACTIVE job whose schedule has no slot left (its `endAt` passed, its expressions' years
 * are past) and that has no run in progress — a job with a run in progress retires when that run
 * ends, by the end rules. Conditional on the revision the caller saw, so a job changed meanwhile
 * (resumed with a new version, its bounds moved) is left alone; every instance is told. Returns
 * whether it retired the job.
 */
export async function retireExhausted(ctx: RunContext, jobId: string, revision: number): Promise<boolean> {
  const at = ctx.now();
  const res = await ctx.pool.query(
    `WITH retired AS (
       UPDATE cron_job_definitions d SET status = ${JOB.RETIRED}, pause_reason = NULL, updated_by = '${CRONQL}', updated_at = $3
       WHERE d.id = $1 AND d.revision = $2 AND d.status = ${JOB.ACTIVE}
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.job_definition_id = d.id AND r.status IN (${S.ACTIVE_RUN}))
       RETURNING d.id)
     SELECT count(pg_notify('${Channel.JOB_CHANGED}', id::text)) AS n FROM retired`,
    [jobId, revision, at],
  );
  return Number(res.rows[0]?.n ?? 0) > 0;
}
