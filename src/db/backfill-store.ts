import { writeAudit, type AuditBy } from './audit.js';
import { BackfillScope, BackfillState, RunStatus } from '../domain/enums.js';
import type { BackfillRecord, PlanInputs, SlotRun } from '../domain/backfill.js';
import type { Pool } from './pool.js';
import { inTransaction } from './runs/context.js';
import { BACKFILL, JOB, SCHEDULED, S } from './runs/vocabulary.js';
import { lit, litList } from './sql.js';

/**
 * The backfills' own tables (`cron_backfills`, `cron_backfill_slots`, migration
 * 20261127020000): what the planner reads, a backfill and its plan written, read and canceled.
 * Starting a backfill's next slot creates a run: that statement is the run store's
 * (`runs/backfill.ts`).
 */

/** Backfill and slot states, as SQL literals. */
export const B = {
  PLANNED: lit(BackfillState.PLANNED),
  RUNNING: lit(BackfillState.RUNNING),
  DONE: lit(BackfillState.DONE),
  CANCELED: lit(BackfillState.CANCELED),
  /** A slot (or a backfill) not settled yet: what the in-flight slot key covers. */
  IN_FLIGHT: litList([BackfillState.PLANNED, BackfillState.RUNNING]),
} as const;

/** The triggers whose runs are runs of a slot (a run-now's instant is not a slot). */
export const SLOT_TRIGGERS = `${SCHEDULED}, ${BACKFILL}`;

const BACKFILL_COLUMNS = `b.id, b.job_definition_id, b.job_key, b.from_at, b.to_at, b.scope, b.state, b.skipped_existing, b.reason,
  b.requested_by, b.created_at, b.finished_at,
  coalesce((SELECT array_agg(s.slot ORDER BY s.slot) FROM cron_backfill_slots s WHERE s.backfill_id = b.id), '{}') AS slots,
  (SELECT count(*) FROM cron_backfill_slots s WHERE s.backfill_id = b.id AND s.run_id IS NOT NULL)::int AS created`;

function rowToBackfill(row: Record<string, unknown>): BackfillRecord {
  return {
    id: row.id as string,
    jobId: row.job_definition_id as string,
    jobKey: row.job_key as string,
    from: new Date(row.from_at as string),
    to: new Date(row.to_at as string),
    scope: row.scope as BackfillScope,
    slots: (row.slots as (string | Date)[]).map((s) => new Date(s)),
    skippedExisting: Number(row.skipped_existing),
    created: Number(row.created),
    state: row.state as BackfillState,
    reason: row.reason as string,
    requestedBy: (row.requested_by as string | null) ?? null,
    createdAt: new Date(row.created_at as string),
    finishedAt: row.finished_at == null ? null : new Date(row.finished_at as string),
  };
}

/**
 * What the planner needs of a range of a job's slots, in one statement: every run of those slots
 * (SCHEDULED or BACKFILL, of every version of the key: found through the runs' (job version,
 * slot) index), the slots another backfill in flight holds (the in-flight key's index), and how
 * far retention pruned the job's runs.
 */
export async function planInputs(pool: Pool, jobKey: string, from: Date, to: Date): Promise<PlanInputs> {
  const res = await pool.query(
    `SELECT 'r' AS kind, r.scheduled_at AS at, r.status, r.created_at, r.attempt
       FROM cron_job_runs r
       WHERE r.job_definition_id IN (SELECT d.id FROM cron_job_definitions d WHERE d.job_key = $1)
         AND r.scheduled_at BETWEEN $2 AND $3 AND r.trigger_type IN (${SLOT_TRIGGERS})
     UNION ALL
     SELECT 'h', s.slot, NULL, NULL, NULL FROM cron_backfill_slots s
       WHERE s.job_key = $1 AND s.slot BETWEEN $2 AND $3 AND s.state IN (${B.IN_FLIGHT})
     UNION ALL
     SELECT 'p', max(p.pruned_through), NULL, NULL, NULL FROM cron_pruned_slots p
       JOIN cron_job_definitions d ON d.id = p.job_definition_id WHERE d.job_key = $1`,
    [jobKey, from, to],
  );
  const runs: SlotRun[] = [];
  const held: Date[] = [];
  let prunedThrough: Date | null = null;
  for (const row of res.rows) {
    if (row.kind === 'r') runs.push({ slot: new Date(row.at), status: row.status as RunStatus, createdAt: new Date(row.created_at), attempt: Number(row.attempt) });
    else if (row.kind === 'h') held.push(new Date(row.at));
    else if (row.at != null) prunedThrough = new Date(row.at);
  }
  return { runs, held, prunedThrough };
}

/** A backfill to record: its plan (`slots`) and what the planner left out. */
export type NewBackfill = Omit<BackfillRecord, 'id' | 'created' | 'state' | 'finishedAt'>;

/**
 * Records a backfill and its plan, RUNNING (DONE at once when nothing is left to run), in one
 * transaction. A slot another backfill took meanwhile is refused by the in-flight slot key: it is
 * left out of this plan and counted with `skippedExisting` — so two backfills asked for together
 * share their common slots out, each slot to one of them. So is a slot another backfill ran since
 * the plan was read (`b.createdAt`, read before the history): its hold was already settled and
 * released, so the key alone would let it run twice. Its audit entry (`audit`) is written in the
 * same transaction. `traceparent`: the trace context its runs continue (the asking operation's).
 */
export async function insertBackfill(pool: Pool, b: NewBackfill, id: string, audit: AuditBy, traceparent: string | null = null): Promise<BackfillRecord> {
  return inTransaction(pool, async (q) => {
    await q(
      `INSERT INTO cron_backfills (id, job_definition_id, job_key, from_at, to_at, scope, state, skipped_existing, reason, requested_by, created_at, updated_at, traceparent)
         VALUES ($1, $2, $3, $4, $5, $6, ${B.RUNNING}, $7, $8, $9, $10, $10, $11)`,
      [id, b.jobId, b.jobKey, b.from, b.to, b.scope, b.skippedExisting, b.reason, b.requestedBy, b.createdAt, traceparent],
    );
    const ins = await q(
      `INSERT INTO cron_backfill_slots (backfill_id, job_key, slot, state)
         SELECT $1, $2, s, ${B.PLANNED} FROM unnest($3::timestamptz[]) AS s
           WHERE NOT EXISTS (SELECT 1 FROM cron_job_runs r
             WHERE r.job_definition_id IN (SELECT d.id FROM cron_job_definitions d WHERE d.job_key = $2)
               AND r.scheduled_at = s AND r.trigger_type = ${BACKFILL} AND r.created_at > $4)
           ORDER BY s
         ON CONFLICT DO NOTHING
         RETURNING slot`,
      [id, b.jobKey, b.slots, b.createdAt],
    );
    const lost = b.slots.length - (ins.rowCount ?? 0);
    const res = await q(
      `UPDATE cron_backfills b SET skipped_existing = skipped_existing + $2,
           state = CASE WHEN $3 THEN ${B.DONE} ELSE state END, finished_at = CASE WHEN $3 THEN $4::timestamptz END
         WHERE b.id = $1 RETURNING ${BACKFILL_COLUMNS}`,
      [id, lost, (ins.rowCount ?? 0) === 0, b.createdAt],
    );
    const made = rowToBackfill(res.rows[0]);
    await writeAudit(q, [{
      ...audit,
      jobKey: b.jobKey,
      subject: id,
      details: { from: b.from.toISOString(), to: b.to.toISOString(), scope: b.scope, reason: b.reason, slots: ins.rowCount ?? 0, skippedExisting: made.skippedExisting },
    }], b.createdAt);
    return made;
  });
}

export async function getBackfill(pool: Pool, id: string): Promise<BackfillRecord | null> {
  const res = await pool.query(`SELECT ${BACKFILL_COLUMNS} FROM cron_backfills b WHERE b.id = $1`, [id]);
  return res.rows[0] ? rowToBackfill(res.rows[0]) : null;
}

/** A job key's backfills, newest first. */
export async function backfillsOfJob(pool: Pool, jobKey: string, limit: number): Promise<BackfillRecord[]> {
  const res = await pool.query(`SELECT ${BACKFILL_COLUMNS} FROM cron_backfills b WHERE b.job_key = $1 ORDER BY b.created_at DESC, b.id DESC LIMIT $2`, [
    jobKey,
    limit,
  ]);
  return res.rows.map(rowToBackfill);
}

/**
 * Cancels a backfill in flight: it becomes CANCELED and its slots not started are released (a
 * later backfill may plan them). Its slot in progress stays held until its run ends; the run's
 * waiting attempts (PENDING: not started yet, or a retry waiting for its backoff) are returned,
 * for the caller to cancel — a run already RUNNING finishes. Null when the backfill is not in
 * flight (or unknown).
 */
export async function cancelBackfill(pool: Pool, id: string, now: Date, audit: AuditBy): Promise<{ backfill: BackfillRecord; pendingRunIds: string[] } | null> {
  return inTransaction(pool, async (q) => {
    const done = await q(
      `UPDATE cron_backfills SET state = ${B.CANCELED}, updated_at = $2, finished_at = $2 WHERE id = $1 AND state IN (${B.IN_FLIGHT}) RETURNING id, job_key`,
      [id, now],
    );
    if (!done.rowCount) return null;
    await writeAudit(q, [{ ...audit, jobKey: done.rows[0].job_key as string, subject: id }], now);
    await q(`UPDATE cron_backfill_slots SET state = ${B.CANCELED} WHERE backfill_id = $1 AND state = ${B.PLANNED}`, [id]);
    const pending = await q(
      `SELECT r.id FROM cron_backfill_slots s JOIN cron_job_runs f ON f.id = s.run_id
         JOIN cron_job_runs r ON r.job_definition_id = f.job_definition_id AND r.scheduled_at = f.scheduled_at
           AND r.trigger_type = ${BACKFILL} AND r.status = ${S.PENDING}
         WHERE s.backfill_id = $1 AND s.state = ${B.RUNNING}`,
      [id],
    );
    const res = await q(`SELECT ${BACKFILL_COLUMNS} FROM cron_backfills b WHERE b.id = $1`, [id]);
    return { backfill: rowToBackfill(res.rows[0]), pendingRunIds: pending.rows.map((r) => r.id as string) };
  });
}

/** Backfills in flight, oldest first, at most `limit`: what the duty advances. */
export async function backfillsInFlight(pool: Pool, limit: number): Promise<string[]> {
  const res = await pool.query(`SELECT id FROM cron_backfills WHERE state IN (${B.IN_FLIGHT}) ORDER BY created_at, id LIMIT $1`, [limit]);
  return res.rows.map((r) => r.id as string);
}

/** The id of the job key's version that is not RETIRED (the one a backfill's runs run), or null. */
export async function liveVersionOf(pool: Pool, jobKey: string): Promise<string | null> {
  const res = await pool.query(`SELECT id FROM cron_job_definitions WHERE job_key = $1 AND status <> ${JOB.RETIRED}`, [jobKey]);
  return (res.rows[0]?.id as string | undefined) ?? null;
}
