import { Migration } from '@mikro-orm/migrations';

/**
 * The lines a run's handler wrote with `ctx.log`, kept with the run (docs/run-logs.md): at most
 * 1,000 lines / 256 KiB per run, then one line (`dropped` set) saying how many more were not kept.
 * Deleted with their run (the foreign key cascades: run retention) and by their own retention
 * (CRONQL_RUN_LOG_RETENTION_DAYS, by `at`: a BRIN index, as lines are appended in time order and
 * a B-tree would cost every insert more than the hourly prune saves).
 */
export class Migration20261127040000_run_logs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_run_logs (
      run_id   uuid NOT NULL REFERENCES cron_job_runs (id) ON DELETE CASCADE,
      sequence integer NOT NULL,
      at       timestamptz NOT NULL,
      level    text NOT NULL,
      message  text NOT NULL,
      fields   jsonb,
      dropped  integer,
      PRIMARY KEY (run_id, sequence)
    )`);
    this.addSql('CREATE INDEX cron_run_logs_at_brin ON cron_run_logs USING brin (at)');
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_run_logs');
  }
}
