import { FailureCode } from '../../domain/enums.js';
import { created, type RunRecord } from '../../domain/run.js';
import type { RunContext } from './context.js';
import { insertRuns } from './new-runs.js';
import { retiresOneTime } from './end-rules.js';
import { rowToRun } from './record.js';
import { JOB, S, SCHEDULED } from './vocabulary.js';

/**
 * skipNextRuns in the fire path: a job with slots left to skip (`skip_remaining > 0`) has its due
 * slots recorded SKIPPED (SKIPPED_BY_ADMIN, the admin's reason as the message) instead of run,
 * and the count goes down by the slots recorded — in one statement that first locks the job's
 * row, so two instances recording the same slot (the slot key: one row) or two slots at once
 * never skip more than asked. The main fire statement leaves these jobs' slots alone
 * (`NO_SKIP_ASKED`): a job without skips pays nothing more than that comparison.
 *
 * A skipped slot ends nothing else (no failure counted, nothing promoted, no retry), but it may
 * be a job's last one: a one-time job, or a recurring job's final slot, retires with it, by the
 * rule every ended run follows (`retiresOneTime`), in the same UPDATE that counts the skip down.
 */

/** The main fire statement's condition: the job has no slot left to skip. */
export const NO_SKIP_ASKED = 'j.skip_remaining = 0';

/** Records the slots (job id, slot) of jobs with skips asked as SKIPPED_BY_ADMIN; the runs made, by `${jobId}@${slot ms}`. */
export async function recordAdminSkips(ctx: RunContext, slots: readonly { jobId: string; slot: Date }[], now: Date): Promise<Map<string, RunRecord>> {
  const source = `(SELECT u.job_id, u.slot, NULL::jsonb AS payload, row_number() OVER (PARTITION BY u.job_id ORDER BY u.slot) AS n
        FROM unnest($1::uuid[], $2::timestamptz[]) AS u(job_id, slot)) s
      JOIN locked l ON l.id = s.job_id AND s.n <= l.skip_remaining
      JOIN cron_job_definitions j ON j.id = s.job_id`;
  const res = await ctx.pool.query(
    `WITH locked AS (
         SELECT id, skip_remaining, skip_reason FROM cron_job_definitions
         WHERE id = ANY($1::uuid[]) AND status = ${JOB.ACTIVE} AND skip_remaining > 0
         ORDER BY id FOR UPDATE
       ), ins AS (${insertRuns(source, {
         trigger: SCHEDULED,
         status: S.SKIPPED,
         code: '$3',
         message: 'l.skip_reason',
         details: `jsonb_build_object('left', l.skip_remaining - s.n)`,
         at: '$4',
       })}), c AS (
         SELECT job_definition_id, count(*)::int AS n, max(scheduled_at) AS scheduled_at, ${SCHEDULED} AS trigger_type, ${S.SKIPPED} AS status FROM ins GROUP BY job_definition_id
       ), counted AS (
         UPDATE cron_job_definitions d SET skip_remaining = d.skip_remaining - c.n,
           status = CASE WHEN ${retiresOneTime('c', 'd')} THEN ${JOB.RETIRED} ELSE d.status END,
           pause_reason = CASE WHEN ${retiresOneTime('c', 'd')} THEN NULL ELSE d.pause_reason END,
           updated_at = CASE WHEN ${retiresOneTime('c', 'd')} THEN $4::timestamptz ELSE d.updated_at END
         FROM c WHERE d.id = c.job_definition_id
         RETURNING d.id
       )
     SELECT ins.*, (SELECT count(*) FROM counted) AS counted FROM ins`,
    [slots.map((s) => s.jobId), slots.map((s) => s.slot), FailureCode.SKIPPED_BY_ADMIN, now],
  );
  const runs = new Map<string, RunRecord>();
  for (const row of res.rows) {
    const run = rowToRun(row);
    runs.set(`${run.jobId}@${run.scheduledAt.getTime()}`, run);
  }
  ctx.publish([...runs.values()].map(created));
  return runs;
}
