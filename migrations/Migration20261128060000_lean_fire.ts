import { Migration } from '@mikro-orm/migrations';

/**
 * Less work per fired run: the insert that records and claims a due slot is the fire path's
 * floor (BENCHMARKS.md, "Co-due as a user feels it"), and it paid for entries no query of a
 * fresh RUNNING row needs. Measured as the backend's CPU time for 10,000 co-due slots (median of
 * five): 330 ms → 220 ms.
 * - No index of running runs by runner: every query of them (the lost-runner sweep, an instance's
 *   runs, the started-at and progress writes) also says `status = 'RUNNING'`, which the index of
 *   active runs per lane covers; active runs are the few the jobs' lanes hold, not the history.
 * - The index of runs that did not succeed keeps only ended ones (FAILED, CANCELED, SKIPPED): a
 *   status filter on PENDING or RUNNING goes through the active runs' index; a run enters the
 *   index when it ends, as it did when it succeeded (an end writes its entries anyway: status is
 *   in the indexes' predicates, no end is a HOT update).
 * - No foreign key from a run to its job: its check was a lookup and a row lock (a WAL record) of
 *   the job per inserted run, ~15 % of the insert. Job rows are never deleted (a new version is a
 *   new row, retiring is a status), and every statement that creates runs selects them from the
 *   job rows it joins (`insertRuns`, the end rules' retries and promotions), so the reference
 *   cannot dangle.
 * A fired run writes 5 index entries (was 7); an end, as many as before.
 */
export class Migration20261128060000_lean_fire extends Migration {
  override async up(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_running_runner_idx');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_unsucceeded_idx');
    this.addSql(`CREATE INDEX cron_job_runs_ended_unsucceeded_idx ON cron_job_runs (status, scheduled_at DESC, id DESC)
      WHERE status IN ('FAILED', 'CANCELED', 'SKIPPED')`);
    this.addSql('ALTER TABLE cron_job_runs DROP CONSTRAINT IF EXISTS cron_job_runs_job_definition_id_fkey');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_job_definition_id_fkey FOREIGN KEY (job_definition_id) REFERENCES cron_job_definitions(id)');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_ended_unsucceeded_idx');
    this.addSql(`CREATE INDEX cron_job_runs_unsucceeded_idx ON cron_job_runs (status, scheduled_at DESC, id DESC) WHERE status <> 'SUCCEEDED'`);
    this.addSql(`CREATE INDEX cron_job_runs_running_runner_idx ON cron_job_runs (runner_instance_id) WHERE status = 'RUNNING'`);
  }
}
