import { Migration } from '@mikro-orm/migrations';

/**
 * A job's revision orders its snapshots across instances; it must move when the job changes, not
 * when one of its runs ends (the run's end updates the job's signals — consecutive failures, last
 * success and failure — many times a minute, and a resync would rebuild every actor). An update
 * that changes the signals and nothing else keeps the revision; every other update bumps it, as
 * before (an auto-pause changes the status too, so it bumps).
 */
export class Migration20261124120000_revision_on_change extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        without_signals cron_job_definitions := NEW;
      BEGIN
        without_signals.consecutive_failures := OLD.consecutive_failures;
        without_signals.last_success_at := OLD.last_success_at;
        without_signals.last_failure_at := OLD.last_failure_at;
        without_signals.revision := OLD.revision;
        IF without_signals IS NOT DISTINCT FROM OLD
           AND (NEW.consecutive_failures, NEW.last_success_at, NEW.last_failure_at)
               IS DISTINCT FROM (OLD.consecutive_failures, OLD.last_success_at, OLD.last_failure_at) THEN
          RETURN NEW; -- only the signals moved
        END IF;
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
  }
}
