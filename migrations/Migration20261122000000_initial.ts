import { Migration } from '@mikro-orm/migrations';

/**
 * The initial schema: job definitions and runs (docs/product.md, the data model, plus `output`, `timeout_seconds`).
 * Migrations are append-only: change the schema with a new file, never by editing this one.
 */
export class Migration20261122000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE cron_job_definitions (
        id                uuid PRIMARY KEY,
        job_key           text NOT NULL CHECK (length(job_key) BETWEEN 1 AND 200),
        version           integer NOT NULL CHECK (version >= 1),
        target            text NOT NULL,
        payload           jsonb NULL,
        schedule_type     text NOT NULL CHECK (schedule_type IN ('ONE_TIME', 'RECURRING')),
        cron_expression   text NULL,
        run_at            timestamptz NULL,
        timezone          text NOT NULL DEFAULT 'UTC',
        timeout_seconds   integer NULL CHECK (timeout_seconds > 0),
        status            text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'PAUSED', 'RETIRED')),
        pause_reason      text NULL,
        supersedes_job_id uuid NULL REFERENCES cron_job_definitions (id),
        created_by        text NULL,
        updated_by        text NULL,
        created_at        timestamptz NOT NULL DEFAULT now(),
        updated_at        timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT cron_job_definitions_key_version_unique UNIQUE (job_key, version),
        CONSTRAINT cron_job_definitions_recurring_needs_cron
          CHECK (schedule_type <> 'RECURRING' OR cron_expression IS NOT NULL),
        CONSTRAINT cron_job_definitions_one_time_needs_run_at
          CHECK (schedule_type <> 'ONE_TIME' OR run_at IS NOT NULL),
        CONSTRAINT cron_job_definitions_paused_has_reason
          CHECK (status <> 'PAUSED' OR pause_reason IS NOT NULL)
      )`);
    // At most one live (non-retired) version per key: a new version and the retirement of the old
    // one happen in one transaction, and two concurrent createJobVersion calls cannot both win.
    this.addSql(`CREATE UNIQUE INDEX cron_job_definitions_one_live_version
      ON cron_job_definitions (job_key) WHERE status <> 'RETIRED'`);
    this.addSql(`CREATE INDEX cron_job_definitions_status_idx ON cron_job_definitions (status)`);
    this.addSql(`CREATE INDEX cron_job_definitions_target_idx ON cron_job_definitions (target)`);
    this.addSql(`CREATE INDEX cron_job_definitions_schedule_type_idx ON cron_job_definitions (schedule_type)`);
    // The jobs query pages newest first by (created_at, id).
    this.addSql(`CREATE INDEX cron_job_definitions_created_idx ON cron_job_definitions (created_at DESC, id DESC)`);
    this.addSql(`CREATE INDEX cron_job_definitions_supersedes_idx ON cron_job_definitions (supersedes_job_id)`);

    this.addSql(`
      CREATE TABLE cron_job_runs (
        id                 uuid PRIMARY KEY,
        job_definition_id  uuid NOT NULL REFERENCES cron_job_definitions (id),
        job_key            text NOT NULL,
        job_version        integer NOT NULL,
        target             text NOT NULL,
        payload_snapshot   jsonb NULL,
        trigger_type       text NOT NULL CHECK (trigger_type IN ('SCHEDULED', 'MANUAL', 'AD_HOC')),
        scheduled_at       timestamptz NOT NULL,
        started_at         timestamptz NULL,
        finished_at        timestamptz NULL,
        status             text NOT NULL
          CHECK (status IN ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELED', 'SKIPPED')),
        failure_code       text NULL,
        failure_message    text NULL,
        failure_details    jsonb NULL,
        output             jsonb NULL,
        runner_instance_id text NULL,
        created_at         timestamptz NOT NULL DEFAULT now(),
        updated_at         timestamptz NOT NULL DEFAULT now()
      )`);
    // Idempotent firing: one SCHEDULED run per (job, slot), whoever fires it (docs/behaviour.md, firing a slot).
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_scheduled_slot_unique
      ON cron_job_runs (job_definition_id, scheduled_at) WHERE trigger_type = 'SCHEDULED'`);
    // No overlap: at most one active run per job, across every instance (docs/behaviour.md, no overlap).
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_one_active_per_job
      ON cron_job_runs (job_definition_id) WHERE status IN ('PENDING', 'RUNNING')`);
    this.addSql(`CREATE INDEX cron_job_runs_status_scheduled_idx ON cron_job_runs (status, scheduled_at)`);
    // Job.runs / lastRun page a job's runs newest first.
    this.addSql(`CREATE INDEX cron_job_runs_job_scheduled_idx
      ON cron_job_runs (job_definition_id, scheduled_at DESC, id DESC)`);
    this.addSql(`CREATE INDEX cron_job_runs_key_version_idx ON cron_job_runs (job_key, job_version)`);
    this.addSql(`CREATE INDEX cron_job_runs_target_idx ON cron_job_runs (target)`);
    this.addSql(`CREATE INDEX cron_job_runs_created_idx ON cron_job_runs (created_at)`);
    // The runs query pages newest scheduled first by (scheduled_at, id).
    this.addSql(`CREATE INDEX cron_job_runs_scheduled_idx ON cron_job_runs (scheduled_at DESC, id DESC)`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_job_runs');
    this.addSql('DROP TABLE IF EXISTS cron_job_definitions');
  }
}
