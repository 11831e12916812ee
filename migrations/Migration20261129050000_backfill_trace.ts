import { Migration } from '@mikro-orm/migrations';

/**
 * The W3C trace context of the `backfillJob` operation that asked for a backfill (docs/operations.md,
 * "Tracing"): its runs are created later, one slot at a time, by whichever instance moves the
 * backfill on, and each continues this context as a run-now continues its mutation's. Nullable, no
 * default: null while tracing is off (its runs then start a trace of their own when claimed).
 */
export class Migration20261129050000_backfill_trace extends Migration {
  override async up(): Promise<void> {
    this.addSql('ALTER TABLE cron_backfills ADD COLUMN traceparent text');
  }

  override async down(): Promise<void> {
    this.addSql('ALTER TABLE cron_backfills DROP COLUMN IF EXISTS traceparent');
  }
}
