import { FailureCode } from '../../domain/enums.js';
import { ALERT_SAMPLE, AlertEvent } from '../../domain/notifications.js';
import { lit, litList } from '../sql.js';
import { Channel } from '../notifier.js';
import { CRONQL, JOB, S } from './vocabulary.js';

/**
 * The alerts a statement raises, written by that statement (docs/operations.md, "Notifications"):
 * each is one row per channel in `cron_notification_outbox`, inserted by a CTE of the statement
 * that records the event, so an alert exists exactly when its event committed — a restart never
 * loses one, a rolled-back end never sends one. The outbox's deliverer (alerts/deliverer.ts) sends
 * them afterwards, never the fire path.
 *
 * One alert per transition, as the job's failure streak says (`jobs_after`, end-rules.ts, returns
 * the jobs whose streak changed — a success that ends no streak returns nothing, so the fire
 * path's common end raises nothing and costs nothing more than an empty scan):
 * - RUN_FAILED: the streak became 1 (the job's first failure in a row), unless the run was lost
 *   (RUNS_LOST says so; it still counts);
 * - JOB_RECOVERED: a success ended a streak (a success is in `jobs_after` only then, or when it
 *   retires a one-time job, which is not a recovery);
 * - JOB_AUTO_PAUSED: the end paused the job (cronql wrote PAUSED at this instant);
 * - RUNS_LOST: lost runs settled by one statement (the sweeps), one alert per channel;
 * - SLOTS_MISSED: slots recorded MISSED by one statement, one alert per channel and reason.
 */

/** Failure codes of a run whose runner was lost. */
const LOST = litList([FailureCode.RUNNER_LOST, FailureCode.STALE_TIMEOUT]);
const ev = (e: AlertEvent) => lit(e);

/** An instant as the alert bodies write it (ISO 8601, UTC, milliseconds). */
export const iso = (at: string) => `to_char((${at}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The channels an alert of `event` about a job whose `notify` is `notify` goes to: the channels
 * the job names, or with none named the default ones; of those, the ones that take the event.
 * The rule of routing, written once.
 */
export const routedTo = (ch: string, notify: string, event: string) =>
  `(CASE WHEN cardinality(${notify}) = 0 THEN ${ch}.is_default ELSE ${ch}.name = ANY (${notify}) END)
   AND (${ch}.events IS NULL OR ${event} = ANY (${ch}.events))`;

/** The INSERT of outbox rows, from `select` giving (channel, event, data). */
const outboxInsert = (name: string, at: string, select: string) => `${name} AS (
    INSERT INTO cron_notification_outbox (id, channel, event, data, created_at, due_at)
    SELECT gen_random_uuid(), a.channel, a.event, a.data, ${at}::timestamptz, now()
    FROM (${select}) a
    RETURNING id
  )`;

/** The run `j` (a `jobs_after` row) as the bodies show it. */
const RUN_OF_J = `jsonb_build_object('id', j.run_id, 'status', j.run_status, 'trigger', j.run_trigger,
      'scheduledAt', ${iso('j.run_scheduled_at')}, 'failureCode', j.run_failure_code, 'failureMessage', j.run_failure_message)`;

/**
 * RUN_FAILED, JOB_RECOVERED and JOB_AUTO_PAUSED of the jobs `jobs_after` changed at `at`.
 * `jobs_after` must return the columns `JOBS_AFTER_RETURNING` names.
 */
export const jobAlerts = (at: string) =>
  outboxInsert(
    'job_alerts',
    at,
    `SELECT ch.name AS channel, e.event, jsonb_strip_nulls(jsonb_build_object(
        'job', jsonb_build_object('id', j.id, 'key', j.job_key, 'version', j.version, 'target', j.target),
        'run', ${RUN_OF_J}, 'consecutiveFailures', j.consecutive_failures, 'reason', e.reason)) AS data
      FROM jobs_after j
      CROSS JOIN LATERAL (VALUES
        (${ev(AlertEvent.RUN_FAILED)}, j.run_status = ${S.FAILED} AND j.consecutive_failures = 1 AND coalesce(j.run_failure_code, '') NOT IN (${LOST}), NULL::text),
        (${ev(AlertEvent.JOB_RECOVERED)}, j.run_status = ${S.SUCCEEDED} AND j.status <> ${JOB.RETIRED}, NULL),
        (${ev(AlertEvent.JOB_AUTO_PAUSED)}, j.run_status = ${S.FAILED} AND j.status = ${JOB.PAUSED} AND j.updated_by = '${CRONQL}'
          AND j.updated_at = ${at}::timestamptz, j.pause_reason)
      ) AS e(event, raised, reason)
      JOIN cron_notification_channels ch ON ${routedTo('ch', 'j.notify', 'e.event')}
      WHERE e.raised
      ORDER BY j.id, e.event = ${ev(AlertEvent.JOB_AUTO_PAUSED)}`,
  );

/** What `jobs_after` returns for `jobAlerts`: the job as its end left it, and the run `c` that ended. */
export const JOBS_AFTER_RETURNING = `d.id, d.status, d.updated_by, d.updated_at, d.job_key, d.version, d.target, d.notify,
      d.consecutive_failures, d.pause_reason, c.id AS run_id, c.status AS run_status, c.trigger_type AS run_trigger,
      c.scheduled_at AS run_scheduled_at, c.failure_code AS run_failure_code, c.failure_message AS run_failure_message`;

/**
 * RUNS_LOST: the runs of `changed` settled because their runner was lost, and not retried
 * (`retried`: the slot's outcome is its next attempt), one alert per channel with the count and
 * a sample. Only the statements that settle lost runs append it.
 */
export const lostAlerts = (changed: string, at: string, retried: string) =>
  outboxInsert(
    'lost_alerts',
    at,
    `SELECT ch.name AS channel, ${ev(AlertEvent.RUNS_LOST)} AS event,
        jsonb_build_object('count', count(*), 'runIds', to_jsonb((array_agg(c.id ORDER BY c.id))[1:${ALERT_SAMPLE}])) AS data
      FROM ${changed} c JOIN cron_job_definitions d ON d.id = c.job_definition_id
      JOIN cron_notification_channels ch ON ${routedTo('ch', 'd.notify', ev(AlertEvent.RUNS_LOST))}
      WHERE c.status = ${S.FAILED} AND c.failure_code IN (${LOST}) AND NOT ${retried}
      GROUP BY ch.name`,
  );

/**
 * SLOTS_MISSED: the MISSED rows `ins` recorded (not the slots a calendar skipped), one alert per
 * channel and reason, counting the slots a summary row stands for.
 */
export const missedAlerts = (ins: string, at: string) =>
  outboxInsert(
    'missed_alerts',
    at,
    `SELECT ch.name AS channel, ${ev(AlertEvent.SLOTS_MISSED)} AS event,
        jsonb_build_object('count', sum(coalesce((m.failure_details -> 'summary' ->> 'count')::int, 1)),
          'runIds', to_jsonb((array_agg(m.id ORDER BY m.id))[1:${ALERT_SAMPLE}]),
          'missedReason', coalesce(m.failure_details ->> 'reason', 'UNKNOWN')) AS data
      FROM ${ins} m JOIN cron_job_definitions d ON d.id = m.job_definition_id
      JOIN cron_notification_channels ch ON ${routedTo('ch', 'd.notify', ev(AlertEvent.SLOTS_MISSED))}
      WHERE m.failure_code = ${lit(FailureCode.MISSED)}
      GROUP BY ch.name, coalesce(m.failure_details ->> 'reason', 'UNKNOWN')`,
  );

/** Wakes the deliverers when any of `inserted` (outbox CTEs) wrote a row: a count to add to a one-row CTE the main query reads. */
export const outboxNotice = (inserted: string[]) =>
  `(SELECT count(pg_notify('${Channel.OUTBOX}', '')) FROM (${inserted.map((i) => `SELECT 1 FROM ${i}`).join(' UNION ALL ')} LIMIT 1) o)`;
