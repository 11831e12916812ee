import { Migration } from '@mikro-orm/migrations';

/**
 * Progress and heartbeats (docs/behaviour.md, "Progress and heartbeats"): a job's
 * `heartbeat_timeout_seconds`, and on each run the handler's last report. The run columns are
 * nullable without a default or a check (the runs table is the hot one: adding them rewrites and
 * scans nothing; the executor validates what it writes). No index: the heartbeat-timeout sweep
 * reads RUNNING runs through the existing partial indexes on RUNNING runs.
 */
export class Migration20261127050000_heartbeats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN heartbeat_timeout_seconds integer CHECK (heartbeat_timeout_seconds BETWEEN 1 AND 604800)`);
    this.addSql(`ALTER TABLE cron_job_runs
      ADD COLUMN progress double precision, ADD COLUMN progress_message text, ADD COLUMN heartbeat_at timestamptz`);
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_runs DROP COLUMN progress, DROP COLUMN progress_message, DROP COLUMN heartbeat_at');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN heartbeat_timeout_seconds');
  }
}
