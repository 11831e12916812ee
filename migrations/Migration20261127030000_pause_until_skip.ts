import { Migration } from '@mikro-orm/migrations';

/**
 * Pauses that end by themselves, and skipping a job's next slots:
 * - `paused_until`: a PAUSED job with this set resumes by itself at that instant (the resume is a
 *   conditional update on it, so exactly one instance does it); a partial index finds the pauses
 *   ending soon.
 * - `skip_remaining` / `skip_reason`: the next `skip_remaining` slots of the job are recorded
 *   SKIPPED (SKIPPED_BY_ADMIN) with the reason; the statement that records such a slot takes one
 *   off the count, under the job row's lock, so two instances never skip more than asked.
 * - The revision stays put when only the count moves (the fire path's decrement is not a change
 *   of the job's definition, like the failure signals): instances do not rebuild the actor.
 */
export class Migration20261127030000_pause_until_skip extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN paused_until timestamptz NULL,
      ADD COLUMN skip_remaining integer NOT NULL DEFAULT 0 CHECK (skip_remaining >= 0),
      ADD COLUMN skip_reason text NULL`);
    this.addSql(`CREATE INDEX cron_job_definitions_paused_until_idx ON cron_job_definitions (paused_until)
      WHERE status = 'PAUSED' AND paused_until IS NOT NULL`);
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        without_signals cron_job_definitions := NEW;
      BEGIN
        without_signals.consecutive_failures := OLD.consecutive_failures;
        without_signals.last_failure_at := OLD.last_failure_at;
        without_signals.skip_remaining := OLD.skip_remaining;
        without_signals.revision := OLD.revision;
        IF without_signals IS NOT DISTINCT FROM OLD
           AND (NEW.consecutive_failures, NEW.last_failure_at, NEW.skip_remaining)
               IS DISTINCT FROM (OLD.consecutive_failures, OLD.last_failure_at, OLD.skip_remaining) THEN
          RETURN NEW; -- only the signals, or the count of slots left to skip, moved
        END IF;
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        without_signals cron_job_definitions := NEW;
      BEGIN
        without_signals.consecutive_failures := OLD.consecutive_failures;
        without_signals.last_failure_at := OLD.last_failure_at;
        without_signals.revision := OLD.revision;
        IF without_signals IS NOT DISTINCT FROM OLD
           AND (NEW.consecutive_failures, NEW.last_failure_at) IS DISTINCT FROM (OLD.consecutive_failures, OLD.last_failure_at) THEN
          RETURN NEW; -- only the signals moved
        END IF;
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
    this.addSql('DROP INDEX IF EXISTS cron_job_definitions_paused_until_idx');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN skip_reason, DROP COLUMN skip_remaining, DROP COLUMN paused_until');
  }
}
