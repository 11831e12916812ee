import { Migration } from '@mikro-orm/migrations';

/**
 * Schedules beyond one cron line (docs/behaviour.md, "Intervals, several expressions, bounds"):
 * - INTERVAL jobs: `every_ms` (bigint milliseconds: the slot math adds it to instants as it is,
 *   and one number is compared, bounded and exported exactly, where an `interval` would carry
 *   months and days that mean nothing for an absolute spacing) and `anchor_at`, the first slot;
 * - `cron_expressions`: a RECURRING job's whole list when it has several (`cron_expression` stays
 *   the first, so a job with one expression is stored as before);
 * - `start_at`, `end_at`, `max_runs`: bounds; `misfire_grace_seconds`: the job's own grace.
 * The schedule-type CHECK gains INTERVAL.
 */
export class Migration20261127000000_schedule_kinds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      DROP CONSTRAINT IF EXISTS cron_job_definitions_schedule_type_check,
      ADD CONSTRAINT cron_job_definitions_schedule_type_check CHECK (schedule_type IN ('ONE_TIME', 'RECURRING', 'INTERVAL')),
      ADD COLUMN cron_expressions text[] NULL CHECK (cardinality(cron_expressions) BETWEEN 2 AND 20),
      ADD COLUMN every_ms bigint NULL CHECK (every_ms >= 1000 AND every_ms % 1000 = 0),
      ADD COLUMN anchor_at timestamptz NULL,
      ADD COLUMN start_at timestamptz NULL,
      ADD COLUMN end_at timestamptz NULL,
      ADD COLUMN max_runs integer NULL CHECK (max_runs >= 1),
      ADD COLUMN misfire_grace_seconds integer NULL CHECK (misfire_grace_seconds BETWEEN 1 AND 86400),
      ADD CONSTRAINT cron_job_definitions_interval_check
        CHECK (schedule_type <> 'INTERVAL' OR (every_ms IS NOT NULL AND anchor_at IS NOT NULL)),
      ADD CONSTRAINT cron_job_definitions_bounds_check CHECK (start_at IS NULL OR end_at IS NULL OR start_at <= end_at)`);
  }

  override async down(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      DROP CONSTRAINT cron_job_definitions_interval_check,
      DROP CONSTRAINT cron_job_definitions_bounds_check,
      DROP COLUMN cron_expressions, DROP COLUMN every_ms, DROP COLUMN anchor_at, DROP COLUMN start_at,
      DROP COLUMN end_at, DROP COLUMN max_runs, DROP COLUMN misfire_grace_seconds,
      DROP CONSTRAINT cron_job_definitions_schedule_type_check,
      ADD CONSTRAINT cron_job_definitions_schedule_type_check CHECK (schedule_type IN ('ONE_TIME', 'RECURRING'))`);
  }
}
