import { Migration } from '@mikro-orm/migrations';

/**
 * The cluster-wide maintenance duties (lost-run rescue, pending claims, retention, …) run on one
 * instance at a time: the one holding this lease, a row with an expiry on the database's clock
 * (src/db/maintenance-lease.ts; docs/operations.md, "Maintenance").
 */
export class Migration20261126010000_maintenance_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_maintenance_leases (
      name        text PRIMARY KEY,
      holder      text NOT NULL,
      acquired_at timestamptz NOT NULL,
      expires_at  timestamptz NOT NULL
    )`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TABLE IF EXISTS cron_maintenance_leases');
  }
}
