import { RunStatus } from '../../domain/enums.js';
import { created, moved, type RunChange, type RunRecord } from '../../domain/run.js';
import { Channel } from '../notifier.js';
import { JOBS_AFTER_RETURNING, jobAlerts, lostAlerts, outboxNotice } from './alert-rules.js';
import type { RunContext } from './context.js';
import { rowToRun } from './record.js';
import { DEPENDENT_NOTICES, dependentRuns } from './dependency-rules.js';
import { BACKOFF, BUFFER_LANE, CODE, CRONQL, JOB, ONE_TIME, ROW_COLUMNS, S, SCHEDULED, qualified } from './vocabulary.js';

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
 * - `job_alerts` (and with `lost`, `lost_alerts`): the alerts the ends raise, in the outbox
 *   (alert-rules.ts);
 * - `pool_wakes`: a run of a concurrency pool ended, so a place in it may be free: every instance
 *   is told (POOL_FREED) and admits the pool's waiting runs (pool-admission.ts) — sent whether or
 *   not this statement sees a run waiting, since one may be recorded waiting by a transaction this
 *   one cannot see yet; runs of no pool send nothing;
 * - `dep_…` (dependency-rules.ts): the runs of the AFTER jobs that follow the ended runs' jobs,
 *   with their links to the upstream runs;
 * - `job_notices` tells every instance of the jobs cronql paused of the runs it promoted or
 *   made ready (dependents) and of the pools with a place freed, and the deliverers of new alerts.
 *
 * Every statement that ends runs (finish, cancel, replace, settling lost and stale runs, stopping
 * chains, recording a skip) appends these, so the rules hold however a run ended.
 */
export const afterRunsEnd = (changed: string, at: string, o: { lost?: boolean } = {}) =>
  [
    retried(changed, at),
    promoted(changed, at),
    jobsAfter(changed, at),
    ...dependentRuns(changed, at, RETRIED),
    jobAlerts(at),
    poolWakes(changed),
    ...(o.lost ? [lostAlerts(changed, at, RETRIED)] : []),
    jobNotices(o.lost ? ['job_alerts', 'lost_alerts'] : ['job_alerts']),
  ].join(', ');

/**
 * The scheduled runs of `d`'s key that started (SKIPPED slots never start; retries are attempts of
 * a slot already counted): what `max_runs` bounds. Read only for a job with `max_runs`. Found per
 * version of the key, through the runs' (job, slot) index: runs have no index of their key, and a
 * scan of the whole history here was once per fired slot of such a job — and its estimate, in the
 * fire statement's join, made PostgreSQL choose a nested loop comparing every slot with every job
 * (20 s for 10,000 co-due slots over 500,000 runs).
 */
export const startedRuns = (d: string) =>
  `(SELECT count(*) FROM cron_job_definitions mv JOIN cron_job_runs m ON m.job_definition_id = mv.id
     WHERE mv.job_key = ${d}.job_key AND m.trigger_type = ${SCHEDULED} AND m.attempt = 1 AND m.started_at IS NOT NULL)`;

/**
 * The job `d` retires with its ended run `c`: the rule, written once (`c` is terminal) — a one-time
 * job's scheduled run, the run of a schedule's last slot ever (`final_slot_at`, computed when the
 * version was made: expressions whose years end, or an `end_at`), or a run that brings the
 * started runs to `max_runs`.
 */
export const retiresOneTime = (c: string, d: string) =>
  `${c}.trigger_type = ${SCHEDULED} AND ${d}.status <> ${JOB.RETIRED}
   AND (${d}.schedule_type = ${ONE_TIME} OR COALESCE(${c}.scheduled_at >= ${d}.final_slot_at, false)
     OR (${d}.max_runs IS NOT NULL AND ${c}.status <> ${S.SKIPPED} AND ${startedRuns(d)} >= ${d}.max_runs))`; // never NULL: callers negate it
/** `c` is retried: its next attempt is in `retried` (the slot's outcome is that attempt's). */
const RETRIED = `(c.id IN (SELECT x.retry_of FROM retried x))`; // a hashed subplan: one probe per row, however many retries
/** The job `d` of the ended run `c` retires (one-time, and `c` was its last attempt). */
const RETIRES = `${retiresOneTime('c', 'd')} AND NOT ${RETRIED}`;
/** The ACTIVE job `d` pauses: its failures in a row, with `c`'s (its last attempt), reach `pause_after_failures`. */
const AUTO_PAUSES = `c.status = ${S.FAILED} AND d.status = ${JOB.ACTIVE} AND d.pause_after_failures IS NOT NULL
      AND d.consecutive_failures + 1 >= d.pause_after_failures AND NOT ${RETRIED}`;

/**
 * The backoff before the attempt after `c` (attempt n = c.attempt) of job `d`, in seconds:
 * FIXED d, LINEAR d·n, EXPONENTIAL d·2ⁿ⁻¹, plus up to 10% of jitter (so the retries of jobs that
 * failed together do not all come back in the same instant), capped by the policy's maximum.
 */
const BACKOFF_SECONDS = `least(coalesce(d.retry_max_delay_seconds, 2147483647)::float8,
      (CASE d.retry_backoff WHEN ${BACKOFF.FIXED} THEN d.retry_delay_seconds
        WHEN ${BACKOFF.LINEAR} THEN d.retry_delay_seconds * c.attempt
        ELSE d.retry_delay_seconds * power(2, c.attempt - 1) END) * (1 + 0.1 * random()))`;

/** A FAILED run `c` of job `d` that gets a next attempt: the retry rule, written once. */
const RETRYABLE = `c.status = ${S.FAILED} AND d.status = ${JOB.ACTIVE} AND d.retry_max_attempts > c.attempt
      AND coalesce(c.failure_code, ${CODE.HANDLER_ERROR}) NOT IN (${CODE.NON_RETRYABLE})
      AND (d.retry_on IS NULL OR coalesce(c.failure_code, ${CODE.HANDLER_ERROR}) = ANY (d.retry_on))`;

/**
 * The retire rule's other half, for a job no run's end will retire: an ACTIVE job whose schedule
 * has no slot left (its `endAt` passed, its expressions' years are past) and that has no run in
 * progress — a job with a run in progress retires when that run ends, by the rules above. Conditional on the revision the caller saw, so a job changed meanwhile
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

/** Retries: the next attempt of each RETRYABLE run, PENDING in its lane, due after the backoff. */
const retried = (changed: string, at: string) => `retried AS (
    INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot, trigger_type,
      scheduled_at, status, attempt, retry_of, due_at, lane, created_at, updated_at, traceparent, triggered_by, concurrency_pool)
    SELECT cron_run_id(), c.job_definition_id, c.job_key, c.job_version, c.target, c.payload_snapshot, c.trigger_type,
      c.scheduled_at, ${S.PENDING}, c.attempt + 1, c.id,
      -- whole milliseconds: the instant a timer of this process can be set for, and claim at
      date_trunc('milliseconds', ${at}::timestamptz + make_interval(secs => ${BACKOFF_SECONDS})), c.lane, ${at}, ${at},
      -- the next attempt's span continues what the first one's did: one trace per slot or run-now
      c.traceparent,
      -- a MANUAL, AD_HOC or BACKFILL run's next attempt was asked for by the same principal
      c.triggered_by, c.concurrency_pool
    FROM ${changed} c JOIN cron_job_definitions d ON d.id = c.job_definition_id
    WHERE ${RETRYABLE}
    ORDER BY c.job_definition_id, c.id
    ON CONFLICT DO NOTHING
    RETURNING ${ROW_COLUMNS}
  )`;

/** The buffer: a BUFFER_ONE job's waiting slot moves into the lane its ended (not retried) run freed. */
const promoted = (changed: string, at: string) => `promoted AS (
    -- only BUFFER_ONE jobs have a run in the buffer lane: found through the lane index, no job read
    UPDATE cron_job_runs b SET lane = c.lane, updated_at = ${at}
    FROM ${changed} c
    WHERE c.lane = 0 AND c.status IN (${S.ENDED}) AND NOT ${RETRIED}
      AND b.job_definition_id = c.job_definition_id AND b.lane = ${BUFFER_LANE} AND b.status = ${S.PENDING}
    RETURNING b.id
  )`;

/** The pools of the ended runs, each told once (POOL_FREED): a place may be free. */
const poolWakes = (changed: string) => `pool_wakes AS (
    SELECT count(pg_notify('${Channel.POOL_FREED}', p.pool)) AS n
    FROM (SELECT DISTINCT c.concurrency_pool AS pool FROM ${changed} c WHERE c.concurrency_pool IS NOT NULL AND c.status IN (${S.ENDED})) p
  )`;

/** The job after its run's end: retired, auto-paused, its failure streak counted or reset — one UPDATE. */
const jobsAfter = (changed: string, at: string) => `jobs_after AS (
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
    RETURNING ${JOBS_AFTER_RETURNING}, d.schedule_type
  )`;

/**
 * Every instance is told of the jobs cronql paused, of the repeating jobs it retired (their actors
 * stop; a one-time job's actor is gone once it fired) and of the buffered runs it promoted; the
 * deliverers, of new alerts.
 */
const jobNotices = (alerts: string[]) => `job_notices AS (
    SELECT (SELECT count(pg_notify('${Channel.JOB_CHANGED}', j.id::text)) FROM jobs_after j
        WHERE (j.status = ${JOB.PAUSED} AND j.updated_by = '${CRONQL}') OR (j.status = ${JOB.RETIRED} AND j.schedule_type <> ${ONE_TIME}))
      + (SELECT count(pg_notify('${Channel.RUN_CREATED}', p.id::text)) FROM promoted p) + ${DEPENDENT_NOTICES(Channel.RUN_CREATED)} + (SELECT n FROM pool_wakes)
      + ${outboxNotice(alerts)} AS n
  )`;

/**
 * The main query of a statement ending runs: the changed rows (`retry` false, with `extra`
 * columns of `changed`), having run job_notices (and the one-row CTEs `also`, which would not run
 * unless read), then the runs they made (`retry` true): retries, and dependents' runs.
 */
export const changedRows = (changed: string, extra: string[] = [], also: string[] = []) => `SELECT ${qualified('x')}${extra.map((e) => `, x.${e}`).join('')}, false AS retry
    FROM ${changed} x, job_notices${also.map((a) => `, ${a}`).join('')}
  UNION ALL
  SELECT ${qualified('y')}${extra.map((e) => `, NULL AS ${e}`).join('')}, true AS retry FROM (${MADE}) y`;

/** The runs a statement ending runs made: retries, then dependents' runs. */
const MADE = `SELECT * FROM retried UNION ALL SELECT * FROM dep_new`;

/**
 * `changedRows` for a caller that knows the changed runs already (the executor's ends of runs):
 * only their ids come back, and each retry whole as `row` (JSON) — not thousands of rows' text.
 */
export const changedIds = (changed: string) => `SELECT x.id, false AS retry, NULL::jsonb AS row FROM ${changed} x, job_notices
  UNION ALL
  SELECT y.id, true AS retry, to_jsonb(y) AS row FROM (${MADE}) y`;

/**
 * The rows of a statement that ended runs (`changedRows`/`changedIds`): publishes each changed
 * run as moved from `previous` (or its row's `previous_status`) and each run it made (retries,
 * dependents' runs) as created, hands those to `waiting` (a retry is claimed at the end of its
 * backoff, a dependent's run at once; one that cannot start — buffered, skipped — is not claimed),
 * and returns the changed runs (`known`: those the caller built).
 */
export function publishEnded(
  ctx: RunContext,
  rows: Record<string, unknown>[],
  previous?: RunStatus,
  known?: ReadonlyMap<string, RunRecord>,
): RunChange[] {
  const changes: RunChange[] = [];
  const retries: RunRecord[] = [];
  for (const row of rows) {
    if (row.retry) retries.push(rowToRun((row.row as Record<string, unknown> | undefined) ?? row));
    else changes.push(moved(known?.get(row.id as string) ?? rowToRun(row), previous ?? (row.previous_status as RunStatus)));
  }
  const retriedIds = new Set(retries.map((r) => r.retryOf));
  for (const c of changes) if (retriedIds.has(c.run.id)) c.retried = true;
  ctx.publish([...changes, ...retries.map(created)]);
  const waiting = retries.filter((r) => r.status === RunStatus.PENDING);
  if (waiting.length) ctx.waiting(waiting);
  return changes;
}
