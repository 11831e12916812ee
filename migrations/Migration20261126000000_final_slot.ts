import { Migration } from '@mikro-orm/migrations';

/**
 * A recurring job whose expression has a year field (`0 0 9 1 1 * 2026-2030`) has a last slot
 * ever; the job retires when that slot's run ends, by the same rule, in the same statement, as a
 * one-time job's run retires it. The slot is computed by the schedule math when the version is
 * made (the database cannot read cron); null for every other job.
 */
export class Migration20261126000000_final_slot extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_definitions ADD COLUMN final_slot_at timestamptz NULL');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN final_slot_at');
  }
}
