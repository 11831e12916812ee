import type { Pool } from './pool.js';
import { jsonParam } from './pool.js';
import { BackoffKind, FailureCode, JobStatus, NON_RETRYABLE_CODES, OverlapPolicy, RunStatus, ScheduleType, TERMINAL_RUN_STATUSES, TriggerType } from '../domain/enums.js';
import { DEFAULT_CAPTURE_BYTES, type JobSnapshot } from '../domain/job.js';
import { RUN_COLUMNS, created, moved, rowToRun, type RunChange, type RunRecord } from '../domain/run.js';
import { Batcher } from './batcher.js';
import { Channel } from './notifier.js';
import { lit, litList } from './sql.js';

/**
 * What a run copies from its job version, and the job's overlap policy (fixed for the life of a
 * job row: versions are new rows).
 */
export type FiringJob = Pick<JobSnapshot, 'jobKey' | 'version' | 'target' | 'payload' | 'overlap'>;

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
}

/** A slot to record as SKIPPED/MISSED. */
export interface MissedSlot {
  jobId: string;
  slot: Date;
  message: string;
  details: Record<string, unknown>;
}

/** A run this instance claimed (PENDING → RUNNING), with what its job says of running it. */
export interface ClaimedRun {
  run: RunRecord;
  limits: RunLimits;
}

/** What a job says of running each of its runs: its timeout, and how much of a response to keep. */
export interface RunLimits {
  timeoutSeconds: number | null;
  captureBytes: number;
}

const limitsOf = (row: Record<string, unknown>): RunLimits => ({
  timeoutSeconds: row.timeout_seconds == null ? null : Number(row.timeout_seconds),
  captureBytes: row.capture_bytes == null ? DEFAULT_CAPTURE_BYTES : Number(row.capture_bytes),
});

/** What became of a due slot: it is ours to run, it was skipped, or another actor owns it. */
export type FireOutcome =
  /** Ours to run; `replaced`: the runs of the job it canceled (CANCEL_PREVIOUS), to abort. */
  | { kind: 'claimed'; run: RunRecord; replaced?: RunRecord[] }
  | { kind: 'skipped'; run: RunRecord }
  /** Waiting for the job's active run to end (BUFFER_ONE). */
  | { kind: 'buffered'; run: RunRecord }
  | { kind: 'taken' }
  | { kind: 'late' };

/** What the store needs: where it writes, who it is, the time, and where its changes go. */
export interface RunStoreOptions {
  pool: Pool;
  /** Recorded as the runner of the runs this instance claims. */
  instanceId: string;
  now: () => Date;
  /** Told of every change each write made, in order, right after the write returned. */
  publish: (changes: readonly RunChange[]) => void;
}

/** A run created waiting: a retry, due at the end of its backoff. */
export type WaitingRun = Pick<RunRecord, 'id' | 'dueAt'>;

export interface Finish {
  status: RunStatus.SUCCEEDED | RunStatus.FAILED | RunStatus.CANCELED;
  output?: unknown;
  failureCode?: string | null;
  failureMessage?: string | null;
  failureDetails?: unknown;
}

/** The run as it was, for an instant, before its claim: what the creation event announces. */
function asPending(run: RunRecord): RunRecord {
  return { ...run, status: RunStatus.PENDING, startedAt: null, runnerInstanceId: null, updatedAt: run.createdAt };
}

const S = {
  PENDING: lit(RunStatus.PENDING),
  RUNNING: lit(RunStatus.RUNNING),
  SUCCEEDED: lit(RunStatus.SUCCEEDED),
  FAILED: lit(RunStatus.FAILED),
  CANCELED: lit(RunStatus.CANCELED),
  SKIPPED: lit(RunStatus.SKIPPED),
  TERMINAL: litList(TERMINAL_RUN_STATUSES),
  ACTIVE_RUN: litList([RunStatus.PENDING, RunStatus.RUNNING]),
  /** The statuses a run that held a lane can end in (a SKIPPED row never held one). */
  ENDED: litList([RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELED]),
} as const;
const JOB = { ACTIVE: lit(JobStatus.ACTIVE), PAUSED: lit(JobStatus.PAUSED), RETIRED: lit(JobStatus.RETIRED) } as const;
const OVERLAP = {
  BUFFER_ONE: lit(OverlapPolicy.BUFFER_ONE),
  CANCEL_PREVIOUS: lit(OverlapPolicy.CANCEL_PREVIOUS),
  ALLOW: lit(OverlapPolicy.ALLOW),
} as const;
const SCHEDULED = lit(TriggerType.SCHEDULED);
/** Who is named as the author of the changes cronql makes to a job by itself. */
const CRONQL = 'cronql';

/**
 * Lanes: the places of a job's active runs (the unique index on (job, lane) of PENDING and
 * RUNNING runs). Runs run in lanes 0 to capacity - 1 (ALLOW: max_concurrent_runs; the others 1);
 * BUFFER_ONE's waiting slot sits in BUFFER_LANE, and starts by moving into lane 0.
 */
const BUFFER_LANE = -1;

/**
 * Co-due slots per statement. One statement for all is the fastest way to RUNNING (every batch
 * after the first waits behind it in the same indexes); the bound keeps one statement well
 * inside the statement timeout on a loaded database.
 */
const FIRE_BATCH = 20_000;

const OVERLAP_MESSAGE = 'skipped: a run of this job was still active when the slot came due';
const REPLACED_MESSAGE = 'canceled: a newer run of this job replaced it (overlap: CANCEL_PREVIOUS)';

/** The columns of a run row the statements here read back: `RUN_COLUMNS` and the run's lane. */
const ROW_COLUMNS = `${RUN_COLUMNS}, lane`;

/** ROW_COLUMNS qualified with a table alias, for statements that join. */
const qualified = (alias: string) => ROW_COLUMNS.split(',').map((c) => `${alias}.${c.trim()}`).join(', ');

/**
 * The lane a new run of job `j` takes: the first free one of an ALLOW job that may run several
 * at once (a race for it is settled by the unique index: the loser inserts nothing), else 0 —
 * where a busy lane makes the insert do nothing, and the slot goes on to its overlap policy.
 */
const FREE_LANE = `CASE WHEN j.overlap = ${OVERLAP.ALLOW} AND j.max_concurrent_runs > 1 THEN coalesce((
    SELECT min(l) FROM generate_series(0, j.max_concurrent_runs - 1) l
    WHERE NOT EXISTS (SELECT 1 FROM cron_job_runs a WHERE a.job_definition_id = j.id AND a.lane = l AND a.status IN (${S.ACTIVE_RUN}))
  ), 0) ELSE 0 END`;

/** A BUFFER_ONE job with a slot waiting: that slot starts first, a new one cannot overtake it. */
const NOT_BEHIND_BUFFER = `(j.overlap <> ${OVERLAP.BUFFER_ONE} OR NOT EXISTS (
    SELECT 1 FROM cron_job_runs b WHERE b.job_definition_id = j.id AND b.lane = ${BUFFER_LANE} AND b.status = ${S.PENDING}))`;

/** Expressions for the columns of new runs (SQL fragments over `s`, `j` and the parameters). */
interface NewRunColumns {
  trigger: string;
  status: string;
  code: string;
  message: string;
  /** The instant of the change. */
  at: string;
  details?: string;
  /** RUNNING at once: the runner's instance id (inserted and claimed in one statement). */
  runner?: string;
  /** The run's lane. @default 0 */
  lane?: string;
  /** When the run is due, if not at its slot. @default NULL */
  due?: string;
  /** Extra conditions on the rows of `source`. */
  where?: string;
}

/**
 * The statement that creates runs: one row per (job, slot, payload) of `source`, a query that
 * yields `job_id`, `slot` and `payload` (null: the job's own payload) from the job rows `j`
 * it joins. Rows go in in (job, slot) order, so two instances inserting the same co-due slots
 * take their index locks in the same order and never deadlock each other.
 */
function insertRuns(source: string, p: NewRunColumns, returning = ROW_COLUMNS): string {
  const running = p.runner !== undefined;
  return `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
      trigger_type, scheduled_at, status, failure_code, failure_message, failure_details, started_at, runner_instance_id,
      finished_at, lane, due_at, created_at, updated_at)
    SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, coalesce(s.payload, j.payload), ${p.trigger},
      s.slot, ${p.status}, ${p.code}, ${p.message}, ${p.details ?? 'NULL'}, ${running ? p.at : 'NULL'}, ${running ? p.runner : 'NULL'},
      CASE WHEN ${p.status} = ${S.SKIPPED} THEN ${p.at}::timestamptz END, ${p.lane ?? '0'}, ${p.due ?? 'NULL'}, ${p.at}, ${p.at}
    FROM ${source}
    ${p.where ? `WHERE ${p.where}` : ''}
    ORDER BY j.id, s.slot
    ON CONFLICT DO NOTHING
    RETURNING ${returning}`;
}

/**
 * The job `d` retires with its ended run `c`: the rule, written once (`c` is terminal) — a one-time
 * job's scheduled run, or the run of a recurring job's last slot ever (its expression has a year
 * field: `final_slot_at`, computed when the version was made).
 */
const retiresOneTime = (c: string, d: string) =>
  `${c}.trigger_type = ${SCHEDULED} AND ${d}.status <> ${JOB.RETIRED}
   AND (${d}.schedule_type = ${lit(ScheduleType.ONE_TIME)} OR COALESCE(${c}.scheduled_at >= ${d}.final_slot_at, false))`; // never NULL: callers negate it
/** `c` is retried: its next attempt is in `retried` (the slot's outcome is that attempt's). */
const RETRIED = `(c.id IN (SELECT x.retry_of FROM retried x))`; // a hashed subplan: one probe per row, however many retries
const RETIRES = `${retiresOneTime('c', 'd')} AND NOT ${RETRIED}`;
const AUTO_PAUSES = `c.status = ${S.FAILED} AND d.status = ${JOB.ACTIVE} AND d.pause_after_failures IS NOT NULL
      AND d.consecutive_failures + 1 >= d.pause_after_failures AND NOT ${RETRIED}`;

/**
 * The backoff before the attempt after `c` (attempt n = c.attempt) of job `d`, in seconds:
 * FIXED d, LINEAR d·n, EXPONENTIAL d·2ⁿ⁻¹, plus up to 10% of jitter (so the retries of jobs that
 * failed together do not all come back in the same instant), capped by the policy's maximum.
 */
const BACKOFF_SECONDS = `least(coalesce(d.retry_max_delay_seconds, 2147483647)::float8,
      (CASE d.retry_backoff WHEN ${lit(BackoffKind.FIXED)} THEN d.retry_delay_seconds
        WHEN ${lit(BackoffKind.LINEAR)} THEN d.retry_delay_seconds * c.attempt
        ELSE d.retry_delay_seconds * power(2, c.attempt - 1) END) * (1 + 0.1 * random()))`;

/** A FAILED run `c` of job `d` that gets a next attempt: the retry rule, written once. */
const RETRYABLE = `c.status = ${S.FAILED} AND d.status = ${JOB.ACTIVE} AND d.retry_max_attempts > c.attempt
      AND coalesce(c.failure_code, ${lit(FailureCode.HANDLER_ERROR)}) NOT IN (${litList(NON_RETRYABLE_CODES)})
      AND (d.retry_on IS NULL OR coalesce(c.failure_code, ${lit(FailureCode.HANDLER_ERROR)}) = ANY (d.retry_on))`;

/**
 * What follows when runs end — one rule each, in one place, in the statement that ended them (a
 * CTE over the rows `changed` returns; the main query must read `job_notices` and `retried`,
 * see `changedRows`):
 * - `retried`: a FAILED attempt whose failure is retryable, of an ACTIVE job with attempts left,
 *   gets its next attempt at once: a PENDING row of the same slot in the same lane (so the job
 *   stays active for the overlap rule), due at the end of the backoff (`due_at`);
 * - `promoted`: a BUFFER_ONE job whose run ended (and is not retried) moves its waiting slot into
 *   the freed lane, where it is claimed like a run-now (`job_notices` announces it);
 * - `jobs_after`: the job itself, as one UPDATE (two CTEs updating the same job row in one
 *   statement would not both apply): a one-time job retires once its scheduled run is terminal
 *   and not retried; a FAILED slot (its last attempt) adds a consecutive failure and sets
 *   last_failure_at, a SUCCEEDED one resets the count (the last success is read from the runs,
 *   so a success that ends no streak does not touch the job at all); canceled and skipped runs
 *   change nothing; an ACTIVE job whose failures in a row reach `pause_after_failures` is PAUSED
 *   by cronql, with a reason naming the count and the last failure;
 * - `job_notices` tells every instance of the jobs cronql paused and of the runs it promoted.
 */
const afterRunsEnd = (changed: string, at: string) => `retried AS (
    INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type,
      scheduled_at, status, attempt, retry_of, due_at, lane, created_at, updated_at)
    SELECT gen_random_uuid(), c.job_definition_id, c.job_key, c.job_version, c.target, c.payload_snapshot, c.trigger_type,
      c.scheduled_at, ${S.PENDING}, c.attempt + 1, c.id,
      -- whole milliseconds: the instant a timer of this process can be set for, and claim at
      date_trunc('milliseconds', ${at}::timestamptz + make_interval(secs => ${BACKOFF_SECONDS})), c.lane, ${at}, ${at}
    FROM ${changed} c JOIN cron_job_definitions d ON d.id = c.job_definition_id
    WHERE ${RETRYABLE}
    ORDER BY c.job_definition_id, c.id
    ON CONFLICT DO NOTHING
    RETURNING ${ROW_COLUMNS}
  ), promoted AS (
    -- only BUFFER_ONE jobs have a run in the buffer lane: found through the lane index, no job read
    UPDATE cron_job_runs b SET lane = c.lane, updated_at = ${at}
    FROM ${changed} c
    WHERE c.lane = 0 AND c.status IN (${S.ENDED}) AND NOT ${RETRIED}
      AND b.job_definition_id = c.job_definition_id AND b.lane = ${BUFFER_LANE} AND b.status = ${S.PENDING}
    RETURNING b.id
  ), jobs_after AS (
    UPDATE cron_job_definitions d SET
      status = CASE WHEN ${RETIRES} THEN ${JOB.RETIRED} WHEN ${AUTO_PAUSES} THEN ${JOB.PAUSED} ELSE d.status END,
      pause_reason = CASE WHEN NOT (${RETIRES}) AND ${AUTO_PAUSES}
        THEN format('auto-paused after %s consecutive failures; last: %s %s', d.consecutive_failures + 1,
          coalesce(c.failure_code, ${S.FAILED}), left(coalesce(c.failure_message, ''), 500))
        WHEN ${RETIRES} THEN NULL ELSE d.pause_reason END,
      updated_by = CASE WHEN NOT (${RETIRES}) AND ${AUTO_PAUSES} THEN '${CRONQL}' ELSE d.updated_by END,
      updated_at = CASE WHEN ${RETIRES} OR ${AUTO_PAUSES} THEN ${at}::timestamptz ELSE d.updated_at END,
      consecutive_failures = CASE c.status WHEN ${S.FAILED} THEN d.consecutive_failures + 1 WHEN ${S.SUCCEEDED} THEN 0 ELSE d.consecutive_failures END,
      last_failure_at = CASE WHEN c.status = ${S.FAILED} THEN ${at}::timestamptz ELSE d.last_failure_at END
    FROM ${changed} c
    WHERE d.id = c.job_definition_id AND c.status IN (${S.TERMINAL}) AND NOT ${RETRIED}
      -- only rows that change: a success that ends no failure streak leaves its job alone
      AND (c.status = ${S.FAILED} OR (c.status = ${S.SUCCEEDED} AND d.consecutive_failures > 0) OR (${retiresOneTime('c', 'd')}))
    RETURNING d.id, d.status, d.updated_by
  ), job_notices AS (
    SELECT (SELECT count(pg_notify('${Channel.JOB_CHANGED}', j.id::text)) FROM jobs_after j WHERE j.status = ${JOB.PAUSED} AND j.updated_by = '${CRONQL}')
      + (SELECT count(pg_notify('${Channel.RUN_CREATED}', p.id::text)) FROM promoted p) AS n
  )`;

/**
 * The main query of a statement ending runs: the changed rows (`retry` false, with `extra`
 * columns of `changed`), having run job_notices (and the one-row CTEs `also`, which would not run
 * unless read), then the retries they made (`retry` true).
 */
const changedRows = (changed: string, extra: string[] = [], also: string[] = []) => `SELECT ${qualified('x')}${extra.map((e) => `, x.${e}`).join('')}, false AS retry
    FROM ${changed} x, job_notices${also.map((a) => `, ${a}`).join('')}
  UNION ALL
  SELECT ${qualified('y')}${extra.map((e) => `, NULL AS ${e}`).join('')}, true AS retry FROM retried y`;

/**
 * `changedRows` for a caller that knows the changed runs already (the executor's ends of runs):
 * only their ids come back, and each retry whole as `row` (JSON) — not thousands of rows' text.
 */
const changedIds = (changed: string) => `SELECT x.id, false AS retry, NULL::jsonb AS row FROM ${changed} x, job_notices
  UNION ALL
  SELECT y.id, true AS retry, to_jsonb(y) AS row FROM retried y`;

/** Due slots of ACTIVE jobs: `$1` job ids, `$2` slots, `$3`: when each is due (null: at its slot). */
const DUE_SLOTS = `(SELECT job_id, slot, due, NULL::jsonb AS payload FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS u(job_id, slot, due)) s
    JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = ${JOB.ACTIVE}`;

/**
 * The one writer of run state: every statement that creates a run or changes its status is here,
 * and each write publishes the changes it made (`publish`), once, right after its statement
 * returned — nothing else announces run changes (other instances' changes come through the
 * relay). Every invariant that must hold across instances is a database constraint: the unique
 * scheduled-slot key makes a slot fire once whoever fires it (`ON CONFLICT DO NOTHING`), the
 * partial unique index on (job, lane) of active runs bounds every overlap policy's concurrency
 * (an overlapping slot inserts nothing, and becomes what its policy says), and state changes are
 * conditional updates on the expected status. What follows when runs end (a retry, a buffered
 * slot's start, the job's signals, auto-pause, retiring a one-time job) is part of the same
 * statement (`afterRunsEnd`).
 *
 * Co-due slots are batched: `fire()` calls made in the same turn of the event loop are recorded
 * by one statement for all of them; runs ending together by one UPDATE.
 */
export class RunStore {
  private readonly fires = new Batcher<DueSlot, FireOutcome>((slots) => this.fireBatch(slots), FIRE_BATCH);
  /** Fire statements in flight: ends of runs wait for those (fires first: a slot is due now, a run's end can wait). */
  private readonly firing = new Set<Promise<unknown>>();
  private readonly misses = new Batcher<MissedSlot, RunRecord | null>((slots) => this.missedBatch(slots));
  private readonly finishes = new Batcher<{ runId: string; finish: Finish }, RunRecord | null>((items) => this.finishBatch(items), FIRE_BATCH);
  private readonly pool: Pool;
  private readonly instanceId: string;
  private readonly now: () => Date;
  private waiting: (runs: readonly WaitingRun[]) => void = () => {};

  constructor(private readonly o: RunStoreOptions) {
    this.pool = o.pool;
    this.instanceId = o.instanceId;
    this.now = o.now;
  }

  /** Who starts the runs created waiting (retries): the runtime arms a timer for each. */
  onWaiting(wake: (runs: readonly WaitingRun[]) => void): void {
    this.waiting = wake;
  }

  /** The one place run changes leave the store. */
  private publish(changes: RunChange[]): void {
    this.o.publish(changes);
  }

  /**
   * The rows of a statement that ended runs (`changedRows`): publishes each changed run as moved
   * from `previous` (or its row's `previous_status`) and each retry it made as created, hands the
   * retries to `waiting`, and returns the changed runs.
   */
  private ended(rows: Record<string, unknown>[], previous?: RunStatus, known?: ReadonlyMap<string, RunRecord>): RunChange[] {
    const changes: RunChange[] = [];
    const retries: RunRecord[] = [];
    for (const row of rows) {
      if (row.retry) retries.push(rowToRun((row.row as Record<string, unknown> | undefined) ?? row));
      else changes.push(moved(known?.get(row.id as string) ?? rowToRun(row), previous ?? (row.previous_status as RunStatus)));
    }
    const retriedIds = new Set(retries.map((r) => r.retryOf));
    for (const c of changes) if (retriedIds.has(c.run.id)) c.retried = true;
    this.publish([...changes, ...retries.map(created)]);
    if (retries.length) this.waiting(retries);
    return changes;
  }

  /** Records a due slot of an ACTIVE job and claims it for this instance if it is ours to run. */
  fire(due: DueSlot): Promise<FireOutcome> {
    return this.fires.add(due);
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
  private async fireBatch(all: DueSlot[]): Promise<FireOutcome[]> {
    const now = this.now();
    // Work that can no longer be done on time is dropped, not queued: the caller accounts for it.
    const late = (s: DueSlot) => s.deadline !== undefined && s.deadline.getTime() < now.getTime();
    const slots = all.filter((s) => !late(s));
    if (slots.length === 0) return all.map(() => ({ kind: 'late' }));

    const inserted = await this.trackFire(this.pool.query(
      insertRuns(
        DUE_SLOTS,
        { trigger: SCHEDULED, status: S.RUNNING, code: 'NULL', message: 'NULL', at: '$4', runner: '$5', lane: FREE_LANE, due: 's.due', where: NOT_BEHIND_BUFFER },
        `id, job_definition_id, (extract(epoch FROM scheduled_at) * 1000)::float8 AS slot_ms`,
      ),
      [...dueParams(slots, now), this.instanceId],
    ));
    const running = this.builtRuns(inserted.rows, slots, now);
    const changes: RunChange[] = [];
    for (const run of running.values()) changes.push(created(asPending(run)), moved(run, RunStatus.PENDING));
    this.publish(changes);

    // Outcomes are keyed by the due slot itself (no per-slot key strings on the hot path).
    const outcomes = new Map<DueSlot, FireOutcome>();
    for (const [due, run] of running) outcomes.set(due, { kind: 'claimed', run });
    let rest = running.size === slots.length ? [] : slots.filter((s) => !running.has(s));
    const settle = (slotsOf: DueSlot[], runs: Map<string, RunRecord>, kind: 'buffered' | 'skipped') => {
      for (const s of slotsOf) {
        const run = runs.get(slotKey(s.jobId, s.slot));
        if (run && !outcomes.has(s)) outcomes.set(s, { kind, run });
      }
    };
    const byPolicy = (policy: OverlapPolicy) => rest.filter((s) => s.job.overlap === policy);
    const buffering = byPolicy(OverlapPolicy.BUFFER_ONE);
    if (buffering.length > 0) settle(buffering, await this.buffer(buffering, now), 'buffered');
    for (const s of byPolicy(OverlapPolicy.CANCEL_PREVIOUS)) {
      const won = await this.replace(s, now);
      if (won) outcomes.set(s, won);
    }
    rest = rest.filter((s) => !outcomes.has(s));
    if (rest.length > 0) {
      const res = await this.pool.query(
        `WITH ins AS (${insertRuns(DUE_SLOTS, { trigger: SCHEDULED, status: S.SKIPPED, code: '$5', message: '$6', at: '$4' })}),
         ${afterRunsEnd('ins', '$4')}
         ${changedRows('ins')}`,
        [...dueParams(rest, now), FailureCode.OVERLAP, OVERLAP_MESSAGE],
      );
      const skipped = bySlot(res.rows.filter((r) => !r.retry));
      this.publish([...skipped.values()].map(created));
      settle(rest, skipped, 'skipped');
    }

    return all.map((s): FireOutcome => outcomes.get(s) ?? (late(s) ? { kind: 'late' } : { kind: 'taken' }));
  }

  /** BUFFER_ONE: overlapping slots wait in the buffer lane if it is free (PENDING, announced as created). */
  private async buffer(slots: DueSlot[], now: Date): Promise<Map<string, RunRecord>> {
    const res = await this.pool.query(
      insertRuns(DUE_SLOTS, { trigger: SCHEDULED, status: S.PENDING, code: 'NULL', message: 'NULL', at: '$4', lane: String(BUFFER_LANE), due: 's.due' }),
      dueParams(slots, now),
    );
    const buffered = bySlot(res.rows);
    this.publish([...buffered.values()].map(created));
    return buffered;
  }

  /**
   * CANCEL_PREVIOUS: the job's active runs end CANCELED/REPLACED and the slot starts RUNNING here,
   * in one transaction under the job's advisory lock — two instances firing the same slot take
   * turns, and the second finds the slot recorded and cancels nothing. Runs running elsewhere are
   * told (NOTIFY); those running here are in the outcome's `replaced`, for the caller to abort.
   */
  private async replace(slot: DueSlot, now: Date): Promise<FireOutcome | null> {
    const rows = await this.inTransaction(async (q) => {
      await lockJob(q, slot.jobId);
      const taken = await q(
        `SELECT 1 FROM cron_job_runs WHERE job_definition_id = $1 AND scheduled_at = $2 AND trigger_type = ${SCHEDULED} AND attempt = 1`,
        [slot.jobId, slot.slot],
      );
      if (taken.rowCount) return null;
      const canceled = await this.cancelActive(q, slot.jobId, now);
      const ins = await q(
        insertRuns(DUE_SLOTS, { trigger: SCHEDULED, status: S.RUNNING, code: 'NULL', message: 'NULL', at: '$4', runner: '$5', due: 's.due' }),
        [...dueParams([slot], now), this.instanceId],
      );
      return { canceled, inserted: ins.rows };
    });
    if (!rows) return null;
    const replaced = this.ended(rows.canceled);
    const run = rows.inserted[0] ? rowToRun(rows.inserted[0]) : null;
    if (run) this.publish([created(asPending(run)), moved(run, RunStatus.PENDING)]);
    return run ? { kind: 'claimed', run, replaced: replaced.map((c) => c.run) } : null;
  }

  /** Within a transaction: the job's PENDING and RUNNING runs end CANCELED/REPLACED (rows of `changedRows`). */
  private async cancelActive(q: Query, jobId: string, now: Date): Promise<Record<string, unknown>[]> {
    const res = await q(
      `WITH done AS (
         UPDATE cron_job_runs r SET status = ${S.CANCELED}, finished_at = $2, updated_at = $2, failure_code = $3, failure_message = $4
         FROM (SELECT id, status FROM cron_job_runs WHERE job_definition_id = $1 AND status IN (${S.ACTIVE_RUN}) ORDER BY id FOR UPDATE) before
         WHERE r.id = before.id
         RETURNING ${qualified('r')}, before.status AS previous_status
       ), cancel_notices AS (SELECT count(pg_notify('${Channel.RUN_CANCELED}', id::text)) AS n FROM done),
       ${afterRunsEnd('done', '$2')}
       ${changedRows('done', ['previous_status'], ['cancel_notices'])}`,
      [jobId, now, FailureCode.REPLACED, REPLACED_MESSAGE],
    );
    return res.rows;
  }

  /** Runs `work` in one transaction on one connection. */
  private async inTransaction<T>(work: (q: Query) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work((text, params) => client.query(text, params));
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * The RUNNING runs a slim insert made, built from what was inserted: the job's fixed columns,
   * the slot, this instance and the statement's instant — what the row holds.
   */
  private builtRuns(rows: Record<string, unknown>[], slots: DueSlot[], now: Date): Map<DueSlot, RunRecord> {
    // A batch holds a job once, but for a catch-up several slots of one job can share it.
    const byJob = new Map<string, DueSlot | DueSlot[]>();
    for (const s of slots) {
      const seen = byJob.get(s.jobId);
      byJob.set(s.jobId, seen === undefined ? s : Array.isArray(seen) ? [...seen, s] : [seen, s]);
    }
    const runs = new Map<DueSlot, RunRecord>();
    for (const row of rows) {
      const jobId = row.job_definition_id as string;
      const slotMs = row.slot_ms as number;
      const found = byJob.get(jobId)!;
      const due = Array.isArray(found) ? found.find((s) => s.slot.getTime() === slotMs && !runs.has(s))! : found;
      const scheduledAt = due.slot;
      const job = due.job;
      runs.set(due, {
        id: row.id as string,
        jobId,
        jobKey: job.jobKey,
        jobVersion: job.version,
        target: job.target,
        payloadSnapshot: job.payload ?? null,
        triggerType: TriggerType.SCHEDULED,
        scheduledAt,
        startedAt: now,
        finishedAt: null,
        status: RunStatus.RUNNING,
        failureCode: null,
        failureMessage: null,
        failureDetails: null,
        output: null,
        runnerInstanceId: this.instanceId,
        attempt: 1,
        retryOf: null,
        dueAt: due.dueAt ?? null,
        createdAt: now,
        updatedAt: now,
      });
    }
    return runs;
  }

  /** Tracks a fire statement while it is in flight. */
  private trackFire<T>(statement: Promise<T>): Promise<T> {
    this.firing.add(statement);
    const done = () => this.firing.delete(statement);
    statement.then(done, done);
    return statement;
  }

  /**
   * Records missed slots as SKIPPED/MISSED rows (batched like fires). A slot someone recorded
   * meanwhile keeps its row (the slot key); returns the rows written.
   */
  recordMissed(slots: MissedSlot[]): Promise<RunRecord[]> {
    if (slots.length === 0) return Promise.resolve([]);
    return Promise.all(slots.map((s) => this.misses.add(s))).then((rows) => rows.filter((r): r is RunRecord => r !== null));
  }

  private async missedBatch(slots: MissedSlot[]): Promise<(RunRecord | null)[]> {
    const now = this.now();
    const source = `(SELECT job_id, slot, NULL::jsonb AS payload, message, details
        FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::jsonb[]) AS u(job_id, slot, message, details)) s
      JOIN cron_job_definitions j ON j.id = s.job_id`;
    const res = await this.pool.query(
      insertRuns(source, { trigger: SCHEDULED, status: S.SKIPPED, code: '$5', message: 's.message', details: 's.details', at: '$6' }),
      [slots.map((s) => s.jobId), slots.map((s) => s.slot), slots.map((s) => s.message), slots.map((s) => JSON.stringify(s.details)), FailureCode.MISSED, now],
    );
    const rows = bySlot(res.rows);
    this.publish([...rows.values()].map(created));
    return slots.map((s) => rows.get(slotKey(s.jobId, s.slot)) ?? null);
  }

  /**
   * PENDING → RUNNING for this instance; returns the runs it won (conditional update). A run is
   * claimed once due (a retry at the end of its backoff) and from a lane where runs run (not
   * BUFFER_ONE's waiting place); a retry only while its job is ACTIVE (`stopChains` ends the
   * others).
   */
  async claim(ids: string[]): Promise<ClaimedRun[]> {
    if (ids.length === 0) return [];
    const runIds = [...ids].sort(); // one lock order across instances
    const now = this.now();
    const res = await this.pool.query(
      `UPDATE cron_job_runs r SET status = ${S.RUNNING}, started_at = $2, updated_at = $2, runner_instance_id = $3
       FROM cron_job_definitions d
       WHERE r.id = ANY($1::uuid[]) AND r.status = ${S.PENDING} AND d.id = r.job_definition_id
         AND r.lane >= 0 AND (r.due_at IS NULL OR r.due_at <= $2) AND (r.attempt = 1 OR d.status = ${JOB.ACTIVE})
       RETURNING ${qualified('r')}, d.timeout_seconds, d.capture_bytes`,
      [runIds, now, this.instanceId],
    );
    const won = res.rows.map((row) => ({ run: rowToRun(row), limits: limitsOf(row) }));
    this.publish(won.map((c) => moved(c.run, RunStatus.PENDING)));
    return won;
  }

  /**
   * RUNNING → terminal. Returns null when the run was no longer RUNNING (canceled or failed by
   * someone else meanwhile): terminal states never change. Runs ending in the same turn of the
   * event loop are recorded together.
   */
  finish(run: RunRecord | string, finish: Finish): Promise<RunRecord | null> {
    return this.finishes.add(ending(run, finish));
  }

  /** `finish` for one run on its own, outside any batch (after its batch failed). */
  async finishAlone(run: RunRecord | string, finish: Finish): Promise<RunRecord | null> {
    return (await this.finishBatch([ending(run, finish)]))[0];
  }

  private async finishBatch(all: Ending[]): Promise<(RunRecord | null)[]> {
    // Co-due slots first: this UPDATE would compete with their INSERT for the same indexes.
    if (this.firing.size > 0) await Promise.allSettled([...this.firing]);
    const now = this.now();
    // One outcome per run: a second one in the same batch loses.
    const seen = new Set<string>();
    const items = all.filter((i) => !seen.has(i.runId) && seen.add(i.runId)).sort((a, b) => (a.runId < b.runId ? -1 : 1));
    const slim = items.every((i) => i.run);
    const res = await this.pool.query(
      `WITH input AS (
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[], $5::text[], $6::jsonb[])
           AS t(id, status, output, failure_code, failure_message, failure_details)
       ), done AS (
         UPDATE cron_job_runs r SET status = i.status, finished_at = $7, updated_at = $7, output = i.output,
           failure_code = i.failure_code, failure_message = i.failure_message, failure_details = i.failure_details
         FROM input i
         WHERE r.id = i.id AND r.status = ${S.RUNNING}
         RETURNING ${qualified('r')}
       ), ${afterRunsEnd('done', '$7')}
       ${slim ? changedIds('done') : changedRows('done')}`,
      [
        items.map((i) => i.runId),
        items.map((i) => i.finish.status),
        items.map((i) => jsonParam(i.finish.output)),
        items.map((i) => i.finish.failureCode ?? null),
        items.map((i) => i.finish.failureMessage ?? null),
        items.map((i) => jsonParam(i.finish.failureDetails)),
        now,
      ],
    );
    // The ended runs as the rows now hold them: known ones built here (what the statement wrote).
    const known = slim ? new Map(items.map((i) => [i.runId, endedRun(i.run!, i.finish, now)])) : undefined;
    const byId = new Map(this.ended(res.rows, RunStatus.RUNNING, known).map((c) => [c.run.id, c.run]));
    return all.map((i) => {
      const run = byId.get(i.runId) ?? null;
      byId.delete(i.runId);
      return run;
    });
  }

  /**
   * Creates a MANUAL run of a job that is not RETIRED, or an AD_HOC one when a payload is given,
   * by the job's overlap policy like a slot: PENDING in a free lane; else buffered (BUFFER_ONE),
   * or in place of the active run (CANCEL_PREVIOUS: returned with the runs it `replaced`, for the
   * caller to abort), or SKIPPED/OVERLAP. Null when the job is RETIRED (or unknown).
   */
  async insertManual(jobId: string, payload: unknown | undefined): Promise<{ run: RunRecord; replaced: RunRecord[] } | null> {
    const policy = await this.pool.query(`SELECT overlap FROM cron_job_definitions WHERE id = $1 AND status <> ${JOB.RETIRED}`, [jobId]);
    if (!policy.rows[0]) return null;
    const overlap = policy.rows[0].overlap as OverlapPolicy;
    const source = `(SELECT $1::uuid AS job_id, $3::timestamptz AS slot, $4::jsonb AS payload) s
      JOIN cron_job_definitions j ON j.id = s.job_id AND j.status <> ${JOB.RETIRED}`;
    const trigger = payload === undefined ? TriggerType.MANUAL : TriggerType.AD_HOC;
    const now = this.now();
    const insert = async (q: Query, status: RunStatus, code: string | null, message: string | null, lane: string, where?: string) => {
      const res = await q(insertRuns(source, { trigger: '$2::text', status: '$5::text', code: '$6::text', message: '$7::text', at: '$3', lane, where }), [
        jobId,
        trigger,
        now,
        jsonParam(payload),
        status,
        code,
        message,
      ]);
      return res.rows[0] ? rowToRun(res.rows[0]) : null;
    };
    const q: Query = (text, params) => this.pool.query(text, params);
    let run = await insert(q, RunStatus.PENDING, null, null, FREE_LANE, NOT_BEHIND_BUFFER);
    let replaced: RunRecord[] = [];
    if (!run && overlap === OverlapPolicy.BUFFER_ONE) run = await insert(q, RunStatus.PENDING, null, null, String(BUFFER_LANE));
    if (!run && overlap === OverlapPolicy.CANCEL_PREVIOUS) {
      const done = await this.inTransaction(async (tq) => {
        await lockJob(tq, jobId);
        const canceled = await this.cancelActive(tq, jobId, now);
        return { canceled, run: await insert(tq, RunStatus.PENDING, null, null, '0') };
      });
      replaced = this.ended(done.canceled).map((c) => c.run);
      run = done.run;
    }
    run ??= await insert(q, RunStatus.SKIPPED, FailureCode.OVERLAP, OVERLAP_MESSAGE, '0');
    if (!run) return null;
    this.publish([created(run)]);
    return { run, replaced };
  }

  /** PENDING|RUNNING → CANCELED; null when the run is terminal already (or unknown). */
  async cancel(runId: string): Promise<RunChange | null> {
    const res = await this.pool.query(
      `WITH before AS (
         SELECT id, status FROM cron_job_runs WHERE id = $1 AND status IN (${S.ACTIVE_RUN}) FOR UPDATE
       ), done AS (
         UPDATE cron_job_runs r SET status = ${S.CANCELED}, finished_at = $2, updated_at = $2,
           failure_code = $3, failure_message = 'canceled by an admin'
         FROM before
         WHERE r.id = before.id AND r.status IN (${S.ACTIVE_RUN})
         RETURNING ${qualified('r')}, before.status AS previous_status
       ), ${afterRunsEnd('done', '$2')}
       ${changedRows('done', ['previous_status'])}`,
      [runId, this.now(), FailureCode.CANCELED],
    );
    return this.ended(res.rows)[0] ?? null;
  }

  /**
   * Ends the chains of jobs that stopped being ACTIVE (paused, retired, replaced by a version):
   * their waiting retries and buffered slots become CANCELED, with a message saying why. Given
   * ids, only those jobs' (after an admin's change); without, every such job's (the sweep).
   */
  async stopChains(jobIds?: string[]): Promise<RunRecord[]> {
    const now = this.now();
    const res = await this.pool.query(
      `WITH stale AS (
         SELECT r.id, r.status, d.status AS job_status FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
         WHERE r.status = ${S.PENDING} AND (r.attempt > 1 OR r.lane = ${BUFFER_LANE}) AND d.status <> ${JOB.ACTIVE}
           AND ($3::uuid[] IS NULL OR r.job_definition_id = ANY ($3::uuid[]))
         ORDER BY r.id FOR UPDATE OF r SKIP LOCKED
       ), done AS (
         UPDATE cron_job_runs r SET status = ${S.CANCELED}, finished_at = $1, updated_at = $1, failure_code = $2,
           failure_message = format('canceled: the job is %s, which stops its retries and buffered slots', stale.job_status)
         FROM stale WHERE r.id = stale.id AND r.status = ${S.PENDING}
         RETURNING ${qualified('r')}, stale.status AS previous_status
       ), ${afterRunsEnd('done', '$1')}
       ${changedRows('done', ['previous_status'])}`,
      [now, FailureCode.CANCELED, jobIds ?? null],
    );
    return this.ended(res.rows).map((c) => c.run);
  }

  /**
   * BUFFER_ONE slots left waiting although their job has no active run (the instance that ended
   * the run stopped before its statement's notice was acted on): moved into lane 0 and returned,
   * to be claimed. A run inserted into lane 0 meanwhile wins; the slot then waits for it.
   */
  async promoteStranded(limit = 1_000): Promise<string[]> {
    try {
      const res = await this.pool.query(
        `UPDATE cron_job_runs b SET lane = 0, updated_at = $1
         WHERE b.id IN (SELECT w.id FROM cron_job_runs w
           WHERE w.status = ${S.PENDING} AND w.lane = ${BUFFER_LANE}
             AND NOT EXISTS (SELECT 1 FROM cron_job_runs a WHERE a.job_definition_id = w.job_definition_id AND a.lane = 0 AND a.status IN (${S.ACTIVE_RUN}))
           ORDER BY w.id LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING b.id`,
        [this.now(), limit],
      );
      return res.rows.map((r) => r.id as string);
    } catch (err) {
      if ((err as { code?: string }).code === '23505') return []; // lane 0 taken meanwhile: the next round
      throw err;
    }
  }

  /**
   * The continuous sweep's rule for RUNNING runs whose runner is gone, safe when several
   * instances sweep at once (each row is settled by one UPDATE; the others find it terminal):
   * - the runner has an instance row whose heartbeat is older than `silentMs` (database time, so
   *   the instances' clocks do not matter): FAILED/RUNNER_LOST, with the runner and its last beat;
   * - the runner has no instance row (an instance of a version without heartbeats, or one pruned
   *   long ago): the stale rule, FAILED/STALE_TIMEOUT once started longer ago than `staleAfterMs`.
   * A retryable failure gets its next attempt like any other.
   */
  async settleLost(silentMs: number, staleAfterMs: number): Promise<RunRecord[]> {
    const now = this.now();
    const res = await this.pool.query(
      `WITH lost AS (
         SELECT r.id, r.runner_instance_id, i.id AS known, i.heartbeat_at
         FROM cron_job_runs r LEFT JOIN cron_instances i ON i.id = r.runner_instance_id
         WHERE r.status = ${S.RUNNING}
           AND ((i.id IS NOT NULL AND i.heartbeat_at < now() - make_interval(secs => $2::double precision / 1000))
             OR (i.id IS NULL AND r.started_at < $1::timestamptz - make_interval(secs => $3::double precision / 1000)))
         ORDER BY r.id
         FOR UPDATE OF r SKIP LOCKED
       ), done AS (
         UPDATE cron_job_runs r SET status = ${S.FAILED}, finished_at = $1, updated_at = $1,
           failure_code = CASE WHEN lost.known IS NULL THEN $5 ELSE $4 END,
           failure_message = CASE WHEN lost.known IS NULL
             THEN 'the run was still RUNNING longer than the stale threshold, and its runner is not a known instance'
             ELSE 'the run''s runner stopped beating (crashed, stopped or cut off from the database)' END,
           failure_details = CASE WHEN lost.known IS NULL
             THEN jsonb_build_object('runnerInstanceId', lost.runner_instance_id, 'staleAfterMs', $3::bigint)
             ELSE jsonb_build_object('runnerInstanceId', lost.runner_instance_id, 'lastHeartbeatAt',
               to_char(lost.heartbeat_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END
         FROM lost
         WHERE r.id = lost.id AND r.status = ${S.RUNNING}
         RETURNING ${qualified('r')}
       ), ${afterRunsEnd('done', '$1')}
       ${changedRows('done')}`,
      [now, silentMs, staleAfterMs, FailureCode.RUNNER_LOST, FailureCode.STALE_TIMEOUT],
    );
    return this.ended(res.rows, RunStatus.RUNNING).map((c) => c.run);
  }

  /**
   * Startup recovery (docs/behaviour.md), before any timer is armed: RUNNING runs that started
   * longer ago than `staleAfterMs`, and, whatever their age, those recorded as running on this
   * very instance id (a fixed CRONQL_INSTANCE_ID restarted: nothing of this process runs them
   * yet), become FAILED/STALE_TIMEOUT.
   */
  async settleStale(staleAfterMs: number): Promise<RunRecord[]> {
    const now = this.now();
    const res = await this.pool.query(
      `WITH done AS (
         UPDATE cron_job_runs SET status = ${S.FAILED}, finished_at = $2, updated_at = $2, failure_code = $3,
           failure_message = CASE WHEN started_at < $1 THEN $4 ELSE $6 END,
           failure_details = jsonb_build_object('staleAfterMs', $5::bigint, 'runnerInstanceId', runner_instance_id)
         WHERE status = ${S.RUNNING} AND (started_at < $1 OR runner_instance_id = $7)
         RETURNING ${ROW_COLUMNS}
       ), ${afterRunsEnd('done', '$2')}
       ${changedRows('done')}`,
      [
        new Date(now.getTime() - staleAfterMs),
        now,
        FailureCode.STALE_TIMEOUT,
        'the run was still RUNNING when cronql started, and had started longer ago than the stale threshold',
        staleAfterMs,
        'the run was still RUNNING on this instance id when it restarted',
        this.instanceId,
      ],
    );
    return this.ended(res.rows, RunStatus.RUNNING).map((c) => c.run);
  }

  /**
   * Retires one-time jobs whose scheduled run ended but which are not RETIRED (and recurring ones
   * whose last slot's run ended, by the same rule): left by versions
   * of cronql that retired in a separate statement (today the run's end retires it, atomically,
   * by the same rule). Returns their ids.
   */
  async retireEndedOneTimeJobs(): Promise<string[]> {
    const res = await this.pool.query(
      `UPDATE cron_job_definitions d SET status = ${JOB.RETIRED}, pause_reason = NULL, updated_at = $1
       WHERE EXISTS (SELECT 1 FROM cron_job_runs c WHERE c.job_definition_id = d.id AND c.status IN (${S.TERMINAL})
         AND ${retiresOneTime('c', 'd')}
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs x WHERE x.retry_of = c.id))
       RETURNING d.id`,
      [this.now()],
    );
    return res.rows.map((r) => r.id as string);
  }

  /**
   * Deletes up to `limit` terminal runs scheduled before `cutoff` (their slot, or a run-now's creation), sparing each job's
   * newest run, its latest SCHEDULED slot (the slot ledger) and its newest success (its
   * `lastSuccessAt`). One short transaction under an
   * advisory lock, so one instance prunes at a time; null when another instance holds it.
   */
  async pruneBatch(cutoff: Date, limit: number, lockKey: number): Promise<number | null> {
    return this.inTransaction(async (q) => {
      const locked = await q('SELECT pg_try_advisory_xact_lock($1) AS ok', [lockKey]);
      if (!locked.rows[0].ok) return null; // another instance prunes (committing nothing is rolling back)
      const res = await q(
        `DELETE FROM cron_job_runs WHERE id IN (
           SELECT r.id FROM cron_job_runs r
           WHERE r.scheduled_at < $1 AND r.status IN (${S.TERMINAL})
             AND r.id <> (SELECT l.id FROM cron_job_runs l WHERE l.job_definition_id = r.job_definition_id
                          ORDER BY l.scheduled_at DESC, l.id DESC LIMIT 1)
             AND NOT (r.trigger_type = ${SCHEDULED} AND r.scheduled_at = (
                 SELECT max(s.scheduled_at) FROM cron_job_runs s
                 WHERE s.job_definition_id = r.job_definition_id AND s.trigger_type = ${SCHEDULED} AND s.attempt = 1))
             AND r.id IS DISTINCT FROM (SELECT w.id FROM cron_job_runs w
                 WHERE w.job_definition_id = r.job_definition_id AND w.status = ${S.SUCCEEDED}
                 ORDER BY w.finished_at DESC LIMIT 1)
           ORDER BY r.scheduled_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)`,
        [cutoff, limit],
      );
      return res.rowCount ?? 0;
    });
  }

  /**
   * PENDING runs that can be claimed, due before `dueBefore` (if given: run-now's at its
   * creation, a retry at the end of its backoff), oldest first, at most `limit`: at startup and by
   * the sweep they are claimed, each by exactly one instance.
   */
  async pendingIds(dueBefore?: Date, limit = 10_000): Promise<string[]> {
    const res = await this.pool.query(
      `SELECT id FROM cron_job_runs
       WHERE status = ${S.PENDING} AND lane >= 0
         AND CASE WHEN $1::timestamptz IS NULL THEN due_at IS NULL OR due_at <= $3 ELSE coalesce(due_at, created_at) <= $1 END
       ORDER BY coalesce(due_at, created_at), id LIMIT $2`,
      [dueBefore ?? null, limit, this.now()],
    );
    return res.rows.map((r) => r.id as string);
  }

  /** Runs waiting to be due (retries) by `until`, soonest first, at most `limit`: for timers. */
  async waitingUntil(until: Date, limit = 10_000): Promise<WaitingRun[]> {
    const res = await this.pool.query(
      `SELECT id, due_at FROM cron_job_runs
       WHERE status = ${S.PENDING} AND lane >= 0 AND due_at IS NOT NULL AND coalesce(due_at, created_at) <= $1
       ORDER BY coalesce(due_at, created_at), id LIMIT $2`,
      [until, limit],
    );
    return res.rows.map((r) => ({ id: r.id as string, dueAt: new Date(r.due_at) }));
  }

  /**
   * The RUNNING runs the database says this instance runs, started before `startedBefore` and not
   * among `executing` (to find claims whose answer was lost: only those rows are read whole).
   */
  async runningHere(startedBefore: Date, executing: readonly string[] = []): Promise<ClaimedRun[]> {
    const res = await this.pool.query(
      `SELECT ${qualified('r')}, d.timeout_seconds, d.capture_bytes FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
       WHERE r.status = ${S.RUNNING} AND r.runner_instance_id = $1 AND r.started_at < $2 AND r.id <> ALL($3::uuid[])`,
      [this.instanceId, startedBefore, executing],
    );
    return res.rows.map((row) => ({ run: rowToRun(row), limits: limitsOf(row) }));
  }

  async get(runId: string): Promise<RunRecord | null> {
    const res = await this.pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = $1`, [runId]);
    return res.rows[0] ? rowToRun(res.rows[0]) : null;
  }

  /** The current status of runs (to reconcile runs in flight after lost notifications). */
  async statuses(runIds: string[]): Promise<Map<string, RunStatus>> {
    if (runIds.length === 0) return new Map();
    const res = await this.pool.query('SELECT id, status FROM cron_job_runs WHERE id = ANY($1::uuid[])', [runIds]);
    return new Map(res.rows.map((r) => [r.id as string, r.status as RunStatus]));
  }
}

/** A run's end to record; with the run as this instance knows it, the statement need not send it back. */
interface Ending {
  runId: string;
  run?: RunRecord;
  finish: Finish;
}

const ending = (run: RunRecord | string, finish: Finish): Ending =>
  typeof run === 'string' ? { runId: run, finish } : { runId: run.id, run, finish };

/** What a RUNNING run becomes when `finish` is recorded at `now` (what the finishing statement writes). */
function endedRun(run: RunRecord, f: Finish, now: Date): RunRecord {
  return {
    ...run,
    status: f.status,
    finishedAt: now,
    updatedAt: now,
    output: f.output === undefined ? null : (f.output ?? null),
    failureCode: f.failureCode ?? null,
    failureMessage: f.failureMessage ?? null,
    failureDetails: f.failureDetails === undefined ? null : (f.failureDetails ?? null),
  };
}

/** Within a transaction: waits for the job's advisory lock (CANCEL_PREVIOUS's cancel-and-start, one instance at a time). */
const lockJob = (q: Query, jobId: string) => q('SELECT pg_advisory_xact_lock(hashtextextended($1::text, 7))', [jobId]);

/** A statement on the pool or on one transaction's connection. */
type Query = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;

/** The parameters of `DUE_SLOTS` ($1–$3) and the instant ($4); a RUNNING insert adds its runner ($5). */
const dueParams = (slots: DueSlot[], now: Date): unknown[] => [
  slots.map((s) => s.jobId),
  slots.map((s) => s.slot),
  slots.map((s) => s.dueAt ?? null),
  now,
];

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
