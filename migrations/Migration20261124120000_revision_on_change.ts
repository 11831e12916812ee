import { Migration } from '@mikro-orm/migrations';

/**
 * A job's revision orders its snapshots across instances; it must move when the job changes, not
 * when one of its runs ends (the run's end updates the job's signals — consecutive failures, last
 * success and failure — many times a minute). Every change of a definition or of its state sets
 * `updated_at` or `status`; the signals set neither (an auto-pause sets both).
 */
export class Migration20261124120000_revision_on_change extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.updated_at IS DISTINCT FROM OLD.updated_at OR NEW.status IS DISTINCT FROM OLD.status THEN
          NEW.revision := OLD.revision + 1;
        END IF;
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
