import { Migration } from '@mikro-orm/migrations';

/**
 * Backfills (docs/behaviour.md, "Backfill"): a job's past slots of a range, planned once and run
 * oldest first, one at a time, by trigger BACKFILL.
 * - `cron_backfills`: one row per backfill (its range, scope, state and who asked);
 * - `cron_backfill_slots`: its plan, one row per slot to run, with the run that ran it. The plan
 *   is in the database, so a backfill survives a restart: whoever advances it next reads it here.
 * - Two backfills in flight never both run a slot: the partial unique index on (job key, slot) of
 *   the slots not yet settled gives each slot to one backfill (the second's insert of that slot
 *   does nothing); once settled, the slot is free for a later backfill ("run this slot again").
 * - The runs' trigger-type CHECK admits BACKFILL. The scheduled-slot key stays on SCHEDULED first
 *   attempts: a backfill run of a slot is a run beside the slot's SCHEDULED row, not in its place.
 * - `cron_pruned_slots`: how far retention deleted each job version's runs, so that the planner
 *   does not count a pruned slot as one that never ran (docs/operations.md, retention).
 */
export class Migration20261127020000_backfills extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_runs DROP CONSTRAINT IF EXISTS cron_job_runs_trigger_type_check`);
    // NOT VALID, then VALIDATE: the check of the existing rows does not block writes to runs.
    this.addSql(`ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_trigger_type_check
      CHECK (trigger_type IN ('SCHEDULED', 'MANUAL', 'AD_HOC', 'BACKFILL')) NOT VALID`);
    this.addSql(`ALTER TABLE cron_job_runs VALIDATE CONSTRAINT cron_job_runs_trigger_type_check`);
    this.addSql(`
      CREATE TABLE cron_backfills (
        id                uuid PRIMARY KEY,
        job_definition_id uuid NOT NULL REFERENCES cron_job_definitions (id),
        job_key           text NOT NULL,
        from_at           timestamptz NOT NULL,
        to_at             timestamptz NOT NULL,
        scope             text NOT NULL CHECK (scope IN ('MISSING', 'NOT_SUCCEEDED', 'ALL')),
        state             text NOT NULL CHECK (state IN ('PLANNED', 'RUNNING', 'DONE', 'CANCELED')),
        skipped_existing  integer NOT NULL CHECK (skipped_existing >= 0),
        reason            text NOT NULL,
        requested_by      text NULL,
        created_at        timestamptz NOT NULL,
        updated_at        timestamptz NOT NULL,
        finished_at       timestamptz NULL,
        CONSTRAINT cron_backfills_range CHECK (from_at <= to_at)
      )`);
    // The duty advances the backfills in flight, oldest first.
    this.addSql(`CREATE INDEX cron_backfills_in_flight_idx ON cron_backfills (created_at, id) WHERE state IN ('PLANNED', 'RUNNING')`);
    this.addSql(`CREATE INDEX cron_backfills_job_idx ON cron_backfills (job_key, created_at DESC)`);
    this.addSql(`
      CREATE TABLE cron_backfill_slots (
        backfill_id uuid NOT NULL REFERENCES cron_backfills (id) ON DELETE CASCADE,
        job_key     text NOT NULL,
        slot        timestamptz NOT NULL,
        state       text NOT NULL CHECK (state IN ('PLANNED', 'RUNNING', 'DONE', 'CANCELED')),
        run_id      uuid NULL,
        PRIMARY KEY (backfill_id, slot)
      )`);
    this.addSql(`CREATE UNIQUE INDEX cron_backfill_slots_in_flight_unique
      ON cron_backfill_slots (job_key, slot) WHERE state IN ('PLANNED', 'RUNNING')`);
    this.addSql(`CREATE INDEX cron_backfill_slots_running_idx ON cron_backfill_slots (run_id) WHERE state = 'RUNNING'`);
    this.addSql(`
      CREATE TABLE cron_pruned_slots (
        job_definition_id uuid PRIMARY KEY REFERENCES cron_job_definitions (id),
        pruned_through    timestamptz NOT NULL
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_pruned_slots');
    this.addSql('DROP TABLE IF EXISTS cron_backfill_slots');
    this.addSql('DROP TABLE IF EXISTS cron_backfills');
    this.addSql(`DELETE FROM cron_job_runs WHERE trigger_type = 'BACKFILL'`);
    this.addSql(`ALTER TABLE cron_job_runs DROP CONSTRAINT IF EXISTS cron_job_runs_trigger_type_check`);
    this.addSql(`ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_trigger_type_check
      CHECK (trigger_type IN ('SCHEDULED', 'MANUAL', 'AD_HOC'))`);
  }
}
