import { Migration } from '@mikro-orm/migrations';

/**
 * Operational signals kept on each job definition as its runs end (never computed by scanning
 * history), and auto-pause:
 * - `consecutive_failures`: FAILED runs since the last SUCCEEDED one (canceled and skipped runs do
 *   not count); reset by a success and by resume;
 * - `last_success_at` / `last_failure_at`: when the latest run of each kind ended;
 * - `pause_after_failures`: when set, the job is PAUSED by cronql once that many runs failed in a row.
 */
export class Migration20261124100000_job_signals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
      ADD COLUMN last_success_at timestamptz NULL,
      ADD COLUMN last_failure_at timestamptz NULL,
      ADD COLUMN pause_after_failures integer NULL CHECK (pause_after_failures BETWEEN 1 AND 1000)`);
  }

  override async down(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      DROP COLUMN pause_after_failures, DROP COLUMN last_failure_at, DROP COLUMN last_success_at, DROP COLUMN consecutive_failures`);
  }
}
