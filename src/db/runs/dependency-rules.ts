import { AfterMode, DependencyOutcome, FailureCode, ScheduleType, TriggerType } from '../../domain/enums.js';
import { OUTCOME_STATUSES } from '../../domain/dependencies.js';
import { lit, litList } from '../sql.js';
import { insertRuns } from './new-runs.js';
import { FREE_LANE, NOT_BEHIND_BUFFER, OVERLAP_MESSAGE } from './overlap.js';
import { BACKFILL, BUFFER_LANE, JOB, OVERLAP, S } from './vocabulary.js';

/**
 * Jobs that follow jobs (docs/behaviour.md, "Jobs that follow jobs"): the end rule that creates
 * the runs of AFTER jobs, a named piece of the statement that ends their upstreams' runs
 * (end-rules.ts) — so the upstream's end and its dependents' runs commit together, or not at all:
 * a crash can neither lose a dependent run nor make it twice.
 *
 * - `dep_matches`: each counted end (SUCCEEDED or FAILED, the final attempt — not retried —, of
 *   any trigger but BACKFILL) with each ACTIVE AFTER job whose upstreams name its key with that
 *   outcome (`cron_job_upstreams`, the graph's edges: one btree probe per end). A PAUSED
 *   dependent is not ACTIVE: it gets no run, as a paused job's slots get none.
 * - `dep_all`: ALL jobs record the arrival in their one `cron_after_arrivals` row; the arrival
 *   that completes the set (every upstream, within the window) empties it and returns the set in
 *   `fired`. Two ends on two instances update that row one after the other, the second seeing
 *   the first's arrival (PostgreSQL re-reads a row updated meanwhile): exactly one completes it.
 * - `dep_wanted`: the runs to make — one per (end, ANY job), one per completed ALL set.
 * - `dep_runs`, `dep_held`, `dep_skipped`: each made like a run-now, by the job's overlap policy:
 *   PENDING in a free lane (and announced: any instance claims it, this one first); else
 *   buffered (BUFFER_ONE); else SKIPPED/OVERLAP. The lanes' unique index settles two statements
 *   creating runs of one job at once. A job whose own run is retried in this statement keeps its
 *   lane for the retry.
 * - `dep_links`: `Run.upstreamRuns`, for each run made.
 */
export const dependentRuns = (changed: string, at: string, retried: string) => [
  `dep_matches AS (
    SELECT c.id AS upstream_run_id, c.job_key AS upstream_key, d.id AS job_id, d.job_key, d.after_mode, d.after_window_seconds, d.after_jobs
    FROM ${changed} c
    JOIN cron_job_upstreams u ON u.upstream_key = c.job_key
    JOIN cron_job_definitions d ON d.id = u.job_definition_id AND d.status = ${JOB.ACTIVE} AND d.schedule_type = ${AFTER}
    WHERE c.status IN (${COUNTED}) AND c.trigger_type <> ${BACKFILL} AND NOT ${retried}
      AND (${MATCHES})
  )`,
  `dep_all AS (
    UPDATE cron_after_arrivals a SET
      arrivals = CASE WHEN ${complete(at)} THEN '{}'::jsonb ELSE a.arrivals || i.incoming END,
      fired = CASE WHEN ${complete(at)} THEN a.arrivals || i.incoming END
    FROM (SELECT m.job_key, m.job_id, min(m.after_window_seconds) AS after_window_seconds, (array_agg(m.after_jobs))[1] AS after_jobs,
            jsonb_object_agg(m.upstream_key, jsonb_build_object('run', m.upstream_run_id, 'at', ${at}::timestamptz)) AS incoming
          FROM dep_matches m WHERE m.after_mode = ${ALL} GROUP BY m.job_key, m.job_id) i
    WHERE a.job_key = i.job_key
    RETURNING i.job_id, a.fired
  )`,
  `dep_wanted AS (
    SELECT cron_run_id() AS id, w.job_id, w.upstreams FROM (
      SELECT m.job_id, jsonb_build_array(m.upstream_run_id) AS upstreams FROM dep_matches m WHERE m.after_mode = ${ANY}
      UNION ALL
      SELECT x.job_id, jsonb_path_query_array(x.fired, '$.*.run') FROM dep_all x WHERE x.fired IS NOT NULL
    ) w
  )`,
  `dep_runs AS (${insertDependent(at, { status: S.PENDING, lane: FREE_LANE, where: `${NOT_BEHIND_BUFFER} AND NOT EXISTS (SELECT 1 FROM retried x WHERE x.job_definition_id = j.id)` })})`,
  `dep_held AS (${insertDependent(at, { status: S.PENDING, lane: String(BUFFER_LANE), where: `j.overlap = ${OVERLAP.BUFFER_ONE} AND s.id NOT IN (SELECT id FROM dep_runs)` })})`,
  `dep_skipped AS (${insertDependent(at, {
    status: S.SKIPPED,
    lane: '0',
    code: lit(FailureCode.OVERLAP),
    // cronql's own text, not a vocabulary value: quoted here (no quote in it to double)
    message: `'${OVERLAP_MESSAGE.replace(/'/g, "''")}'`,
    where: 's.id NOT IN (SELECT id FROM dep_runs) AND s.id NOT IN (SELECT id FROM dep_held)',
  })})`,
  `dep_new AS (SELECT * FROM dep_runs UNION ALL SELECT * FROM dep_held UNION ALL SELECT * FROM dep_skipped)`,
  `dep_links AS (
    INSERT INTO cron_run_upstreams (run_id, upstream_run_id)
    SELECT n.id, u.id::uuid FROM dep_new n JOIN dep_wanted w ON w.id = n.id, jsonb_array_elements_text(w.upstreams) u(id)
    ON CONFLICT DO NOTHING
    RETURNING run_id
  )`,
];

/** The announcement of the dependent runs made ready to start, for `job_notices` (one per run). */
export const DEPENDENT_NOTICES = (channel: string) => `(SELECT count(pg_notify('${channel}', r.id::text)) FROM dep_runs r)`;

const AFTER = lit(ScheduleType.AFTER);
const ANY = lit(AfterMode.ANY);
const ALL = lit(AfterMode.ALL);
const DEPENDENCY = lit(TriggerType.DEPENDENCY);
/** The ends that can start a dependent. */
const COUNTED = litList(OUTCOME_STATUSES[DependencyOutcome.ANY]);
/** The edge `u` asks for the end `c`'s status. */
const MATCHES = Object.values(DependencyOutcome)
  .map((o) => `(u.outcome = ${lit(o)} AND c.status IN (${litList(OUTCOME_STATUSES[o])}))`)
  .join(' OR ');

/**
 * The arrivals of `a` with the incoming ones of `i` hold every upstream of the job, each within
 * the window before `at` (no window: since the last run, however long).
 */
const complete = (at: string) => `NOT EXISTS (
      SELECT 1 FROM jsonb_array_elements(i.after_jobs) k
      WHERE NOT ((a.arrivals || i.incoming) ? (k->>'jobKey') AND (i.after_window_seconds IS NULL
        OR ((a.arrivals || i.incoming) -> (k->>'jobKey') ->> 'at')::timestamptz >= ${at}::timestamptz - make_interval(secs => i.after_window_seconds))))`;

/**
 * The statement piece that inserts a dependent run of each `dep_wanted` row (`s`), by the job `j`,
 * like any new run (new-runs.ts), with the id `dep_wanted` chose for its links.
 */
function insertDependent(at: string, p: { status: string; lane: string; code?: string; message?: string; where: string }): string {
  const source = `(SELECT w.id, w.job_id, ${at}::timestamptz AS slot, NULL::jsonb AS payload FROM dep_wanted w) s
      JOIN cron_job_definitions j ON j.id = s.job_id`;
  return insertRuns(source, { id: 's.id', trigger: DEPENDENCY, status: p.status, code: p.code ?? 'NULL', message: p.message ?? 'NULL', at, lane: p.lane, where: p.where });
}
