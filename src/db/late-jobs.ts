import { JobStatus, RunStatus, TriggerType } from '../domain/enums.js';
import { AlertEvent } from '../domain/notifications.js';
import type { Pool } from './pool.js';
import { lit } from './sql.js';
import { iso, outboxNotice, routedTo } from './runs/alert-rules.js';

const SUCCEEDED = lit(RunStatus.SUCCEEDED);
const JOB_LATE = lit(AlertEvent.JOB_LATE);

/**
 * JOB_LATE (`expectSuccessWithinSeconds`, docs/operations.md "Notifications"), in one statement:
 * an ACTIVE job is late when the latest of its slots whose deadline has passed (slot + the
 * setting ≤ `now`) saw no SUCCEEDED run of the job end between the slot and its deadline — its
 * runs failed, still run, were skipped or missed, or never came. One alert per transition: the
 * job's late slot is recorded (`cron_job_late_alerts`) with the alert, and the job alerts again
 * only once it has succeeded since, for a slot after that success. Safe with two instances at once (the
 * conditional upsert: one of them records the slot, and only it writes the alert). Returns the
 * jobs alerted.
 */
export async function alertLateJobs(pool: Pool, now: Date, limit: number): Promise<number> {
  const res = await pool.query(
    `WITH due AS (
         SELECT d.id, d.job_key, d.version, d.target, d.notify, d.expect_success_within_seconds AS within, s.slot
         FROM cron_job_definitions d
         CROSS JOIN LATERAL (
           SELECT max(r.scheduled_at) AS slot FROM cron_job_runs r
           WHERE r.job_definition_id = d.id AND r.trigger_type = ${lit(TriggerType.SCHEDULED)}
             AND r.scheduled_at <= $1::timestamptz - make_interval(secs => d.expect_success_within_seconds)
         ) s
         CROSS JOIN LATERAL (
           SELECT max(x.finished_at) AS at FROM cron_job_runs x WHERE x.job_definition_id = d.id AND x.status = ${SUCCEEDED}
         ) success
         LEFT JOIN cron_job_late_alerts l ON l.job_definition_id = d.id
         WHERE d.expect_success_within_seconds IS NOT NULL AND d.status = ${lit(JobStatus.ACTIVE)} AND s.slot IS NOT NULL
           -- a new episode: never alerted, or the job succeeded since its alert and this slot came after that success
           AND (l.slot_at IS NULL OR (success.at > l.alerted_at AND s.slot >= success.at))
           AND NOT EXISTS (
             SELECT 1 FROM cron_job_runs x WHERE x.job_definition_id = d.id AND x.status = ${SUCCEEDED}
               AND x.finished_at >= s.slot AND x.finished_at <= s.slot + make_interval(secs => d.expect_success_within_seconds))
         ORDER BY d.id
         LIMIT $2
       ), marked AS (
         INSERT INTO cron_job_late_alerts (job_definition_id, slot_at, alerted_at)
         SELECT id, slot, $1 FROM due
         ON CONFLICT (job_definition_id) DO UPDATE SET slot_at = EXCLUDED.slot_at, alerted_at = EXCLUDED.alerted_at
           WHERE cron_job_late_alerts.slot_at < EXCLUDED.slot_at
         RETURNING job_definition_id
       ), late_alerts AS (
         INSERT INTO cron_notification_outbox (id, channel, event, data, created_at, due_at)
         SELECT gen_random_uuid(), ch.name, ${JOB_LATE}, jsonb_build_object(
             'job', jsonb_build_object('id', due.id, 'key', due.job_key, 'version', due.version, 'target', due.target),
             'slot', ${iso('due.slot')}, 'deadline', ${iso("due.slot + make_interval(secs => due.within)")},
             'expectSuccessWithinSeconds', due.within), $1, now()
         FROM marked JOIN due ON due.id = marked.job_definition_id
         JOIN cron_notification_channels ch ON ${routedTo('ch', 'due.notify', JOB_LATE)}
         ORDER BY due.id
         RETURNING id
       )
     SELECT (SELECT count(*) FROM marked)::int AS late, ${outboxNotice(['late_alerts'])} AS notified`,
    [now, limit],
  );
  return Number(res.rows[0].late);
}
