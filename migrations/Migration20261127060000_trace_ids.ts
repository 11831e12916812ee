import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C trace context of each run (docs/operations.md, "Tracing"): the span its own span
 * continues — a run-now's or a backfill's mutation — or, for a run whose trace starts at the run,
 * its trace id with a parent id of zeros. Runs are the hot table: nullable, no default (adding the
 * column rewrites nothing), no index (read with the row, never searched); null while tracing is off.
 */
export class Migration20261127060000_trace_ids extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_runs ADD COLUMN traceparent text');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_runs DROP COLUMN IF EXISTS traceparent');
  }
}
