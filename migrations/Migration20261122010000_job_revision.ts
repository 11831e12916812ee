import { Migration } from '@mikro-orm/migrations';

/**
 * A per-job revision, bumped by the database on every change of a definition row. Schedulers
 * apply job snapshots in revision order: `updated_at` comes from each instance's clock and can
 * go backwards between instances (or after an NTP step), a revision cannot.
 */
export class Migration20261122010000_job_revision extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions ADD COLUMN revision integer NOT NULL DEFAULT 1`);
    this.addSql(`
      CREATE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
    this.addSql(`
      CREATE TRIGGER cron_job_definitions_revision BEFORE UPDATE ON cron_job_definitions
      FOR EACH ROW EXECUTE FUNCTION cron_job_definitions_bump_revision()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_revision ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_definitions_bump_revision()');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS revision');
  }
}
