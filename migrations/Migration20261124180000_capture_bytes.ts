import { Migration } from '@mikro-orm/migrations';

/** How much of an `http` response a job's runs keep in their output (default 4 KiB, at most 1 MiB). */
export class Migration20261124180000_capture_bytes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN capture_bytes integer NOT NULL DEFAULT 4096 CHECK (capture_bytes BETWEEN 0 AND 1048576)`);
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN capture_bytes');
  }
}
