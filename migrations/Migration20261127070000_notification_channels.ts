import { Migration } from '@mikro-orm/migrations';

/**
 * Notification channels (docs/operations.md, "Notifications"): the channels, each URL and signing
 * secret sealed like secrets (the env channel's stay in the environment: no URL stored); the outbox of deliveries, written by the statement that records the
 * event and delivered by one instance at a time; a job's `notify` and `expectSuccessWithinSeconds`;
 * and the late slot each job was last alerted for (JOB_LATE: once until it succeeds again).
 */
export class Migration20261127070000_notification_channels extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN notify text[] NOT NULL DEFAULT '{}',
      ADD COLUMN expect_success_within_seconds integer`);
    this.addSql(`CREATE TABLE cron_notification_channels (
      name             text PRIMARY KEY,
      kind             text NOT NULL,
      url_iv           bytea,
      url_ciphertext   bytea,
      url_tag          bytea,
      url_host         text NOT NULL,
      secret_iv        bytea,
      secret_ciphertext bytea,
      secret_tag       bytea,
      events           text[],
      is_default       boolean NOT NULL DEFAULT false,
      from_env         boolean NOT NULL DEFAULT false,
      CHECK (from_env OR url_ciphertext IS NOT NULL),
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL,
      updated_by       text,
      last_delivery_at timestamptz,
      last_error       text
    )`);
    this.addSql(`CREATE TABLE cron_notification_outbox (
      id           uuid PRIMARY KEY,
      seq          bigint GENERATED ALWAYS AS IDENTITY,
      channel      text NOT NULL REFERENCES cron_notification_channels (name) ON DELETE CASCADE,
      event        text NOT NULL,
      data         jsonb NOT NULL,
      created_at   timestamptz NOT NULL,
      due_at       timestamptz NOT NULL,
      attempts     integer NOT NULL DEFAULT 0,
      delivered_at timestamptz,
      given_up_at  timestamptz,
      last_error   text
    )`);
    // Each channel's deliveries go in order: its head is the oldest pending row.
    this.addSql(`CREATE INDEX cron_notification_outbox_pending ON cron_notification_outbox (channel, seq)
      WHERE delivered_at IS NULL AND given_up_at IS NULL`);
    this.addSql(`CREATE INDEX cron_notification_outbox_done ON cron_notification_outbox (created_at)
      WHERE delivered_at IS NOT NULL OR given_up_at IS NOT NULL`);
    // The late-jobs duty reads only the jobs that expect a success by a deadline.
    this.addSql(`CREATE INDEX cron_job_definitions_expect_success_idx ON cron_job_definitions (id)
      WHERE expect_success_within_seconds IS NOT NULL AND status = 'ACTIVE'`);
    this.addSql(`CREATE TABLE cron_job_late_alerts (
      job_definition_id uuid PRIMARY KEY REFERENCES cron_job_definitions (id) ON DELETE CASCADE,
      slot_at           timestamptz NOT NULL,
      alerted_at        timestamptz NOT NULL
    )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_job_late_alerts');
    this.addSql('DROP TABLE IF EXISTS cron_notification_outbox');
    this.addSql('DROP TABLE IF EXISTS cron_notification_channels');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS notify, DROP COLUMN IF EXISTS expect_success_within_seconds');
  }
}
