import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log (docs/operations.md, "Audit log"): one row per change a mutation made, written in
 * the same transaction as the change, and `Run.triggeredBy` (who asked for a MANUAL, AD_HOC or
 * BACKFILL run). The indexes serve `auditLog`'s filters, each newest first (at, then id).
 */
export class Migration20261128020000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_audit_log (
      id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      at      timestamptz NOT NULL,
      actor   text NOT NULL,
      action  text NOT NULL,
      job_key text,
      subject text,
      details jsonb
    )`);
    this.addSql('CREATE INDEX cron_audit_log_at_idx ON cron_audit_log (at, id)');
    this.addSql('CREATE INDEX cron_audit_log_actor_idx ON cron_audit_log (actor, at, id)');
    this.addSql('CREATE INDEX cron_audit_log_job_idx ON cron_audit_log (job_key, at, id) WHERE job_key IS NOT NULL');
    this.addSql('CREATE INDEX cron_audit_log_action_idx ON cron_audit_log (action, at, id)');
    // Nullable without a default: no rewrite of the runs table.
    this.addSql('ALTER TABLE cron_job_runs ADD COLUMN triggered_by text');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_job_runs DROP COLUMN IF EXISTS triggered_by');
    this.addSql('DROP TABLE IF EXISTS cron_audit_log');
  }
}
