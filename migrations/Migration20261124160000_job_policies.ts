import { Migration } from '@mikro-orm/migrations';

/**
 * Job policies (retries, overlap, jitter). On jobs: the retry policy (null: no retry, the original
 * default), the overlap policy (SKIP, the original default) with its concurrency, and the jitter
 * window. On runs:
 * - `attempt` (1 for the first) and `retry_of` (the attempt before): a retry is a new row of the
 *   same job and slot, so the slot key now holds for first attempts only;
 * - `due_at`: when the run was due to start, when that is not its slot: a retry's end of backoff,
 *   a jittered slot's instant plus its offset (lateness is measured from it, and a waiting retry
 *   is claimed once it has passed);
 * - `lane`: which of its job's concurrency places an active run holds. The one-active-run index
 *   becomes one active run per (job, lane): SKIP and CANCEL_PREVIOUS have lane 0, ALLOW lanes 0 to
 *   max_concurrent_runs - 1, and BUFFER_ONE keeps its one waiting slot in lane -1, from where it
 *   can only start by moving into lane 0 — so no policy can exceed its concurrency, across every
 *   instance, whatever the code does.
 */
export class Migration20261124160000_job_policies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN retry_max_attempts integer NULL CHECK (retry_max_attempts BETWEEN 1 AND 10),
      ADD COLUMN retry_backoff text NULL CHECK (retry_backoff IN ('FIXED', 'LINEAR', 'EXPONENTIAL')),
      ADD COLUMN retry_delay_seconds integer NULL CHECK (retry_delay_seconds >= 0),
      ADD COLUMN retry_max_delay_seconds integer NULL CHECK (retry_max_delay_seconds >= 0),
      ADD COLUMN retry_on text[] NULL,
      ADD COLUMN overlap text NOT NULL DEFAULT 'SKIP' CHECK (overlap IN ('SKIP', 'BUFFER_ONE', 'CANCEL_PREVIOUS', 'ALLOW')),
      ADD COLUMN max_concurrent_runs integer NOT NULL DEFAULT 1 CHECK (max_concurrent_runs >= 1),
      ADD COLUMN jitter_seconds integer NOT NULL DEFAULT 0 CHECK (jitter_seconds >= 0)`);
    this.addSql(`ALTER TABLE cron_job_runs
      ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt >= 1),
      ADD COLUMN retry_of uuid NULL,
      ADD COLUMN due_at timestamptz NULL,
      ADD COLUMN lane smallint NOT NULL DEFAULT 0`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_slot_unique');
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_scheduled_slot_unique
      ON cron_job_runs (job_definition_id, scheduled_at) WHERE trigger_type = 'SCHEDULED' AND attempt = 1`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_one_active_per_job');
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_one_active_per_lane
      ON cron_job_runs (job_definition_id, lane) WHERE status IN ('PENDING', 'RUNNING')`);
    // PENDING runs are claimed once due: at once (run-now), or at the end of a retry's backoff.
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_pending_created_idx');
    this.addSql(`CREATE INDEX cron_job_runs_pending_due_idx ON cron_job_runs ((coalesce(due_at, created_at))) WHERE status = 'PENDING'`);
    // Run.retryOf's inverse and the attempts of a slot.
    this.addSql('CREATE INDEX cron_job_runs_retry_of_idx ON cron_job_runs (retry_of) WHERE retry_of IS NOT NULL');
  }

  override async down(): Promise<void> {
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_retry_of_idx');
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_pending_due_idx');
    this.addSql(`CREATE INDEX cron_job_runs_pending_created_idx ON cron_job_runs (created_at) WHERE status = 'PENDING'`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_one_active_per_lane');
    this.addSql(`DELETE FROM cron_job_runs WHERE attempt > 1`);
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_one_active_per_job ON cron_job_runs (job_definition_id) WHERE status IN ('PENDING', 'RUNNING')`);
    this.addSql('DROP INDEX IF EXISTS cron_job_runs_scheduled_slot_unique');
    this.addSql(`CREATE UNIQUE INDEX cron_job_runs_scheduled_slot_unique ON cron_job_runs (job_definition_id, scheduled_at) WHERE trigger_type = 'SCHEDULED'`);
    this.addSql(`ALTER TABLE cron_job_runs DROP COLUMN attempt, DROP COLUMN retry_of, DROP COLUMN due_at, DROP COLUMN lane`);
    this.addSql(`ALTER TABLE cron_job_definitions DROP COLUMN retry_max_attempts, DROP COLUMN retry_backoff,
      DROP COLUMN retry_delay_seconds, DROP COLUMN retry_max_delay_seconds, DROP COLUMN retry_on, DROP COLUMN overlap,
      DROP COLUMN max_concurrent_runs, DROP COLUMN jitter_seconds`);
  }
}
