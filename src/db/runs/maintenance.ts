import { FailureCode, RunStatus } from '../../domain/enums.js';
import { BACKFILL_RUNS_KEPT_MS } from '../../domain/backfill.js';
import type { RunRecord } from '../../domain/run.js';
import { UNIQUE_VIOLATION } from '../pool.js';
import { inTransaction, type RunContext, type WaitingRun } from './context.js';
import { afterRunsEnd, changedRows, publishEnded, retiresOneTime } from './end-rules.js';
import type { ClaimedRun } from './fire.js';
import { limitColumns, limitsOf, rowToRun } from './record.js';
import { BACKFILL, BUFFER_LANE, JOB, ROW_COLUMNS, S, SCHEDULED, qualified } from './vocabulary.js';

/**
 * The sweeps' and startup's writes and reads: chains of jobs no longer ACTIVE, stranded buffered
 * slots, runs whose runner is lost or stale, one-time jobs left unretired, retention, and the
 * PENDING, waiting and RUNNING runs to claim or resume. Each is safe with several instances at
 * once (conditional updates, SKIP LOCKED, an advisory lock for pruning).
 */

/**
 * Ends the chains of jobs that stopped being ACTIVE (paused, retired, replaced by a version):
 * their waiting retries and buffered slots become CANCELED, with a message saying why. Given
 * ids, only those jobs' (after an admin's change); without, every such job's (the sweep).
 */
export async function stopChains(ctx: RunContext, jobIds?: string[]): Promise<RunRecord[]> {
  const now = ctx.now();
  const res = await ctx.pool.query(
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
  return publishEnded(ctx, res.rows).map((c) => c.run);
}

/**
 * BUFFER_ONE slots left waiting although their job has no active run (the instance that ended
 * the run stopped before its statement's notice was acted on): moved into lane 0 and returned,
 * to be claimed. A run inserted into lane 0 meanwhile wins; the slot then waits for it.
 */
export async function promoteStranded(ctx: RunContext, limit = 1_000): Promise<string[]> {
  try {
    const res = await ctx.pool.query(
      `UPDATE cron_job_runs b SET lane = 0, updated_at = $1
         WHERE b.id IN (SELECT w.id FROM cron_job_runs w
           WHERE w.status = ${S.PENDING} AND w.lane = ${BUFFER_LANE}
             AND NOT EXISTS (SELECT 1 FROM cron_job_runs a WHERE a.job_definition_id = w.job_definition_id AND a.lane = 0 AND a.status IN (${S.ACTIVE_RUN}))
           ORDER BY w.id LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING b.id`,
      [ctx.now(), limit],
    );
    return res.rows.map((r) => r.id as string);
  } catch (err) {
    if ((err as { code?: string }).code === UNIQUE_VIOLATION) return []; // lane 0 taken meanwhile: the next round
    throw err;
  }
}

/**
 * The continuous sweep's rule for RUNNING runs whose runner is gone, safe when several
 * instances sweep at once (each row is settled by one UPDATE; the others find it terminal):
 * - the runner has an instance row whose heartbeat is older than `silentMs` (database time, so
 *   the instances' clocks do not matter): FAILED/RUNNER_LOST, with the runner and its last beat;
 * - the runner has no instance row (an instance of a version without heartbeats, or one pruned
 *   long ago): the stale rule (docs/behaviour.md, "Runners that disappear"), FAILED/STALE_TIMEOUT
 *   once started longer ago than `staleAfterMs`.
 * A retryable failure gets its next attempt like any other. Never the sweeping instance's own
 * runs: it is alive (it is sweeping), and its own heartbeat can be late only because its event
 * loop stalled (a loaded machine) — settling them would free their pool places and start their
 * retries while their handlers still run here. Its runs that no handler runs are the own-runs
 * duty's (src/maintenance/own-runs.ts).
 */
export async function settleLost(ctx: RunContext, silentMs: number, staleAfterMs: number): Promise<RunRecord[]> {
  const now = ctx.now();
  const res = await ctx.pool.query(
    `WITH lost AS (
         SELECT r.id, r.runner_instance_id, i.id AS known, i.heartbeat_at
         FROM cron_job_runs r LEFT JOIN cron_instances i ON i.id = r.runner_instance_id
         WHERE r.status = ${S.RUNNING} AND r.runner_instance_id IS DISTINCT FROM $6
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
       ), ${afterRunsEnd('done', '$1', { lost: true })}
       ${changedRows('done')}`,
    [now, silentMs, staleAfterMs, FailureCode.RUNNER_LOST, FailureCode.STALE_TIMEOUT, ctx.instanceId],
  );
  return publishEnded(ctx, res.rows, RunStatus.RUNNING).map((c) => c.run);
}

/**
 * The heartbeat rule across instances (docs/behaviour.md, "Progress and heartbeats"): a RUNNING
 * run of a job with `heartbeat_timeout_seconds` whose handler has not beaten for that long (since
 * it started, if it never beat), and `slackMs` more, becomes FAILED/HEARTBEAT_TIMEOUT. Its runner
 * fails it itself on time (a timer per run); this settles the runs of a runner that cannot (dead,
 * or cut off from the database), and the slack lets a live runner's own end win: the last beat
 * written can be a second behind the last one made (progress.ts), and recording the end takes a
 * moment. Judged on the clock of the instance that sweeps, as the beats are written on their
 * runner's. Like every end, one conditional UPDATE with what follows an end (retries, auto-pause).
 */
export async function settleSilent(ctx: RunContext, slackMs: number): Promise<RunRecord[]> {
  const now = ctx.now();
  const res = await ctx.pool.query(
    `WITH silent AS (
         SELECT r.id, r.runner_instance_id, coalesce(r.heartbeat_at, r.started_at) AS last_beat, d.heartbeat_timeout_seconds AS limit_s
         FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
         WHERE r.status = ${S.RUNNING} AND d.heartbeat_timeout_seconds IS NOT NULL
           AND coalesce(r.heartbeat_at, r.started_at) < $1::timestamptz - make_interval(secs => d.heartbeat_timeout_seconds + $2::double precision / 1000)
         ORDER BY r.id
         FOR UPDATE OF r SKIP LOCKED
       ), done AS (
         UPDATE cron_job_runs r SET status = ${S.FAILED}, finished_at = $1, updated_at = $1, failure_code = $3,
           failure_message = format('the handler did not beat for %s s (heartbeatTimeoutSeconds), and its runner did not end the run', silent.limit_s),
           failure_details = jsonb_build_object('heartbeatTimeoutSeconds', silent.limit_s, 'runnerInstanceId', silent.runner_instance_id,
             'lastBeatAt', to_char(silent.last_beat AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'settledBy', 'maintenance')
         FROM silent
         WHERE r.id = silent.id AND r.status = ${S.RUNNING}
         RETURNING ${qualified('r')}
       ), ${afterRunsEnd('done', '$1')}
       ${changedRows('done')}`,
    [now, slackMs, FailureCode.HEARTBEAT_TIMEOUT],
  );
  return publishEnded(ctx, res.rows, RunStatus.RUNNING).map((c) => c.run);
}

/**
 * Startup recovery (docs/behaviour.md, "Runners that disappear"), before any timer is armed:
 * RUNNING runs that started longer ago than `staleAfterMs`, and, whatever their age, those
 * recorded as running on this very instance id (a fixed CRONQL_INSTANCE_ID restarted: nothing of this process runs them
 * yet), become FAILED/STALE_TIMEOUT.
 */
export async function settleStale(ctx: RunContext, staleAfterMs: number): Promise<RunRecord[]> {
  const now = ctx.now();
  const res = await ctx.pool.query(
    `WITH done AS (
         UPDATE cron_job_runs SET status = ${S.FAILED}, finished_at = $2, updated_at = $2, failure_code = $3,
           failure_message = CASE WHEN started_at < $1 THEN $4 ELSE $6 END,
           failure_details = jsonb_build_object('staleAfterMs', $5::bigint, 'runnerInstanceId', runner_instance_id)
         WHERE status = ${S.RUNNING} AND (started_at < $1 OR runner_instance_id = $7)
         RETURNING ${ROW_COLUMNS}
       ), ${afterRunsEnd('done', '$2', { lost: true })}
       ${changedRows('done')}`,
    [
      new Date(now.getTime() - staleAfterMs),
      now,
      FailureCode.STALE_TIMEOUT,
      'the run was still RUNNING when cronql started, and had started longer ago than the stale threshold',
      staleAfterMs,
      'the run was still RUNNING on this instance id when it restarted',
      ctx.instanceId,
    ],
  );
  return publishEnded(ctx, res.rows, RunStatus.RUNNING).map((c) => c.run);
}

/**
 * Retires one-time jobs whose scheduled run ended but which are not RETIRED (and recurring ones
 * whose last slot's run ended, by the same rule): left by versions
 * of cronql that retired in a separate statement (today the run's end retires it, atomically,
 * by the same rule). Returns their ids.
 */
export async function retireEndedOneTimeJobs(ctx: RunContext): Promise<string[]> {
  const res = await ctx.pool.query(
    `UPDATE cron_job_definitions d SET status = ${JOB.RETIRED}, pause_reason = NULL, updated_at = $1
       WHERE EXISTS (SELECT 1 FROM cron_job_runs c WHERE c.job_definition_id = d.id AND c.status IN (${S.TERMINAL})
         AND ${retiresOneTime('c', 'd')}
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs x WHERE x.retry_of = c.id))
       RETURNING d.id`,
    [ctx.now()],
  );
  return res.rows.map((r) => r.id as string);
}

/**
 * Deletes up to `limit` terminal runs scheduled before `cutoff` (their slot, or a run-now's creation), sparing each job's
 * newest run, its latest SCHEDULED slot (the slot ledger), its newest success (its
 * `lastSuccessAt`) and backfill runs made less than a day ago (a backfilled slot is old by
 * nature: its run is kept long enough to be seen). How far each job version's slot runs were
 * deleted is kept (`cron_pruned_slots`), so that a backfill's planner does not count a pruned slot
 * as missing. One short transaction under an advisory lock, so one instance prunes at a time; null
 * when another instance holds it.
 */
export async function pruneBatch(ctx: RunContext, cutoff: Date, limit: number, lockKey: number): Promise<number | null> {
  const keptSince = new Date(ctx.now().getTime() - BACKFILL_RUNS_KEPT_MS);
  return inTransaction(ctx.pool, async (q) => {
    const locked = await q('SELECT pg_try_advisory_xact_lock($1) AS ok', [lockKey]);
    if (!locked.rows[0].ok) return null; // another instance prunes (committing nothing is rolling back)
    const res = await q(
      `WITH gone AS (DELETE FROM cron_job_runs WHERE id IN (
           SELECT r.id FROM cron_job_runs r
           WHERE r.scheduled_at < $1 AND r.status IN (${S.TERMINAL})
             AND (r.trigger_type <> ${BACKFILL} OR r.created_at < $3)
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
           FOR UPDATE SKIP LOCKED)
         RETURNING job_definition_id, scheduled_at, trigger_type
       ), marks AS (
         INSERT INTO cron_pruned_slots (job_definition_id, pruned_through)
         SELECT job_definition_id, max(scheduled_at) FROM gone WHERE trigger_type IN (${SCHEDULED}, ${BACKFILL})
         GROUP BY job_definition_id ORDER BY job_definition_id
         ON CONFLICT (job_definition_id) DO UPDATE SET pruned_through = greatest(cron_pruned_slots.pruned_through, excluded.pruned_through)
       )
       SELECT count(*)::int AS n FROM gone`,
      [cutoff, limit, keptSince],
    );
    return Number(res.rows[0].n);
  });
}

/**
 * PENDING runs that can be claimed, due before `dueBefore` (if given: run-now's at its
 * creation, a retry at the end of its backoff), oldest first, at most `limit`: at startup and by
 * the sweep they are claimed, each by exactly one instance. Of the runs waiting in a concurrency
 * pool, only each pool's oldest: claiming it is admitting the pool (pool-admission.ts), and a
 * thousand runs waiting in a full pool do not crowd the others out of the sweep.
 */
export async function pendingIds(ctx: RunContext, dueBefore?: Date, limit = 10_000): Promise<string[]> {
  const due = `status = ${S.PENDING} AND lane >= 0
         AND CASE WHEN $1::timestamptz IS NULL THEN due_at IS NULL OR due_at <= $3 ELSE coalesce(due_at, created_at) <= $1 END`;
  const res = await ctx.pool.query(
    `SELECT id FROM (
         (SELECT id, coalesce(due_at, created_at) AS at FROM cron_job_runs WHERE ${due} AND concurrency_pool IS NULL
          ORDER BY coalesce(due_at, created_at), id LIMIT $2)
         UNION ALL
         (SELECT DISTINCT ON (concurrency_pool) id, coalesce(due_at, created_at) AS at FROM cron_job_runs WHERE ${due} AND concurrency_pool IS NOT NULL
          ORDER BY concurrency_pool, coalesce(due_at, created_at), id)
       ) p ORDER BY at, id LIMIT $2`,
    [dueBefore ?? null, limit, ctx.now()],
  );
  return res.rows.map((r) => r.id as string);
}

/** Runs waiting to be due (retries) by `until`, soonest first, at most `limit`: for timers. */
export async function waitingUntil(ctx: RunContext, until: Date, limit = 10_000): Promise<WaitingRun[]> {
  const res = await ctx.pool.query(
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
export async function runningHere(ctx: RunContext, startedBefore: Date, executing: readonly string[] = []): Promise<ClaimedRun[]> {
  const res = await ctx.pool.query(
    `SELECT ${qualified('r')}, ${limitColumns('d')} FROM cron_job_runs r JOIN cron_job_definitions d ON d.id = r.job_definition_id
       WHERE r.status = ${S.RUNNING} AND r.runner_instance_id = $1 AND r.started_at < $2 AND r.id <> ALL($3::uuid[])`,
    [ctx.instanceId, startedBefore, executing],
  );
  return res.rows.map((row) => ({ run: rowToRun(row), limits: limitsOf(row) }));
}
