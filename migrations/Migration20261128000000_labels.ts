import { Migration } from '@mikro-orm/migrations';

/**
 * Labels, description and owner on jobs (docs/api.md, "Label selectors"; docs/job-settings.md).
 * Labels are jsonb, never null (`{}`: none), so a selector's negative terms (`NOT labels @> …`)
 * never meet a NULL.
 *
 * One GIN index (jsonb_ops: it serves `@>`, `?` and `?|`, which the selector's positive terms are
 * written with, db/label-selector-sql.ts) over every version, not only the live ones: a job list
 * filters versions of any status (RETIRED ones too, when asked), and the runs of a selector are
 * those of the versions that carried the labels when they ran, retired since or not. A partial
 * index on live versions would leave both to a full scan. Its size grows with versions, a few
 * entries each.
 */
export class Migration20261128000000_labels extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      ADD COLUMN labels jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(labels) = 'object'),
      ADD COLUMN description text,
      ADD COLUMN owner text`);
    this.addSql(`CREATE INDEX cron_job_definitions_labels_gin ON cron_job_definitions USING gin (labels)`);
  }
}
