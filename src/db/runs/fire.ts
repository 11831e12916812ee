import { createHash } from 'node:crypto';
import { FailureCode, OverlapPolicy } from '../../domain/enums.js';
import type { JobSnapshot } from '../../domain/job.js';
import { created, type RunRecord } from '../../domain/run.js';
import { instantArray, uuidArray } from '../array-literals.js';
import { inTransaction, type RunContext } from './context.js';
import { missedAlerts, outboxNotice } from './alert-rules.js';
import { afterRunsEnd, changedRows, publishEnded, startedRuns } from './end-rules.js';
import { insertRuns } from './new-runs.js';
import { UNIQUE_VIOLATION } from '../pool.js';
import { NO_SKIP_ASKED, recordAdminSkips } from './admin-skips.js';
import { FREE_LANE, LANE_IS_FREE, NOT_BEHIND_BUFFER, OVERLAP_MESSAGE, cancelActive, lockJob } from './overlap.js';
import { firedRun, limitsOf, rowToRun, type RunLimits } from './record.js';
import { admit, claimStatement } from './pool-admission.js';
import { BUFFER_LANE, JOB, S, SCHEDULED, qualified } from './vocabulary.js';
import { inIdOrder, sortedById } from '../../domain/id-order.js';

/**
 * The fire path: due slots become runs — claimed RUNNING here at once, buffered, started in place
 * of the job's active run, or SKIPPED — and PENDING runs are claimed. Tuned for co-due slots
 * (BENCHMARKS.md, "co-due" and "lifecycle"): one statement for a whole batch in the common case.
 */

/**
 * Co-due slots per statement. One statement for all is the fastest way to RUNNING (every batch
 * after the first waits behind it in the same indexes); the bound keeps one statement well
 * inside the statement timeout on a loaded database.
 */
export const FIRE_BATCH = 20_000;

/**
 * A batch of at least `FIRE_SPLIT_MIN` co-due slots is recorded by `FIRE_PARTS` statements at
 * once, on as many connections of the pool: one statement runs on one PostgreSQL backend, one
 * core; two use the database's second core too, and each part's handlers start as its own
 * statement commits. From 500 slots: at 1,000 co-due two parts of 500 cost ~20% more backend CPU
 * than one statement but enter the last handler 10–20% sooner (BENCHMARKS.md, "2026-11-26 (s8, lead)").
 */
export const FIRE_PARTS = 2;
export const FIRE_SPLIT_MIN = 500;

/**
 * Cuts co-due slots into `FIRE_PARTS` ranges of job ids: the parts never touch the same keys (a
 * job's slots stay together, so its overlap is decided in one statement, in slot order), and
 * every statement takes its keys in (job, slot) order, as one statement for all would: two
 * instances' parts never deadlock either.
 */
export function splitByJob<T = DueSlot>(slots: T[], slotOf: (t: T) => Pick<DueSlot, 'jobId'> = (t) => t as DueSlot): T[][] {
  if (slots.length < FIRE_SPLIT_MIN) return [slots];
  // Alarms ring in the order they were set, and actors re-arm in the order they rang: co-due
  // slots arrive in the order their jobs were armed, the same at every fire — in job order only
  // if the jobs were (they are read in no particular order): then not copied and sorted.
  const idOf = (t: T) => slotOf(t).jobId;
  const sorted = inIdOrder(slots, idOf) ? slots : sortedById(slots, idOf);
  const parts: T[][] = [];
  let from = 0;
  for (let p = 1; p <= FIRE_PARTS; p++) {
    let to = p === FIRE_PARTS ? sorted.length : Math.round((sorted.length * p) / FIRE_PARTS);
    while (to < sorted.length && to > from && slotOf(sorted[to]).jobId === slotOf(sorted[to - 1]).jobId) to++;
    if (to > from) parts.push(sorted.slice(from, to));
    from = to;
  }
  return parts;
}

/**
 * What a run copies from its job version, and the job's overlap policy (fixed for the life of a
 * job row: versions are new rows).
 */
export type FiringJob = Pick<JobSnapshot, 'jobKey' | 'version' | 'target' | 'payload' | 'overlap'> & Partial<Pick<JobSnapshot, 'concurrencyPool'>>;

/** A slot that came due for a job. */
export interface DueSlot {
  jobId: string;
  slot: Date;
  /**
   * The job as the firing actor knows it: the new run is built here rather than read back
   * (`RETURNING` only the id), which takes the payload's and the timestamps' text off the fire
   * path; its overlap policy says what an overlapping slot becomes.
   */
  job: FiringJob;
  /** When the slot starts, if not at the slot: its jitter offset (recorded as the run's `dueAt`). */
  dueAt?: Date;
  /** Not recorded at all once this instant has passed: the slot is then `late` (MISSED by the caller). */
  deadline?: Date;
  /** With tracing on: the run's trace context, written with its row when the slot is claimed here. */
  traceparent?: string;
}

/** A slot to record as SKIPPED/MISSED (or, excluded by a calendar, SKIPPED/CALENDAR). */
export interface MissedSlot {
  jobId: string;
  slot: Date;
  message: string;
  details: Record<string, unknown>;
  /** The skip code; default MISSED. */
  code?: typeof FailureCode.MISSED | typeof FailureCode.CALENDAR;
}

/** A run this instance claimed (PENDING → RUNNING), with what its job says of running it. */
export interface ClaimedRun {
  run: RunRecord;
  limits: RunLimits;
}

/** What became of a due slot: it is ours to run, it was skipped, or another actor owns it. */
export type FireOutcome =
  /** Ours to run; `replaced`: the runs of the job it canceled (CANCEL_PREVIOUS), to abort. */
  | { kind: 'claimed'; run: RunRecord; replaced?: RunRecord[] }
  | { kind: 'skipped'; run: RunRecord }
  /** Waiting for the job's active run to end (BUFFER_ONE). */
  | { kind: 'buffered'; run: RunRecord }
  /** Waiting PENDING for a place in the job's concurrency pool: whichever instance admits it runs it (pool-admission.ts). */
  | { kind: 'waiting'; run: RunRecord; replaced?: RunRecord[] }
  | { kind: 'taken' }
  | { kind: 'late' };

/**
 * Due slots of ACTIVE jobs: `$1` job ids, `$2` slots, `$3`: when each is due (null: at its slot);
 * with tracing on, each slot's trace context (the parameter `tp` names). Co-due slots (one instant,
 * each due at its slot: what a busy minute fires) send that instant once (`$2`, and `$3` null)
 * instead of two arrays as long as the ids: PostgreSQL parses a `timestamptz[]` of 10,000 instants
 * in ~7 ms, on the fire path (BENCHMARKS.md, "2026-11-26 (s7, D)"). Catch-up and jitter send one
 * instant per slot.
 * A job whose started runs reached its `max_runs` records no more slots (it retires as its last
 * run ends): the database decides, so two instances cannot overshoot the bound between them.
 */
function dueSlots(slots: DueSlot[], tp?: string, ids?: string): string {
  const extra = (tp ? `, ${tp}::text[]` : '') + (ids ? `, ${ids}::uuid[]` : '');
  const cols = (tp ? ', tp' : '') + (ids ? ', run_id' : '');
  const source = coDue(slots)
    ? `(SELECT job_id, $2::timestamptz AS slot, $3::timestamptz AS due${cols}, NULL::jsonb AS payload
      FROM unnest($1::uuid[]${extra}) AS u(job_id${cols})) s`
    : `(SELECT job_id, slot, due${cols}, NULL::jsonb AS payload
      FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]${extra}) AS u(job_id, slot, due${cols})) s`;
  return `${source}
    JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = ${JOB.ACTIVE}
      AND (j.max_runs IS NULL OR ${startedRuns('j')} < j.max_runs)`;
}

/** Whether every slot is at one instant and due at it (no jitter): its instant is sent once. */
function coDue(slots: DueSlot[]): boolean {
  if (slots.length === 0) return false;
  const at = slots[0].slot.getTime();
  for (const s of slots) if (s.slot.getTime() !== at || s.dueAt !== undefined) return false;
  return true;
}

/** Whether any of the slots carries a trace context (tracing is on for all or none). */
const traced = (slots: DueSlot[]): boolean => slots.some((s) => s.traceparent !== undefined);

/**
 * The source of an insert of slots: with tracing on, each slot's trace context (the parameter `tp`
 * names) — a separate statement rather than a parameter of nulls: with tracing off the fire path
 * sends exactly what it sent before tracing existed.
 */
const claimingSlots = (slots: DueSlot[], tp: string) => (traced(slots) ? dueSlots(slots, tp) : dueSlots(slots));

/** The trace contexts of the slots (a parameter of the insert), when traced. */
const traceParams = (slots: DueSlot[]): unknown[] => (traced(slots) ? [slots.map((s) => s.traceparent ?? null)] : []);

/** The parameters of `dueSlots` ($1–$3) and the instant ($4); a RUNNING insert adds its runner ($5). */
const dueParams = (slots: DueSlot[], now: Date): unknown[] =>
  coDue(slots)
    ? [uuidArray(slots.map((s) => s.jobId)), slots[0].slot, null, now]
    : [uuidArray(slots.map((s) => s.jobId)), instantArray(slots.map((s) => s.slot)), instantArray(slots.map((s) => s.dueAt ?? null)), now];

const slotKey = (jobId: string, slot: Date) => `${jobId}@${slot.getTime()}`;

/** Rows of runs by (job, slot). */
function bySlot(rows: Record<string, unknown>[]): Map<string, RunRecord> {
  const map = new Map<string, RunRecord>();
  for (const row of rows) {
    const run = rowToRun(row);
    map.set(slotKey(run.jobId, run.scheduledAt), run);
  }
  return map;
}


/**
 * Co-due slots in one statement, more only when some overlap. The first inserts every slot that
 * has a free lane as a RUNNING run of this instance: insert and claim are one statement, so a
 * connection lost after it committed leaves a run that says who owns it (the runtime resumes it)
 * rather than a PENDING run that blocks its job. A slot that inserted nothing either belongs to
 * someone else (the slot key) or overlaps an active run (the lane index): its job's policy then
 * says what it becomes — buffered, started in place of the active run, or SKIPPED — and every
 * one of those inserts is again refused by the slot key when the slot is someone else's.
 * A claimed run is announced as two changes: created PENDING, then RUNNING.
 */
export async function fireBatch(ctx: RunContext, all: DueSlot[]): Promise<FireOutcome[]> {
  const now = ctx.now();
  const nowMs = now.getTime();
  // Work that can no longer be done on time is dropped, not queued: the caller accounts for it.
  const late = (s: DueSlot) => s.deadline !== undefined && s.deadline.getTime() < nowMs;
  const slots = all.some(late) ? all.filter((s) => !late(s)) : all;
  if (slots.length === 0) return all.map(() => ({ kind: 'late' }));

  // Slots of jobs in a concurrency pool are recorded waiting and go through their pools' admission
  // (`firePooled`); the others are claimed by the statement below, as if pools did not exist.
  const pooled = slots.some(inPool) ? slots.filter(inPool) : [];
  const plain = pooled.length === 0 ? slots : slots.filter((s) => !inPool(s));
  const inserted = plain.length === 0 ? { rows: [] } : await trackFire(ctx, claimRunning(ctx, plain, now));
  const { runs: running, claimed } = builtRuns(ctx, inserted.rows, plain, now);
  ctx.claimed(claimed, true);
  // The common case: every slot of the batch on time, out of any pool, and claimed here.
  if (plain === all && claimed.length === all.length) return running.map((run): FireOutcome => ({ kind: 'claimed', run: run! }));

  // Outcomes are keyed by the due slot itself (no per-slot key strings on the hot path).
  const outcomes = new Map<DueSlot, FireOutcome>();
  for (let i = 0; i < plain.length; i++) {
    const run = running[i];
    if (run) outcomes.set(plain[i], { kind: 'claimed', run });
  }
  if (pooled.length > 0) for (const [due, run] of await firePooled(ctx, pooled, now)) outcomes.set(due, { kind: 'waiting', run });
  let rest = outcomes.size === slots.length ? [] : slots.filter((s) => !outcomes.has(s));
  const settle = (slotsOf: DueSlot[], runs: Map<string, RunRecord>, kind: 'buffered' | 'skipped') => {
    for (const s of slotsOf) {
      const run = runs.get(slotKey(s.jobId, s.slot));
      if (run && !outcomes.has(s)) outcomes.set(s, { kind, run });
    }
  };
  if (rest.length > 0) {
    // A slot that inserted nothing may be one an admin asked to skip (admin-skips.ts): recorded
    // SKIPPED before the overlap policy sees it (a skipped slot neither buffers nor replaces).
    settle(rest, await recordAdminSkips(ctx, rest, now), 'skipped');
    rest = rest.filter((s) => !outcomes.has(s));
  }
  const byPolicy = (policy: OverlapPolicy) => rest.filter((s) => s.job.overlap === policy);
  const buffering = byPolicy(OverlapPolicy.BUFFER_ONE);
  if (buffering.length > 0) settle(buffering, await buffer(ctx, buffering, now), 'buffered');
  for (const s of byPolicy(OverlapPolicy.CANCEL_PREVIOUS)) {
    const won = await replace(ctx, s, now);
    if (won) outcomes.set(s, won);
  }
  rest = rest.filter((s) => !outcomes.has(s));
  if (pooled.length > 0) await admitFired(ctx, outcomes);
  if (rest.length > 0) {
    const res = await ctx.pool.query(
      `WITH ins AS (${insertRuns(dueSlots(rest), { trigger: SCHEDULED, status: S.SKIPPED, code: '$5', message: '$6', at: '$4' })}),
         ${afterRunsEnd('ins', '$4')}
         ${changedRows('ins')}`,
      [...dueParams(rest, now), FailureCode.OVERLAP, OVERLAP_MESSAGE],
    );
    const skipped = bySlot(res.rows.filter((r) => !r.retry));
    ctx.publish([...skipped.values()].map(created));
    settle(rest, skipped, 'skipped');
  }

  const answers = all.map((s): FireOutcome => outcomes.get(s) ?? (late(s) ? { kind: 'late' } : { kind: 'taken' }));
  // Slots recorded by another writer: instances arming the same jobs race for them at every slot.
  if (answers.some((a) => a.kind === 'taken')) ctx.races.met();
  return answers;
}

/**
 * The claiming insert of `fireBatch`. While this instance meets no other writer of its slots
 * (`ctx.races`), without `ON CONFLICT`: speculative insertion over the three unique indexes is a
 * fifth of the statement's CPU (BENCHMARKS.md, "2026-11-26 (s9, lead)"), and the one conflict a lone
 * instance meets at a slot — a busy lane, the job's last run still active — is asked of the
 * lanes' index first (`LANE_IS_FREE`). A conflict nonetheless (another instance recorded the
 * slot first, a run-now took the lane since) fails the statement, which changes nothing, and the
 * batch goes again skipping conflicts, as every batch does for a while after.
 */
async function claimRunning(ctx: RunContext, slots: DueSlot[], now: Date): Promise<{ rows: Record<string, unknown>[] }> {
  const params = [...dueParams(slots, now), ctx.instanceId, ctx.runIds.arrayLiteral(slots.length), ...traceParams(slots)];
  if (!ctx.races.expected()) {
    try {
      return await ctx.pool.query(prepared(claimingInsert(slots, false), params));
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      ctx.races.met();
    }
  }
  return ctx.pool.query(prepared(claimingInsert(slots, true), params));
}

/** Statement names by text (the claiming insert has a few texts: co-due or not, traced or not, skipping conflicts or not). */
const statementNames = new Map<string, string>();

/**
 * The statement as a named one: node-postgres parses it once per connection, and PostgreSQL keeps
 * its plan for the connection's life (replanned if the tables change). Unnamed, the claiming insert
 * was parsed and planned at each fire, ~1.5 ms of each part's backend CPU at 1,000 co-due
 * (BENCHMARKS.md, "2026-11-27 (s12, lead)"). Its name is derived from its text: one text, one name.
 */
function prepared(text: string, values: unknown[]): { name: string; text: string; values: unknown[] } {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `cronql_fire_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * The statement of `claimRunning`: with ON CONFLICT DO NOTHING (`skipConflicts`), or failing on a
 * conflict. `$6`: the new runs' ids, one per slot (run-ids.ts); `$7`: their trace contexts, traced.
 */
function claimingInsert(slots: DueSlot[], skipConflicts: boolean): string {
  return insertRuns(
    dueSlots(slots, traced(slots) ? '$7' : undefined, '$6'),
    {
      id: 's.run_id', trigger: SCHEDULED, status: S.RUNNING, code: 'NULL', message: 'NULL', at: '$4', runner: '$5', lane: FREE_LANE, due: 's.due',
      where: `${skipConflicts ? '' : `${LANE_IS_FREE} AND `}${NO_SKIP_ASKED} AND ${NOT_BEHIND_BUFFER}`, traceparent: traced(slots) ? 's.tp' : undefined, skipConflicts,
    },
    // Co-due slots share their instant: the rows need not say it (3–7% of the statement's CPU).
    coDue(slots) ? 'id, job_definition_id' : `id, job_definition_id, (extract(epoch FROM scheduled_at) * 1000)::float8 AS slot_ms`,
  );
}

/**
 * The claiming insert of co-due slots, run with slots of no job on a connection that just opened
 * (it inserts nothing), in the form the instance sends now (`skipConflicts`: another instance
 * records the same slots):
 * - A backend's first one otherwise loads the runs table's indexes and checks and the statement's
 *   catalog entries on the fire path — ~4 ms of a 15 ms fire of 1,000 co-due slots in two parts
 *   (BENCHMARKS.md, "2026-11-26 (s9, lead)").
 * - Run `PRIME_PLANS` times with a batch's worth of slots: PostgreSQL plans a named statement's
 *   first five runs with their values, and at the sixth builds its generic plan and keeps it if
 *   it costs less than those did. So the first fire finds the generic plan built, and no fire
 *   plans its statement (~1.5 ms of each part's backend CPU at 1,000 co-due; BENCHMARKS.md,
 *   "2026-11-27 (s12, lead)"). The other form, and slots with a trace context (another text),
 *   get the same from their seventh fire on the connection.
 * ~8 ms of one backend's CPU per new connection. Never fails: a connection opened before the
 * tables exist leaves it to the first fire.
 */
export async function primeFire(
  connection: { query: (config: { name: string; text: string; values: unknown[] }) => Promise<unknown> },
  instanceId: string,
  now: Date,
  skipConflicts = false,
): Promise<void> {
  const none: DueSlot[] = Array.from({ length: FIRE_SPLIT_MIN }, () => ({ jobId: NO_JOB, slot: now, job: { jobKey: '', version: 0, target: '', payload: null, overlap: OverlapPolicy.SKIP } }));
  // The same statement and values each time: only how PostgreSQL plans them changes.
  const statement = prepared(claimingInsert(none, skipConflicts), [...dueParams(none, now), instanceId, uuidArray(none.map((s) => s.jobId))]);
  try {
    for (let i = 0; i < PRIME_PLANS; i++) await connection.query(statement);
  } catch {
    // Left to the first fire.
  }
}

/**
 * Runs of the statement that prime a connection: the five PostgreSQL plans with their values before
 * it weighs its generic plan (plancache.c, `choose_custom_plan`), and the one that builds it.
 */
export const PRIME_PLANS = 6;

/** No job's id (the nil UUID). */
const NO_JOB = '00000000-0000-0000-0000-000000000000';

/** Whether the slot's job is in a concurrency pool. */
const inPool = (s: DueSlot): boolean => s.job.concurrencyPool != null;

/**
 * Pooled slots with a free lane become PENDING runs of their pools (published as created), to be
 * admitted (`admitFired`): what the main statement does for the others, but never RUNNING at once.
 */
async function firePooled(ctx: RunContext, slots: DueSlot[], now: Date): Promise<Map<DueSlot, RunRecord>> {
  const tracing = traced(slots);
  const res = await trackFire(ctx, ctx.pool.query(
    insertRuns(claimingSlots(slots, '$5'), {
      trigger: SCHEDULED, status: S.PENDING, code: 'NULL', message: 'NULL', at: '$4', lane: FREE_LANE, due: 's.due',
      where: `${NO_SKIP_ASKED} AND ${NOT_BEHIND_BUFFER}`, traceparent: tracing ? 's.tp' : undefined,
    }),
    [...dueParams(slots, now), ...traceParams(slots)],
  ));
  const rows = bySlot(res.rows);
  ctx.publish([...rows.values()].map(created));
  const made = new Map<DueSlot, RunRecord>();
  for (const s of slots) {
    const run = rows.get(slotKey(s.jobId, s.slot));
    if (run) made.set(s, run);
  }
  return made;
}

/**
 * The batch's waiting runs (pooled slots', and a CANCEL_PREVIOUS slot's in place of its job's run)
 * go through their pools' admission, for this batch's runs only: those admitted are this
 * instance's to run; an older run owed a place keeps its turn.
 */
async function admitFired(ctx: RunContext, outcomes: Map<DueSlot, FireOutcome>): Promise<void> {
  const waiting = new Map<string, DueSlot>();
  for (const [due, outcome] of outcomes) if (outcome.kind === 'waiting') waiting.set(outcome.run.id, due);
  if (waiting.size === 0) return;
  const pools = [...new Set([...waiting.values()].map((s) => s.job.concurrencyPool!))];
  for (const { run } of await admit(ctx, pools, { only: [...waiting.keys()] })) {
    const due = waiting.get(run.id)!;
    const replaced = (outcomes.get(due) as { replaced?: RunRecord[] } | undefined)?.replaced;
    outcomes.set(due, { kind: 'claimed', run, ...(replaced ? { replaced } : {}) });
  }
}

/** BUFFER_ONE: overlapping slots wait in the buffer lane if it is free (PENDING, announced as created). */
async function buffer(ctx: RunContext, slots: DueSlot[], now: Date): Promise<Map<string, RunRecord>> {
  const res = await ctx.pool.query(
    insertRuns(dueSlots(slots), { trigger: SCHEDULED, status: S.PENDING, code: 'NULL', message: 'NULL', at: '$4', lane: String(BUFFER_LANE), due: 's.due' }),
    dueParams(slots, now),
  );
  const buffered = bySlot(res.rows);
  ctx.publish([...buffered.values()].map(created));
  return buffered;
}

/**
 * CANCEL_PREVIOUS: the job's active runs end CANCELED/REPLACED and the slot starts RUNNING here,
 * in one transaction under the job's advisory lock — two instances firing the same slot take
 * turns, and the second finds the slot recorded and cancels nothing. Runs running elsewhere are
 * told (NOTIFY); those running here are in the outcome's `replaced`, for the caller to abort.
 */
async function replace(ctx: RunContext, slot: DueSlot, now: Date): Promise<FireOutcome | null> {
  const rows = await inTransaction(ctx.pool, async (q) => {
    await lockJob(q, slot.jobId);
    const taken = await q(
      `SELECT 1 FROM cron_job_runs WHERE job_definition_id = $1 AND scheduled_at = $2 AND trigger_type = ${SCHEDULED} AND attempt = 1`,
      [slot.jobId, slot.slot],
    );
    if (taken.rowCount) return null;
    const canceled = await cancelActive(q, slot.jobId, now);
    const tracing = traced([slot]);
    // A pooled job's slot takes the lane waiting; its pool's admission starts it (`admitFired`).
    const ins = await q(
      inPool(slot)
        ? insertRuns(claimingSlots([slot], '$5'), { trigger: SCHEDULED, status: S.PENDING, code: 'NULL', message: 'NULL', at: '$4', due: 's.due', traceparent: tracing ? 's.tp' : undefined })
        : insertRuns(claimingSlots([slot], '$6'), { trigger: SCHEDULED, status: S.RUNNING, code: 'NULL', message: 'NULL', at: '$4', runner: '$5', due: 's.due', traceparent: tracing ? 's.tp' : undefined }),
      inPool(slot) ? [...dueParams([slot], now), ...traceParams([slot])] : [...dueParams([slot], now), ctx.instanceId, ...traceParams([slot])],
    );
    return { canceled, inserted: ins.rows };
  });
  if (!rows) return null;
  const replaced = publishEnded(ctx, rows.canceled).map((c) => c.run);
  const run = rows.inserted[0] ? rowToRun(rows.inserted[0]) : null;
  if (!run) return null;
  if (inPool(slot)) {
    ctx.publish([created(run)]);
    return { kind: 'waiting', run, replaced };
  }
  ctx.claimed([run], true);
  return { kind: 'claimed', run, replaced };
}

/**
 * The RUNNING runs a slim insert made, built from what was inserted: the job's fixed columns,
 * the slot, this instance and the statement's instant — what the row holds. `runs[i]` is the run
 * of `slots[i]` (undefined: it inserted nothing); `claimed`, the runs in the rows' order.
 */
function builtRuns(ctx: RunContext, rows: Record<string, unknown>[], slots: DueSlot[], now: Date): { runs: (RunRecord | undefined)[]; claimed: RunRecord[] } {
  const runs = new Array<RunRecord | undefined>(slots.length);
  const claimed = new Array<RunRecord>(rows.length);
  const at = rowsInSlotOrder(rows, slots) ?? rowsByLookup(rows, slots);
  for (let r = 0; r < rows.length; r++) {
    const i = at[r];
    const due = slots[i];
    const run = firedRun(rows[r].id as string, due.jobId, due.job, { scheduledAt: due.slot, dueAt: due.dueAt ?? null, traceparent: due.traceparent }, ctx.instanceId, now);
    runs[i] = run;
    claimed[r] = run;
  }
  return { runs, claimed };
}

/**
 * Which slot each row is, when the rows follow the slots: the statement inserts (and returns) in
 * (job, slot) order, and co-due slots arrive in job order (`splitByJob`), so one walk pairs them
 * without a lookup per row. Null when they do not (the slots were not in that order): `rowsByLookup`.
 */
function rowsInSlotOrder(rows: Record<string, unknown>[], slots: DueSlot[]): Int32Array | null {
  const at = new Int32Array(rows.length);
  let i = 0;
  for (let r = 0; r < rows.length; r++) {
    const jobId = rows[r].job_definition_id as string;
    const slotMs = slotMsOf(rows[r], slots);
    while (i < slots.length && (slots[i].jobId !== jobId || slots[i].slot.getTime() !== slotMs)) i++;
    if (i === slots.length) return null;
    at[r] = i++;
  }
  return at;
}

/** A fired row's slot: as the row says it, or (co-due slots, whose rows do not) the batch's one instant. */
const slotMsOf = (row: Record<string, unknown>, slots: DueSlot[]): number => (row.slot_ms as number | undefined) ?? slots[0].slot.getTime();

/** Which slot each row is, looked up by its job (and slot). */
function rowsByLookup(rows: Record<string, unknown>[], slots: DueSlot[]): Int32Array {
  // A batch holds a job once, but for a catch-up several slots of one job can share it.
  const byJob = new Map<string, number | number[]>();
  for (let i = 0; i < slots.length; i++) {
    const seen = byJob.get(slots[i].jobId);
    byJob.set(slots[i].jobId, seen === undefined ? i : Array.isArray(seen) ? [...seen, i] : [seen, i]);
  }
  const taken = new Set<number>();
  const at = new Int32Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const slotMs = slotMsOf(rows[r], slots);
    const found = byJob.get(rows[r].job_definition_id as string)!;
    const i = Array.isArray(found) ? found.find((k) => slots[k].slot.getTime() === slotMs && !taken.has(k))! : found;
    taken.add(i);
    at[r] = i;
  }
  return at;
}

/** Tracks a fire statement while it is in flight. */
function trackFire<T>(ctx: RunContext, statement: Promise<T>): Promise<T> {
  ctx.firing.add(statement);
  const done = () => ctx.firing.delete(statement);
  statement.then(done, done);
  return statement;
}

/** Missed slots as SKIPPED/MISSED rows (batched like fires); a slot someone recorded meanwhile keeps its row (the slot key). */
export async function missedBatch(ctx: RunContext, slots: MissedSlot[]): Promise<(RunRecord | null)[]> {
  const now = ctx.now();
  const source = `(SELECT job_id, slot, NULL::jsonb AS payload, message, details, code
        FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::jsonb[], $5::text[]) AS u(job_id, slot, message, details, code)) s
      JOIN cron_job_definitions j ON j.id = s.job_id`;
  // The alerts (SLOTS_MISSED) are written with the rows; the main query reads the notice so it runs.
  const res = await ctx.pool.query(
    `WITH ins AS (${insertRuns(source, { trigger: SCHEDULED, status: S.SKIPPED, code: 's.code', message: 's.message', details: 's.details', at: '$6' })}),
       ${missedAlerts('ins', '$6')}, notice AS (SELECT ${outboxNotice(['missed_alerts'])} AS n)
     SELECT ins.* FROM ins, notice`,
    [
      slots.map((s) => s.jobId),
      slots.map((s) => s.slot),
      slots.map((s) => s.message),
      slots.map((s) => JSON.stringify(s.details)),
      slots.map((s) => s.code ?? FailureCode.MISSED),
      now,
    ],
  );
  const rows = bySlot(res.rows);
  ctx.publish([...rows.values()].map(created));
  return slots.map((s) => rows.get(slotKey(s.jobId, s.slot)) ?? null);
}

/**
 * PENDING → RUNNING for this instance; returns the runs it won (conditional update). A run is
 * claimed once due (a retry at the end of its backoff) and from a lane where runs run (not
 * BUFFER_ONE's waiting place); a retry only while its job is ACTIVE (`stopChains` ends the
 * others). With tracing on, `newTrace` gives a run created without a trace context (a buffered
 * slot, a run made while tracing was off) one that starts at the run, written with the claim.
 */
export async function claim(ctx: RunContext, ids: string[], newTrace?: () => string): Promise<ClaimedRun[]> {
  if (ids.length === 0) return [];
  const runIds = [...ids].sort(); // one lock order across instances
  const now = ctx.now();
  const traces = newTrace ? runIds.map(() => newTrace()) : undefined;
  // Runs of a pool are not claimed here but named (`pools`): their pools' admission claims them.
  const res = await ctx.pool.query(
    `WITH claimed AS (${claimStatement(false, traces !== undefined)}),
       pooled AS (SELECT array_agg(DISTINCT p.concurrency_pool) AS pools FROM cron_job_runs p
         WHERE p.id = ANY($1::uuid[]) AND p.concurrency_pool IS NOT NULL AND p.status = ${S.PENDING})
     SELECT claimed.*, pooled.pools FROM pooled LEFT JOIN claimed ON true`,
    traces ? [runIds, now, ctx.instanceId, traces] : [runIds, now, ctx.instanceId],
  );
  const won = res.rows.filter((row) => row.id != null).map((row) => ({ run: rowToRun(row), limits: limitsOf(row) }));
  ctx.claimed(won.map((c) => c.run), false);
  const pools = res.rows[0]?.pools as string[] | null;
  return pools?.length ? [...won, ...(await admit(ctx, pools, { newTrace }))] : won;
}
