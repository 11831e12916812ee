import { BackfillState } from '../../domain/enums.js';
import { created, type RunRecord } from '../../domain/run.js';
import { B } from '../backfill-store.js';
import { inTransaction, type Query, type RunContext } from './context.js';
import { insertRuns } from './new-runs.js';
import { FREE_LANE, NOT_BEHIND_BUFFER } from './overlap.js';
import { rowToRun } from './record.js';
import { BACKFILL, JOB, S } from './vocabulary.js';

/**
 * A backfill's runs: its slots, oldest first, one at a time (docs/behaviour.md, "Backfill").
 * Whoever advances a backfill — the instance whose backfill run just ended, the cluster's
 * backfill duty, the service that created it — does it under the backfill row's lock, so a slot
 * starts once however many try at once; and each step is one transaction, so a crash leaves the
 * plan as it was or one step further, never a slot started twice.
 */

/**
 * A slot `s` whose run `f` has ended, retries included: no attempt of its (job version, slot,
 * BACKFILL) is PENDING or RUNNING any more. The in-flight slot key gives a slot to one backfill
 * at a time, so every BACKFILL attempt of that slot is this slot's.
 */
const RUN_ENDED = `NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.job_definition_id = f.job_definition_id AND r.scheduled_at = f.scheduled_at
    AND r.trigger_type = ${BACKFILL} AND r.status IN (${S.ACTIVE_RUN}))`;

/** Slots in progress whose run (and its retries) ended, or was pruned, become DONE: `$1` limits to one backfill. */
const settleSlots = (q: Query, backfillId: string | null) =>
  q(
    `UPDATE cron_backfill_slots s SET state = ${B.DONE}
       WHERE s.state = ${B.RUNNING} AND ($1::uuid IS NULL OR s.backfill_id = $1)
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs f WHERE f.id = s.run_id AND NOT ${RUN_ENDED})`,
    [backfillId],
  );

/** Settles every backfill's slots whose runs ended (the duty; canceled backfills' last slot too). */
export async function settleBackfillSlots(ctx: RunContext): Promise<number> {
  const res = await settleSlots((text, params) => ctx.pool.query(text, params), null);
  return res.rowCount ?? 0;
}

/** What one step of a backfill did. */
export type BackfillStep =
  /** Its next slot's run was created PENDING (to claim). */
  | { kind: 'started'; run: RunRecord }
  /** A slot is in progress, or the job's lanes are busy: nothing to do now. */
  | { kind: 'waiting' }
  /** Every slot settled (DONE), or the job has no live version any more (CANCELED): the backfill ended. */
  | { kind: 'ended' }
  /** Not in flight, or another instance is stepping it right now. */
  | { kind: 'none' };

/**
 * One step of backfill `id`: its slot in progress settled if its run ended; then, with no slot in
 * progress, its oldest planned slot becomes a PENDING BACKFILL run of the job's live version (its
 * target and payload now), by the job's lanes like a run-now — a free lane, never ahead of a
 * buffered slot — but never SKIPPED or replacing: with the lanes busy the slot waits for the
 * next step. With nothing left, the backfill is DONE. The run continues the backfill's trace
 * context (its `backfillJob` operation's), whichever instance steps it.
 */
export async function stepBackfill(ctx: RunContext, id: string): Promise<BackfillStep> {
  const now = ctx.now();
  const step = await inTransaction(ctx.pool, async (q): Promise<BackfillStep> => {
    const locked = await q(
      `SELECT b.id, b.job_key, b.requested_by, b.traceparent, (SELECT j.id FROM cron_job_definitions j WHERE j.job_key = b.job_key AND j.status <> ${JOB.RETIRED}) AS live
         FROM cron_backfills b WHERE b.id = $1 AND b.state = ${B.RUNNING} FOR UPDATE OF b SKIP LOCKED`,
      [id],
    );
    const b = locked.rows[0];
    if (!b) return { kind: 'none' };
    await settleSlots(q, id);
    const next = await q(
      `SELECT slot, state FROM cron_backfill_slots WHERE backfill_id = $1 AND state IN (${B.IN_FLIGHT}) ORDER BY state = ${B.RUNNING} DESC, slot LIMIT 1`,
      [id],
    );
    const slot = next.rows[0];
    if (slot?.state === BackfillState.RUNNING) return { kind: 'waiting' };
    if (!slot || !b.live) {
      // Done, or the job was retired meanwhile: no version left to run the rest with.
      await q(`UPDATE cron_backfill_slots SET state = ${B.CANCELED} WHERE backfill_id = $1 AND state = ${B.PLANNED}`, [id]);
      await q(`UPDATE cron_backfills SET state = ${slot ? B.CANCELED : B.DONE}, updated_at = $2, finished_at = $2 WHERE id = $1`, [id, now]);
      return { kind: 'ended' };
    }
    const source = `(SELECT $1::uuid AS job_id, $2::timestamptz AS slot, NULL::jsonb AS payload) s
        JOIN cron_job_definitions j ON j.id = s.job_id AND j.status <> ${JOB.RETIRED}`;
    const ins = await q(
      insertRuns(source, { trigger: BACKFILL, status: S.PENDING, code: 'NULL', message: 'NULL', at: '$3', lane: FREE_LANE, where: NOT_BEHIND_BUFFER, triggeredBy: '$4::text', traceparent: '$5::text' }),
      [b.live, slot.slot, now, b.requested_by, b.traceparent],
    );
    if (!ins.rows[0]) return { kind: 'waiting' };
    const run = rowToRun(ins.rows[0]);
    await q(`UPDATE cron_backfill_slots SET state = ${B.RUNNING}, run_id = $3 WHERE backfill_id = $1 AND slot = $2`, [id, slot.slot, run.id]);
    await q(`UPDATE cron_backfills SET updated_at = $2 WHERE id = $1`, [id, now]);
    return { kind: 'started', run };
  });
  if (step.kind === 'started') ctx.publish([created(step.run)]);
  return step;
}
