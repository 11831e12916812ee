/**
 * The vocabulary of notifications (docs/operations.md, "Notifications"): the events cronql alerts
 * on, the kinds of channel an alert goes to, and the rules of a channel's name. Stored as is in
 * the database (`cron_notification_channels.events`, `cron_notification_outbox.event`) and
 * exposed as is in GraphQL.
 */
export enum AlertEvent {
  /** A job's run failed (its last attempt) after the job had been succeeding: the first failure in a row. */
  RUN_FAILED = 'RUN_FAILED',
  /** A job that was failing succeeded again. */
  JOB_RECOVERED = 'JOB_RECOVERED',
  /** cronql paused the job after `pauseAfterFailures` failures in a row. */
  JOB_AUTO_PAUSED = 'JOB_AUTO_PAUSED',
  /** RUNNING runs were settled because their runner was gone (one alert per sweep). */
  RUNS_LOST = 'RUNS_LOST',
  /** Slots were recorded MISSED (one alert per batch and reason). */
  SLOTS_MISSED = 'SLOTS_MISSED',
  /** No SUCCEEDED run `expectSuccessWithinSeconds` after a slot (one alert until the job succeeds again). */
  JOB_LATE = 'JOB_LATE',
}

export enum ChannelKind {
  /** A JSON POST signed as Standard Webhooks say (webhook-id, webhook-timestamp, webhook-signature). */
  WEBHOOK = 'WEBHOOK',
  /** A Slack incoming webhook: a readable message with a link to the run in the dashboard. */
  SLACK = 'SLACK',
}

/**
 * The `kind` of the alert body the env webhook has always sent (CRONQL_ALERT_WEBHOOK_URL): kept
 * as is so that existing receivers keep matching on it; the new events follow the same pattern.
 */
export const LEGACY_KIND: Record<AlertEvent, string> = {
  RUN_FAILED: 'run.failed',
  JOB_RECOVERED: 'job.recovered',
  JOB_AUTO_PAUSED: 'job.auto_paused',
  RUNS_LOST: 'runs.lost',
  SLOTS_MISSED: 'slots.missed',
  JOB_LATE: 'job.late',
};

/** A channel name: what a job's `notify` lists. */
export const CHANNEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** The channel CRONQL_ALERT_WEBHOOK_URL defines. */
export const ENV_CHANNEL = 'default';
/** The names one job may list in `notify`. */
export const MAX_NOTIFY = 10;
/** Runs named in a RUNS_LOST / SLOTS_MISSED alert at most (the count is exact). */
export const ALERT_SAMPLE = 20;

/** The event of a delivery `testNotificationChannel` sends (not an alert: no channel filters it out). */
export const TEST_EVENT = 'TEST';
/** Its `kind` in the webhook body. */
export const TEST_KIND = 'test';
