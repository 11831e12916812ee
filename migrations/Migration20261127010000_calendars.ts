import { Migration } from '@mikro-orm/migrations';

/**
 * Exclusion calendars (docs/behaviour.md, "Calendars"): `cron_calendars`, one row per name, and
 * the names a job version lists (`cron_job_definitions.calendars`, a setting of
 * domain/job-fields.ts). That a live job names only calendars that exist is the database's rule,
 * held by two triggers that lock the same row, so a job written and a calendar deleted at the same
 * moment cannot both succeed:
 * - a job version written with calendars locks each named calendar FOR KEY SHARE until its
 *   transaction ends, and fails (`cron_job_definitions_calendars_known`) when one does not exist;
 * - a calendar's DELETE locks its row first (a row trigger runs once the row is locked, so after
 *   any job transaction holding it has committed), then looks for live jobs naming it with a
 *   fresh snapshot, and fails (`cron_calendars_in_use`) when it finds one.
 * RETIRED versions keep their list (history) and do not count.
 */
export class Migration20261127010000_calendars extends Migration {
  override async up(): Promise<void> {
    this.addSql(`CREATE TABLE cron_calendars (
      name          text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$'),
      timezone      text NOT NULL DEFAULT 'UTC',
      description   text NULL,
      dates         text[] NOT NULL DEFAULT '{}',
      yearly        text[] NOT NULL DEFAULT '{}',
      daily_windows jsonb NOT NULL DEFAULT '[]',
      windows       jsonb NOT NULL DEFAULT '[]',
      created_at    timestamptz NOT NULL DEFAULT now(),
      updated_at    timestamptz NOT NULL DEFAULT now(),
      updated_by    text NULL
    )`);
    this.addSql(`ALTER TABLE cron_job_definitions ADD COLUMN calendars text[] NOT NULL DEFAULT '{}'`);
    // usedBy and the delete's check: the live versions naming a calendar.
    this.addSql(`CREATE INDEX cron_job_definitions_calendars_idx ON cron_job_definitions USING gin (calendars)
      WHERE status <> 'RETIRED' AND calendars <> '{}'`);
    this.addSql(`CREATE FUNCTION cron_job_calendars_known() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        missing text;
      BEGIN
        IF NEW.status = 'RETIRED' THEN
          RETURN NEW;
        END IF;
        -- Held until this transaction ends: a concurrent delete of one of them waits, then sees this job.
        PERFORM 1 FROM cron_calendars WHERE name = ANY (NEW.calendars) ORDER BY name FOR KEY SHARE;
        SELECT n INTO missing FROM unnest(NEW.calendars) AS n
          WHERE NOT EXISTS (SELECT 1 FROM cron_calendars c WHERE c.name = n) LIMIT 1;
        IF missing IS NOT NULL THEN
          RAISE EXCEPTION 'unknown calendar "%"', missing
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'cron_job_definitions_calendars_known', DETAIL = missing;
        END IF;
        RETURN NEW;
      END $$`);
    this.addSql(`CREATE TRIGGER cron_job_definitions_calendars_known
      BEFORE INSERT OR UPDATE OF calendars ON cron_job_definitions
      FOR EACH ROW WHEN (NEW.calendars <> '{}') EXECUTE FUNCTION cron_job_calendars_known()`);
    this.addSql(`CREATE FUNCTION cron_calendar_unused() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        user_key text;
      BEGIN
        SELECT job_key INTO user_key FROM cron_job_definitions
          WHERE status <> 'RETIRED' AND calendars <> '{}' AND calendars @> ARRAY[OLD.name] ORDER BY job_key LIMIT 1;
        IF user_key IS NOT NULL THEN
          RAISE EXCEPTION 'calendar "%" is used by job "%"', OLD.name, user_key
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'cron_calendars_in_use', DETAIL = user_key;
        END IF;
        RETURN OLD;
      END $$`);
    this.addSql(`CREATE TRIGGER cron_calendars_in_use BEFORE DELETE ON cron_calendars
      FOR EACH ROW EXECUTE FUNCTION cron_calendar_unused()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_calendars_known ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_calendars_known()');
    this.addSql('ALTER TABLE cron_job_definitions DROP COLUMN IF EXISTS calendars');
    this.addSql('DROP TABLE IF EXISTS cron_calendars');
    this.addSql('DROP FUNCTION IF EXISTS cron_calendar_unused()');
  }
}
