import { Migration } from '@mikro-orm/migrations';

/**
 * Concurrency pools (docs/behaviour.md, "Concurrency pools"): `cron_concurrency_pools`, one row per
 * name with its limit; the pool a job version joins (`cron_job_definitions.concurrency_pool`, a
 * setting of domain/job-fields.ts); and the pool each run was created in
 * (`cron_job_runs.concurrency_pool`, copied from its version like its target), so that a pool's
 * RUNNING and waiting runs are found through one small partial index — a run of no pool is not in
 * it at all.
 *
 * That a live job names only a pool that exists is the database's rule, held as calendars' is by
 * two triggers that lock the same row: a job version written with a pool locks it FOR KEY SHARE
 * until its transaction ends and fails (`cron_job_definitions_pool_known`) when it does not
 * exist; a pool's DELETE locks its row first, then looks for live jobs naming it with a fresh
 * snapshot and fails (`cron_concurrency_pools_in_use`) when it finds one. The claim locks a pool's
 * row FOR NO KEY UPDATE (db/runs/pool-admission.ts), which a job write's KEY SHARE does not wait for.
 */
export class Migration20261128040000_concurrency_pools extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_concurrency_pools (
      name       text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
      run_limit  integer NOT NULL CHECK (run_limit BETWEEN 1 AND 10000),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by text NULL
    )`);
    this.addSql(`ALTER TABLE cron_job_definitions ADD COLUMN concurrency_pool text NULL`);
    this.addSql(`ALTER TABLE cron_job_runs ADD COLUMN concurrency_pool text NULL`);
    // A pool's jobs, and the delete's check: the live versions naming it.
    this.addSql(`CREATE INDEX cron_job_definitions_pool_idx ON cron_job_definitions (concurrency_pool)
      WHERE status <> 'RETIRED' AND concurrency_pool IS NOT NULL`);
    // A pool's RUNNING count and its waiting runs, oldest due first; runs of no pool are not in it.
    this.addSql(`CREATE INDEX cron_job_runs_pool_idx ON cron_job_runs (concurrency_pool, status, (coalesce(due_at, created_at)), id)
      WHERE concurrency_pool IS NOT NULL AND status IN ('PENDING', 'RUNNING')`);
    this.addSql(`CREATE FUNCTION cron_job_pool_known() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'RETIRED' THEN
          RETURN NEW;
        END IF;
        -- Held until this transaction ends: a concurrent delete of the pool waits, then sees this job.
        PERFORM 1 FROM cron_concurrency_pools WHERE name = NEW.concurrency_pool FOR KEY SHARE;
        IF NOT FOUND THEN
          RAISE EXCEPTION 'unknown concurrency pool "%"', NEW.concurrency_pool
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'cron_job_definitions_pool_known', DETAIL = NEW.concurrency_pool;
        END IF;
        RETURN NEW;
      END $$`);
    this.addSql(`CREATE TRIGGER cron_job_definitions_pool_known
      BEFORE INSERT OR UPDATE OF concurrency_pool ON cron_job_definitions
      FOR EACH ROW WHEN (NEW.concurrency_pool IS NOT NULL) EXECUTE FUNCTION cron_job_pool_known()`);
    this.addSql(`CREATE FUNCTION cron_concurrency_pool_unused() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        user_key text;
      BEGIN
        SELECT job_key INTO user_key FROM cron_job_definitions
          WHERE status <> 'RETIRED' AND concurrency_pool = OLD.name ORDER BY job_key LIMIT 1;
        IF user_key IS NOT NULL THEN
          RAISE EXCEPTION 'concurrency pool "%" is used by job "%"', OLD.name, user_key
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'cron_concurrency_pools_in_use', DETAIL = user_key;
        END IF;
        RETURN OLD;
      END $$`);
    this.addSql(`CREATE TRIGGER cron_concurrency_pools_in_use BEFORE DELETE ON cron_concurrency_pools
      FOR EACH ROW EXECUTE FUNCTION cron_concurrency_pool_unused()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_pool_known ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_pool_known()');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_pool_idx');
    this.addSql('ALTER TABLE cron_job_runs DROP COLUMN IF EXISTS concurrency_pool');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS concurrency_pool');
    this.addSql('DROP TABLE IF EXISTS cron_concurrency_pools');
    this.addSql('DROP FUNCTION IF EXISTS cron_concurrency_pool_unused()');
  }
}
