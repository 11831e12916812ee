import { Migration } from '@mikro-orm/migrations';

/**
 * A job's last success is read from its runs, not written on the job: every successful run used
 * to rewrite its job's row (`last_success_at`), which at thousands of co-due runs cost as much
 * as ending the runs themselves. Now a run that succeeds touches its job only when it resets a
 * failure streak; `lastSuccessAt` is the newest SUCCEEDED run's end, found through a small
 * partial index (one probe per job), and retention keeps each job's newest successful run.
 * Failures still count on the job (the streak, the auto-pause, `last_failure_at`).
 */
export class Migration20261124140000_last_success_from_runs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE INDEX cron_job_runs_last_success_idx ON cron_job_runs (job_definition_id, finished_at DESC) WHERE status = 'SUCCEEDED'`);
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        without_signals cron_job_definitions := NEW;
      BEGIN
        without_signals.consecutive_failures := OLD.consecutive_failures;
        without_signals.last_failure_at := OLD.last_failure_at;
        without_signals.revision := OLD.revision;
        IF without_signals IS NOT DISTINCT FROM OLD
           AND (NEW.consecutive_failures, NEW.last_failure_at) IS DISTINCT FROM (OLD.consecutive_failures, OLD.last_failure_at) THEN
          RETURN NEW; -- only the signals moved
        END IF;
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN last_success_at');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_definitions ADD COLUMN last_success_at timestamptz NULL');
    this.addSql(`UPDATE cron_job_definitions d SET last_success_at = (SELECT max(r.finished_at) FROM cron_job_runs r
      WHERE r.job_definition_id = d.id AND r.status = 'SUCCEEDED')`);
    this.addSql(`
      CREATE OR REPLACE FUNCTION cron_job_definitions_bump_revision() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        without_signals cron_job_definitions := NEW;
      BEGIN
        without_signals.consecutive_failures := OLD.consecutive_failures;
        without_signals.last_success_at := OLD.last_success_at;
        without_signals.last_failure_at := OLD.last_failure_at;
        without_signals.revision := OLD.revision;
        IF without_signals IS NOT DISTINCT FROM OLD
           AND (NEW.consecutive_failures, NEW.last_success_at, NEW.last_failure_at)
               IS DISTINCT FROM (OLD.consecutive_failures, OLD.last_success_at, OLD.last_failure_at) THEN
          RETURN NEW;
        END IF;
        NEW.revision := OLD.revision + 1;
        RETURN NEW;
      END $$`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_last_success_idx');
  }
}
