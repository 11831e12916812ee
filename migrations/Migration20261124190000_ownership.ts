import { Migration } from '@mikro-orm/migrations';

/**
 * Scale-out: a scheduler loads only the ACTIVE jobs of the partitions it arms (an expression
 * index on the partition of the job key, `PARTITION_OF_KEY` in src/domain/partitions.ts — the same
 * text, so the planner uses it), and the instances table says which instances are armed (members
 * of the assignment) and how many jobs each holds.
 */
export class Migration20261124190000_ownership extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX cron_job_definitions_active_partition_idx
      ON cron_job_definitions ((('x' || substr(md5(job_key), 1, 3))::bit(12)::int)) WHERE status = 'ACTIVE'`);
    this.addSql(`ALTER TABLE cron_instances
      ADD COLUMN armed_at timestamptz NULL,
      ADD COLUMN owned_jobs integer NOT NULL DEFAULT 0`);
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_instances DROP COLUMN armed_at, DROP COLUMN owned_jobs');
    this.addSql('DROP INDEX IF EXISTS cron_job_definitions_active_partition_idx');
  }
}
