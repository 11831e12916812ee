import { Migration } from '@mikro-orm/migrations';

/**
 * A fired run costs PostgreSQL less (BENCHMARKS.md, "2026-11-26 (s7, D)"): a RUNNING slot wrote
 * five index entries, three of them at places spread over their whole index. Now four, two of them
 * at the right edge of their index, where PostgreSQL appends without a descent.
 * - **One index for the slot key and a job's history.** The unique (job, slot) key of scheduled
 *   first attempts and the (job, scheduled_at, id) index that pages a job's runs become one unique
 *   index over (job, scheduled_at, the nil uuid for a slot's first attempt and the run's id
 *   otherwise): a second first attempt of a slot collides on the nil uuid (one run per slot,
 *   whoever fires it, whatever version of cronql inserts it: `ON CONFLICT DO NOTHING` names no
 *   index), every other run is unique by its id. A job's page reads it newest first and orders the
 *   runs of one instant by id (a retry shares its slot's instant). The nil uuid rather than NULL
 *   with `NULLS NOT DISTINCT`: no PostgreSQL version beyond what cronql needed already.
 * - **Time-ordered run ids** (`cron_run_id()`): UUIDv7 on PostgreSQL 18 (`uuidv7()`), a random
 *   UUIDv4 before (chosen here, by the server this migration runs on). A new run's primary-key
 *   entry lands next to the previous run's instead of on a random page of the index.
 * - **The history index ascending**: (scheduled_at, id) rather than (scheduled_at DESC, id DESC). A
 *   new slot's entries go to the right edge (PostgreSQL's rightmost-leaf fast path); the pages
 *   newest first scan it backward, the same order.
 */
export class Migration20261130000000_fire_run_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`DO $$ BEGIN
      IF current_setting('server_version_num')::int >= 180000 THEN
        EXECUTE 'CREATE OR REPLACE FUNCTION cron_run_id() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS ''SELECT uuidv7()''';
      ELSE
        EXECUTE 'CREATE OR REPLACE FUNCTION cron_run_id() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS ''SELECT gen_random_uuid()''';
      END IF;
    END $$`);
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_job_slot_idx ON cron_job_runs (job_definition_id, scheduled_at,
      (CASE WHEN trigger_type = 'SCHEDULED' AND attempt = 1 THEN '00000000-0000-0000-0000-000000000000'::uuid ELSE id END))`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_slot_unique');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_job_scheduled_idx');
    this.addSql('ALTER INDEX cron_job_runs_job_slot_idx RENAME TO cron_job_runs_scheduled_slot_unique');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_idx');
    this.addSql('CREATE INDEX cron_job_runs_scheduled_idx ON cron_job_runs (scheduled_at, id)');
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_idx');
    this.addSql('CREATE INDEX cron_job_runs_scheduled_idx ON cron_job_runs (scheduled_at DESC, id DESC)');
    this.addSql('CREATE INDEX cron_job_runs_job_scheduled_idx ON cron_job_runs (job_definition_id, scheduled_at DESC, id DESC)');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_slot_unique');
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_scheduled_slot_unique ON cron_job_runs (job_definition_id, scheduled_at)
      WHERE trigger_type = 'SCHEDULED' AND attempt = 1`);
    this.addSql('DROP FUNCTION IF EXISTS cron_run_id()');
  }
}
