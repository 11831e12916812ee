import { Migration } from '@mikro-orm/migrations';

/**
 * Fewer indexes on the runs table, each serving a query that needs it. A run's status is in its
 * indexes, so every state change writes an entry into each index whose predicate the new row
 * meets: at 10,000 runs ending together that upkeep was ~270 ms of the end statement's ~300.
 * - `created_at` is no longer indexed: the stats window and retention go by `scheduled_at` (the
 *   slot, or a run-now's creation), which the page index already orders.
 * - `target` is no longer indexed on runs: a run's target is its job version's, so the filter
 *   goes through the jobs' own target index.
 * - the status index keeps only runs that did not succeed (what a status filter looks for; a
 *   success is most of a history and is found by the page index): a successful end adds nothing.
 * - `job_key` is no longer indexed on runs: a run's key is its job version's; one job's page is
 *   read per version through the (job version, newest slot first) index and merged, so it needs
 *   no sort however long the history (the old (key, version) index made PostgreSQL sort them all).
 * Insert of a run: 10 index entries → 7; a successful end: 9 → 5.
 */
export class Migration20261125000000_lean_run_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_created_idx');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_target_idx');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_status_scheduled_idx');
    this.addSql(`CREATE INDEX cron_job_runs_unsucceeded_idx ON cron_job_runs (status, scheduled_at DESC, id DESC) WHERE status <> 'SUCCEEDED'`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_key_version_idx');
  }

  override async down(): Promise<void> {
    this.addSql('CREATE INDEX cron_job_runs_key_version_idx ON cron_job_runs (job_key, job_version)');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_unsucceeded_idx');
    this.addSql('CREATE INDEX cron_job_runs_status_scheduled_idx ON cron_job_runs (status, scheduled_at)');
    this.addSql('CREATE INDEX cron_job_runs_target_idx ON cron_job_runs (target)');
    this.addSql('CREATE INDEX cron_job_runs_created_idx ON cron_job_runs (created_at)');
  }
}
