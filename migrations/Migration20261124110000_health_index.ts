import { Migration } from '@mikro-orm/migrations';

/**
 * Health reports lost runs and missed slots of the last hour: a small partial index on just those
 * rows keeps that count cheap however large the history is.
 */
export class Migration20261124110000_health_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX cron_job_runs_trouble_idx ON cron_job_runs (finished_at, failure_code)
      WHERE failure_code IN ('RUNNER_LOST', 'STALE_TIMEOUT', 'MISSED')`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_trouble_idx');
  }
}
