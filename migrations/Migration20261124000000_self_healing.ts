import { Migration } from '@mikro-orm/migrations';

/**
 * The self-healing runtime (heartbeats, the slot ledger, catch-up):
 * - `cron_instances`: one row per live runtime, beating every few seconds; a RUNNING run whose
 *   runner stopped beating is settled by any other instance's sweep (RUNNER_LOST).
 * - `active_since` on job definitions: the instant the job last became ACTIVE (created, resumed,
 *   new version). With the job's latest SCHEDULED run it is the job's ledger: every slot after
 *   `greatest(active_since, latest scheduled slot)` that is already past has no row yet, so it
 *   was missed. Kept by a trigger, so every way of activating a job sets it.
 * - `catch_up` / `catch_up_limit`: what to do with missed slots (NONE, LATEST, ALL).
 */
export class Migration20261124000000_self_healing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      CREATE TABLE cron_instances (
        id           text PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 200),
        role         text NOT NULL,
        host         text NULL,
        pid          integer NULL,
        version      text NULL,
        started_at   timestamptz NOT NULL,
        heartbeat_at timestamptz NOT NULL
      )`);
    this.addSql(`CREATE INDEX cron_instances_heartbeat_idx ON cron_instances (heartbeat_at)`);

    this.addSql(`ALTER TABLE cron_job_definitions ADD COLUMN active_since timestamptz NULL`);
    this.addSql(`UPDATE cron_job_definitions SET active_since = updated_at WHERE status = 'ACTIVE'`);
    this.addSql(`
      CREATE FUNCTION cron_job_definitions_set_active_since() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'ACTIVE' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'ACTIVE') THEN
          NEW.active_since := NEW.updated_at;
        END IF;
        RETURN NEW;
      END $$`);
    this.addSql(`
      CREATE TRIGGER cron_job_definitions_active_since BEFORE INSERT OR UPDATE ON cron_job_definitions
      FOR EACH ROW EXECUTE FUNCTION cron_job_definitions_set_active_since()`);

    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN catch_up text NOT NULL DEFAULT 'NONE' CHECK (catch_up IN ('NONE', 'LATEST', 'ALL')),
      ADD COLUMN catch_up_limit integer NULL CHECK (catch_up_limit BETWEEN 1 AND 1000)`);

    // The sweep looks up RUNNING runs by runner, and PENDING runs nobody claimed by age.
    this.addSql(`CREATE INDEX cron_job_runs_running_runner_idx ON cron_job_runs (runner_instance_id) WHERE status = 'RUNNING'`);
    this.addSql(`CREATE INDEX cron_job_runs_pending_created_idx ON cron_job_runs (created_at) WHERE status = 'PENDING'`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_pending_created_idx');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_running_runner_idx');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS catch_up_limit, DROP COLUMN IF EXISTS catch_up');
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_active_since ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_definitions_set_active_since()');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS active_since');
    this.addSql('DROP TABLE IF EXISTS cron_instances');
  }
}
