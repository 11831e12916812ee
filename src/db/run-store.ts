import type { Pool } from './pool.js';
import { jsonParam } from './pool.js';
import { FailureCode, JobStatus, RunStatus, ScheduleType, TERMINAL_RUN_STATUSES, TriggerType } from '../domain/enums.js';
import type { JobSnapshot } from '../domain/job.js';
import { RUN_COLUMNS, created, moved, rowToRun, type RunChange, type RunRecord } from '../domain/run.js';
import { Batcher } from './batcher.js';
import { Channel } from './notifier.js';
import { lit, litList } from './sql.js';

/** What a run copies from its job version (fixed for the life of a job row: versions are new rows). */
export type FiringJob = Pick<JobSnapshot, 'jobKey' | 'version' | 'target' | 'payload'>;

/** A slot that came due for a job. */
export interface DueSlot {
  jobId: string;
  slot: Date;
  /**
   * The job as the firing actor knows it: with it, the new run is built here rather than read
   * back (`RETURNING` only the id), which takes the payload's and the timestamps' text off the
   * fire path.
   */
  job?: FiringJob;
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

/** A run this instance claimed (PENDING → RUNNING), with its job's timeout. */
export interface ClaimedRun {
  run: RunRecord;
  timeoutSeconds: number | null;
}

/** What became of a due slot: it is ours to run, it was skipped, or another actor owns it. */
export type FireOutcome =
  | { kind: 'claimed'; run: RunRecord }
  | { kind: 'skipped'; run: RunRecord }
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
} as const;
const JOB = { ACTIVE: lit(JobStatus.ACTIVE), PAUSED: lit(JobStatus.PAUSED), RETIRED: lit(JobStatus.RETIRED) } as const;
const SCHEDULED = lit(TriggerType.SCHEDULED);
/** Who is named as the author of the changes cronql makes to a job by itself. */
const CRONQL = 'cronql';

/**
 * Co-due slots per statement. One statement for all is the fastest way to RUNNING (every batch
 * after the first waits behind it in the same indexes); the bound keeps one statement well
 * inside the statement timeout on a loaded database.
 */
const FIRE_BATCH = 20_000;

const OVERLAP_MESSAGE = 'skipped: a run of this job was still active when the slot came due';

/** RUN_COLUMNS qualified with a table alias, for statements that join. */
const qualified = (alias: string) => RUN_COLUMNS.split(',').map((c) => `${alias}.${c.trim()}`).join(', ');

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
}

/**
 * The statement that creates runs: one row per (job, slot, payload) of `source`, a query that
 * yields `job_id`, `slot` and `payload` (null: the job's own payload) from the job rows `j`
 * it joins. Rows go in in (job, slot) order, so two instances inserting the same co-due slots
 * take their index locks in the same order and never deadlock each other.
 */
function insertRuns(source: string, p: NewRunColumns, returning = RUN_COLUMNS): string {
  const running = p.runner !== undefined;
  return `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
      trigger_type, scheduled_at, status, failure_code, failure_message, failure_details, started_at, runner_instance_id,
      finished_at, created_at, updated_at)
    SELECT gen_random_uuid(), j.id, j.job_key, j.version, j.target, coalesce(s.payload, j.payload), ${p.trigger},
      s.slot, ${p.status}, ${p.code}, ${p.message}, ${p.details ?? 'NULL'}, ${running ? p.at : 'NULL'}, ${running ? p.runner : 'NULL'},
      CASE WHEN ${p.status} = ${S.SKIPPED} THEN ${p.at}::timestamptz END, ${p.at}, ${p.at}
    FROM ${source}
    ORDER BY j.id, s.slot
    ON CONFLICT DO NOTHING
    RETURNING ${returning}`;
}

/**
 * What a job becomes when one of its runs ends — one rule, in one place, as one UPDATE (two CTEs
 * updating the same job row in one statement would not both apply). A CTE over the rows
 * `changed` returns, named `jobs_after`, plus `job_notices`, which tells every instance of the
 * jobs cronql paused (the main query must read it, or it is not run):
 * - a one-time job retires once its scheduled run is terminal, however it got there;
 * - its signals move: a FAILED run adds a consecutive failure and sets last_failure_at, a
 *   SUCCEEDED one resets the count (the job's last success is read from its runs, so a success
 *   that ends no streak does not touch the job at all); canceled and skipped runs change nothing;
 * - an ACTIVE job whose failures in a row reach its `pause_after_failures` is PAUSED by cronql,
 *   with a reason naming the count and the last failure.
 */
/** The one-time job `d` retires with its ended run `c`: the rule, written once (`c` is terminal). */
const retiresOneTime = (c: string, d: string) =>
  `${c}.trigger_type = ${SCHEDULED} AND ${d}.schedule_type = ${lit(ScheduleType.ONE_TIME)} AND ${d}.status <> ${JOB.RETIRED}`;
const RETIRES = retiresOneTime('c', 'd');
const AUTO_PAUSES = `c.status = ${S.FAILED} AND d.status = ${JOB.ACTIVE} AND d.pause_after_failures IS NOT NULL
      AND d.consecutive_failures + 1 >= d.pause_after_failures`;
const afterRunsEnd = (changed: string, at: string) => `jobs_after AS (
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
    WHERE d.id = c.job_definition_id AND c.status IN (${S.TERMINAL})
      -- only rows that change: a success that ends no failure streak leaves its job alone
      AND (c.status = ${S.FAILED} OR (c.status = ${S.SUCCEEDED} AND d.consecutive_failures > 0) OR (${RETIRES}))
    RETURNING d.id, d.status, d.updated_by
  ), job_notices AS (
    SELECT count(pg_notify('${Channel.JOB_CHANGED}', j.id::text)) AS n FROM jobs_after j WHERE j.status = ${JOB.PAUSED} AND j.updated_by = '${CRONQL}'
  )`;

/** The main query of a statement ending runs: the changed rows, having run job_notices. */
const changedRows = (changed: string) => `SELECT ${changed}.* FROM ${changed}, job_notices`;

/** Due slots of ACTIVE jobs: `$1` job ids, `$2` slots. */
const DUE_SLOTS = `(SELECT job_id, slot, NULL::jsonb AS payload FROM unnest($1::uuid[], $2::timestamptz[]) AS u(job_id, slot)) s
    JOIN cron_job_definitions j ON j.id = s.job_id AND j.status = ${JOB.ACTIVE}`;

/**
 * The one writer of run state: every statement that creates a run or changes its status is here,
 * and each write publishes the changes it made (`publish`), once, right after its statement
 * returned — nothing else announces run changes (other instances' changes come through the
 * relay). Every invariant that must hold across instances is a database constraint: the unique
 * scheduled-slot key makes a slot fire once whoever fires it (`ON CONFLICT DO NOTHING`), the
 * partial unique index on active runs turns an overlapping slot into a SKIPPED row, and state
 * changes are conditional updates on the expected status. What a job becomes when its runs end
 * (signals, auto-pause, retiring a one-time job) is part of the same statement (`afterRunsEnd`).
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

  constructor(private readonly o: RunStoreOptions) {
    this.pool = o.pool;
    this.instanceId = o.instanceId;
    this.now = o.now;
  }

  /** The one place run changes leave the store. */
  private publish(changes: RunChange[]): void {
    this.o.publish(changes);
  }

  /** Records a due slot of an ACTIVE job and claims it for this instance if it is ours to run. */
  fire(due: DueSlot): Promise<FireOutcome> {
    return this.fires.add(due);
  }

  /**
   * Co-due slots in one statement, two when some overlap. The first inserts every slot that is
   * free as a RUNNING run of this instance: insert and claim are one statement, so a connection
   * lost after it committed leaves a run that says who owns it (the runtime resumes it) rather
   * than a PENDING run that blocks its job. Slots that inserted nothing either belong to someone
   * else (the slot key) or overlap an active run (the one-active-run index); recording them as
   * SKIPPED tells which, since the slot key still rejects a slot someone else owns.
   * A claimed run is announced as two changes: created PENDING, then RUNNING.
   */
  private async fireBatch(all: DueSlot[]): Promise<FireOutcome[]> {
    const now = this.now();
    // Work that can no longer be done on time is dropped, not queued: the caller accounts for it.
    const slots = all.filter((s) => !s.deadline || s.deadline.getTime() >= now.getTime());
    if (slots.length === 0) return all.map(() => ({ kind: 'late' }));

    const slim = slots.every((s) => s.job);
    const inserted = await this.trackFire(this.pool.query(
      insertRuns(
        DUE_SLOTS,
        { trigger: SCHEDULED, status: S.RUNNING, code: 'NULL', message: 'NULL', at: '$3', runner: '$4' },
        slim ? `id, job_definition_id, (extract(epoch FROM scheduled_at) * 1000)::float8 AS slot_ms` : RUN_COLUMNS,
      ),
      [slots.map((s) => s.jobId), slots.map((s) => s.slot), now, this.instanceId],
    ));
    const running = slim ? this.builtRuns(inserted.rows, slots, now) : bySlot(inserted.rows);
    const changes: RunChange[] = [];
    for (const run of running.values()) changes.push(created(asPending(run)), moved(run, RunStatus.PENDING));
    this.publish(changes);

    const rest = slots.filter((s) => !running.has(slotKey(s.jobId, s.slot)));
    let skipped = new Map<string, RunRecord>();
    if (rest.length > 0) {
      const res = await this.pool.query(
        `WITH ins AS (${insertRuns(DUE_SLOTS, { trigger: SCHEDULED, status: S.SKIPPED, code: '$4', message: '$5', at: '$3' })}),
         ${afterRunsEnd('ins', '$3')}
         ${changedRows('ins')}`,
        [rest.map((s) => s.jobId), rest.map((s) => s.slot), now, FailureCode.OVERLAP, OVERLAP_MESSAGE],
      );
      skipped = bySlot(res.rows);
      this.publish([...skipped.values()].map(created));
    }

    const kept = new Set(slots);
    return all.map((s): FireOutcome => {
      if (!kept.has(s)) return { kind: 'late' };
      const k = slotKey(s.jobId, s.slot);
      const r = running.get(k);
      if (r) return { kind: 'claimed', run: r };
      const sk = skipped.get(k);
      return sk ? { kind: 'skipped', run: sk } : { kind: 'taken' };
    });
  }

  /**
   * The RUNNING runs a slim insert made, built from what was inserted: the job's fixed columns,
   * the slot, this instance and the statement's instant — what the row holds.
   */
  private builtRuns(rows: Record<string, unknown>[], slots: DueSlot[], now: Date): Map<string, RunRecord> {
    const jobs = new Map(slots.map((s) => [s.jobId, s.job!]));
    const runs = new Map<string, RunRecord>();
    for (const row of rows) {
      const jobId = row.job_definition_id as string;
      const job = jobs.get(jobId)!;
      const scheduledAt = new Date(row.slot_ms as number);
      runs.set(slotKey(jobId, scheduledAt), {
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

  /** PENDING → RUNNING for this instance; returns the runs it won (conditional update). */
  async claim(ids: string[]): Promise<ClaimedRun[]> {
    if (ids.length === 0) return [];
    const runIds = [...ids].sort(); // one lock order across instances
    const now = this.now();
    const res = await this.pool.query(
      `UPDATE cron_job_runs r SET status = ${S.RUNNING}, started_at = $2, updated_at = $2, runner_instance_id = $3
       FROM cron_job_definitions d
       WHERE r.id = ANY($1::uuid[]) AND r.status = ${S.PENDING} AND d.id = r.job_definition_id
       RETURNING ${qualified('r')}, d.timeout_seconds`,
      [runIds, now, this.instanceId],
    );
    const won = res.rows.map((row) => ({ run: rowToRun(row), timeoutSeconds: row.timeout_seconds ?? null }));
    this.publish(won.map((c) => moved(c.run, RunStatus.PENDING)));
    return won;
  }

  /**
   * RUNNING → terminal. Returns null when the run was no longer RUNNING (canceled or failed by
   * someone else meanwhile): terminal states never change. Runs ending in the same turn of the
   * event loop are recorded together.
   */
  finish(runId: string, finish: Finish): Promise<RunRecord | null> {
    return this.finishes.add({ runId, finish });
  }

  /** `finish` for one run on its own, outside any batch (after its batch failed). */
  async finishAlone(runId: string, finish: Finish): Promise<RunRecord | null> {
    return (await this.finishBatch([{ runId, finish }]))[0];
  }

  private async finishBatch(all: { runId: string; finish: Finish }[]): Promise<(RunRecord | null)[]> {
    // Co-due slots first: this UPDATE would compete with their INSERT for the same indexes.
    if (this.firing.size > 0) await Promise.allSettled([...this.firing]);
    const now = this.now();
    // One outcome per run: a second one in the same batch loses.
    const seen = new Set<string>();
    const items = all.filter((i) => !seen.has(i.runId) && seen.add(i.runId)).sort((a, b) => (a.runId < b.runId ? -1 : 1));
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
       ${changedRows('done')}`,
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
    const ended = res.rows.map(rowToRun);
    this.publish(ended.map((run) => moved(run, RunStatus.RUNNING)));
    const byId = new Map(ended.map((run) => [run.id, run]));
    return all.map((i) => {
      const run = byId.get(i.runId) ?? null;
      byId.delete(i.runId);
      return run;
    });
  }

  /**
   * Creates a MANUAL run of a job that is not RETIRED, or an AD_HOC one when a payload is given.
   * With a run of the job still active, the run is recorded as SKIPPED (OVERLAP): run-now obeys
   * the overlap rule. Null when the job is RETIRED (or unknown).
   */
  async insertManual(jobId: string, payload: unknown | undefined): Promise<RunRecord | null> {
    const source = `(SELECT $1::uuid AS job_id, $3::timestamptz AS slot, $4::jsonb AS payload) s
      JOIN cron_job_definitions j ON j.id = s.job_id AND j.status <> ${JOB.RETIRED}`;
    const trigger = payload === undefined ? TriggerType.MANUAL : TriggerType.AD_HOC;
    const insert = async (status: RunStatus, code: string | null, message: string | null) => {
      const res = await this.pool.query(insertRuns(source, { trigger: '$2::text', status: '$5::text', code: '$6::text', message: '$7::text', at: '$3' }), [
        jobId,
        trigger,
        this.now(),
        jsonParam(payload),
        status,
        code,
        message,
      ]);
      return res.rows[0] ? rowToRun(res.rows[0]) : null;
    };
    const run = (await insert(RunStatus.PENDING, null, null)) ?? (await insert(RunStatus.SKIPPED, FailureCode.OVERLAP, OVERLAP_MESSAGE));
    if (run) this.publish([created(run)]);
    return run;
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
       ${changedRows('done')}`,
      [runId, this.now(), FailureCode.CANCELED],
    );
    const row = res.rows[0];
    if (!row) return null;
    const change = moved(rowToRun(row), row.previous_status as RunStatus);
    this.publish([change]);
    return change;
  }

  /**
   * The continuous sweep's rule for RUNNING runs whose runner is gone, safe when several
   * instances sweep at once (each row is settled by one UPDATE; the others find it terminal):
   * - the runner has an instance row whose heartbeat is older than `silentMs` (database time, so
   *   the instances' clocks do not matter): FAILED/RUNNER_LOST, with the runner and its last beat;
   * - the runner has no instance row (an instance of a version without heartbeats, or one pruned
   *   long ago): the PDR's rule, FAILED/STALE_TIMEOUT once started longer ago than `staleAfterMs`.
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
    const settled = res.rows.map(rowToRun);
    this.publish(settled.map((run) => moved(run, RunStatus.RUNNING)));
    return settled;
  }

  /**
   * Startup recovery (PRODUCT.md rule 3), before any timer is armed: RUNNING runs that started
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
         RETURNING ${RUN_COLUMNS}
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
    const staled = res.rows.map(rowToRun);
    this.publish(staled.map((run) => moved(run, RunStatus.RUNNING)));
    return staled;
  }

  /**
   * Retires one-time jobs whose scheduled run ended but which are not RETIRED: left by versions
   * of cronql that retired in a separate statement (today the run's end retires it, atomically,
   * by the same rule). Returns their ids.
   */
  async retireEndedOneTimeJobs(): Promise<string[]> {
    const res = await this.pool.query(
      `UPDATE cron_job_definitions d SET status = ${JOB.RETIRED}, pause_reason = NULL, updated_at = $1
       WHERE EXISTS (SELECT 1 FROM cron_job_runs c WHERE c.job_definition_id = d.id AND c.status IN (${S.TERMINAL})
         AND ${retiresOneTime('c', 'd')})
       RETURNING d.id`,
      [this.now()],
    );
    return res.rows.map((r) => r.id as string);
  }

  /**
   * Deletes up to `limit` runs created before `cutoff` that are terminal, sparing each job's
   * newest run, its latest SCHEDULED slot (the slot ledger) and its newest success (its
   * `lastSuccessAt`). One short transaction under an
   * advisory lock, so one instance prunes at a time; null when another instance holds it.
   */
  async pruneBatch(cutoff: Date, limit: number, lockKey: number): Promise<number | null> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const locked = await client.query('SELECT pg_try_advisory_xact_lock($1) AS ok', [lockKey]);
      if (!locked.rows[0].ok) {
        await client.query('ROLLBACK');
        return null;
      }
      const res = await client.query(
        `DELETE FROM cron_job_runs WHERE id IN (
           SELECT r.id FROM cron_job_runs r
           WHERE r.created_at < $1 AND r.status IN (${S.TERMINAL})
             AND r.id <> (SELECT l.id FROM cron_job_runs l WHERE l.job_definition_id = r.job_definition_id
                          ORDER BY l.scheduled_at DESC, l.id DESC LIMIT 1)
             AND NOT (r.trigger_type = ${SCHEDULED} AND r.scheduled_at = (
                 SELECT max(s.scheduled_at) FROM cron_job_runs s
                 WHERE s.job_definition_id = r.job_definition_id AND s.trigger_type = ${SCHEDULED}))
             AND r.id IS DISTINCT FROM (SELECT w.id FROM cron_job_runs w
                 WHERE w.job_definition_id = r.job_definition_id AND w.status = ${S.SUCCEEDED}
                 ORDER BY w.finished_at DESC LIMIT 1)
           ORDER BY r.created_at
           LIMIT $2
           FOR UPDATE SKIP LOCKED)`,
        [cutoff, limit],
      );
      await client.query('COMMIT');
      return res.rowCount ?? 0;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /**
   * PENDING runs (created before `createdBefore`, if given), oldest first, at most `limit`: at
   * startup and by the sweep they are claimed, each by exactly one instance.
   */
  async pendingIds(createdBefore?: Date, limit = 10_000): Promise<string[]> {
    const res = await this.pool.query(
      `SELECT id FROM cron_job_runs WHERE status = ${S.PENDING} AND ($1::timestamptz IS NULL OR created_at < $1)
       ORDER BY created_at, id LIMIT $2`,
      [createdBefore ?? null, limit],
    );
    return res.rows.map((r) => r.id as string);
  }

  /** The RUNNING runs the database says this instance runs (to find claims whose answer was lost). */
  async runningHere(): Promise<ClaimedRun[]> {
    const res = await this.pool.query(
      `SELECT ${qualified('r')}, d.timeout_seconds FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
       WHERE r.status = ${S.RUNNING} AND r.runner_instance_id = $1`,
      [this.instanceId],
    );
    return res.rows.map((row) => ({ run: rowToRun(row), timeoutSeconds: row.timeout_seconds ?? null }));
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
