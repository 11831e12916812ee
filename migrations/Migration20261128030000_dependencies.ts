import { Migration } from '@mikro-orm/migrations';

/**
 * Jobs that follow jobs (docs/behaviour.md, "Jobs that follow jobs"):
 * - AFTER jobs: the schedule-type CHECK gains AFTER; `after_jobs` (a list of `{ jobKey, on }`,
 *   non-empty exactly for AFTER jobs), `after_mode` and `after_window_seconds`;
 * - a run of an AFTER job has trigger DEPENDENCY (the runs' trigger-type CHECK admits it), and
 *   `cron_run_upstreams` links it to the upstream runs whose ends created it (`Run.upstreamRuns`);
 *   a link goes with either run when retention prunes it;
 * - `cron_job_upstreams`: the edges of the graph, one row per (upstream key, AFTER job version,
 *   outcome), written by the trigger below with the version: what a run's end looks up by the
 *   run's key (a btree probe — nothing to find costs next to nothing where no job follows it);
 * - `cron_after_arrivals`: an ALL job's upstreams ended as asked since its last run, one row per
 *   AFTER job key (upstream key → { run, at }), made with its first version. One row, so that two
 *   upstreams ending at once on two instances update the same row one after the other: the
 *   second sees the first's arrival and exactly one of them completes the set, which `fired`
 *   returns (db/runs/dependency-rules.ts);
 * - the graph holds in the database: a trigger refuses a job version naming an upstream key no
 *   job has (`cron_job_definitions_after_known`) or closing a cycle through any number of jobs
 *   (`cron_job_definitions_after_acyclic`). Every write that adds an edge takes one advisory
 *   lock first, so two writes that would close a cycle together are checked one after the other,
 *   the second seeing the first (a cycle needs every job in it to have upstreams, so writes of
 *   jobs without any never wait).
 */
export class Migration20261128030000_dependencies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`ALTER TABLE cron_job_definitions
      DROP CONSTRAINT IF EXISTS cron_job_definitions_schedule_type_check,
      ADD CONSTRAINT cron_job_definitions_schedule_type_check CHECK (schedule_type IN ('ONE_TIME', 'RECURRING', 'INTERVAL', 'AFTER')),
      ADD COLUMN after_jobs jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(after_jobs) = 'array'),
      ADD COLUMN after_mode text NOT NULL DEFAULT 'ANY' CHECK (after_mode IN ('ANY', 'ALL')),
      ADD COLUMN after_window_seconds integer NULL CHECK (after_window_seconds BETWEEN 1 AND 2678400),
      ADD CONSTRAINT cron_job_definitions_after_check CHECK ((schedule_type = 'AFTER') = (after_jobs <> '[]'::jsonb))`);
    this.addSql(`ALTER TABLE cron_job_runs DROP CONSTRAINT IF EXISTS cron_job_runs_trigger_type_check`);
    this.addSql(`ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_trigger_type_check
      CHECK (trigger_type IN ('SCHEDULED', 'MANUAL', 'AD_HOC', 'BACKFILL', 'DEPENDENCY')) NOT VALID`);
    this.addSql(`ALTER TABLE cron_job_runs VALIDATE CONSTRAINT cron_job_runs_trigger_type_check`);
    this.addSql(`
      CREATE TABLE cron_run_upstreams (
        run_id          uuid NOT NULL REFERENCES cron_job_runs (id) ON DELETE CASCADE,
        upstream_run_id uuid NOT NULL REFERENCES cron_job_runs (id) ON DELETE CASCADE,
        PRIMARY KEY (run_id, upstream_run_id)
      )`);
    this.addSql(`CREATE INDEX cron_run_upstreams_upstream_idx ON cron_run_upstreams (upstream_run_id)`);
    this.addSql(`
      CREATE TABLE cron_job_upstreams (
        upstream_key text NOT NULL,
        job_definition_id uuid NOT NULL REFERENCES cron_job_definitions (id) ON DELETE CASCADE,
        outcome      text NOT NULL CHECK (outcome IN ('SUCCEEDED', 'FAILED', 'ANY')),
        PRIMARY KEY (upstream_key, job_definition_id)
      )`);
    this.addSql(`CREATE INDEX cron_job_upstreams_job_idx ON cron_job_upstreams (job_definition_id)`);
    this.addSql(`
      CREATE TABLE cron_after_arrivals (
        job_key  text PRIMARY KEY,
        arrivals jsonb NOT NULL DEFAULT '{}',
        fired    jsonb NULL
      )`);
    this.addSql(`
      CREATE FUNCTION cron_job_definitions_after_graph() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        missing text;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended('cronql.dependencies', 0));
        SELECT e->>'jobKey' INTO missing FROM jsonb_array_elements(NEW.after_jobs) e
          WHERE NOT EXISTS (SELECT 1 FROM cron_job_definitions d WHERE d.job_key = e->>'jobKey') LIMIT 1;
        IF missing IS NOT NULL THEN
          RAISE EXCEPTION 'no job has the key %', missing
            USING ERRCODE = '23503', CONSTRAINT = 'cron_job_definitions_after_known', DETAIL = missing;
        END IF;
        -- Every key reachable upstream from the new version, through each key's live version.
        IF EXISTS (
          WITH RECURSIVE reach(key) AS (
            SELECT e->>'jobKey' FROM jsonb_array_elements(NEW.after_jobs) e
            UNION
            SELECT u->>'jobKey' FROM reach
              JOIN LATERAL (SELECT d.after_jobs FROM cron_job_definitions d
                WHERE d.job_key = reach.key AND d.status <> 'RETIRED' ORDER BY d.version DESC LIMIT 1) live ON true,
              jsonb_array_elements(live.after_jobs) u)
          SELECT 1 FROM reach WHERE key = NEW.job_key) THEN
          RAISE EXCEPTION 'job % would follow itself', NEW.job_key
            USING ERRCODE = '23514', CONSTRAINT = 'cron_job_definitions_after_acyclic', DETAIL = NEW.job_key;
        END IF;
        INSERT INTO cron_after_arrivals (job_key) VALUES (NEW.job_key) ON CONFLICT DO NOTHING;
        RETURN NEW;
      END $$`);
    // Versions are new rows (a job's upstreams never change in place): checked on INSERT.
    this.addSql(`CREATE TRIGGER cron_job_definitions_after_graph BEFORE INSERT ON cron_job_definitions
      FOR EACH ROW WHEN (NEW.after_jobs <> '[]'::jsonb) EXECUTE FUNCTION cron_job_definitions_after_graph()`);
    // The edges, once the row is in (their key references it).
    this.addSql(`
      CREATE FUNCTION cron_job_definitions_after_edges() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO cron_job_upstreams (upstream_key, job_definition_id, outcome)
          SELECT e->>'jobKey', NEW.id, coalesce(e->>'on', 'SUCCEEDED') FROM jsonb_array_elements(NEW.after_jobs) e;
        RETURN NULL;
      END $$`);
    this.addSql(`CREATE TRIGGER cron_job_definitions_after_edges AFTER INSERT ON cron_job_definitions
      FOR EACH ROW WHEN (NEW.after_jobs <> '[]'::jsonb) EXECUTE FUNCTION cron_job_definitions_after_edges()`);
  }

  override async down(): Promise<void> {
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_after_edges ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_definitions_after_edges()');
    this.addSql('DROP TRIGGER IF EXISTS cron_job_definitions_after_graph ON cron_job_definitions');
    this.addSql('DROP FUNCTION IF EXISTS cron_job_definitions_after_graph()');
    this.addSql('DROP TABLE IF EXISTS cron_after_arrivals');
    this.addSql('DROP TABLE IF EXISTS cron_job_upstreams');
    this.addSql('DROP TABLE IF EXISTS cron_run_upstreams');
    this.addSql(`DELETE FROM cron_job_runs WHERE trigger_type = 'DEPENDENCY'`);
    this.addSql(`ALTER TABLE cron_job_runs DROP CONSTRAINT IF EXISTS cron_job_runs_trigger_type_check`);
    this.addSql(`ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_trigger_type_check
      CHECK (trigger_type IN ('SCHEDULED', 'MANUAL', 'AD_HOC', 'BACKFILL'))`);
    this.addSql(`DELETE FROM cron_job_definitions WHERE schedule_type = 'AFTER'`);
    this.addSql(`ALTER TABLE cron_job_definitions
      DROP CONSTRAINT cron_job_definitions_after_check,
      DROP COLUMN after_jobs, DROP COLUMN after_mode, DROP COLUMN after_window_seconds,
      DROP CONSTRAINT cron_job_definitions_schedule_type_check,
      ADD CONSTRAINT cron_job_definitions_schedule_type_check CHECK (schedule_type IN ('ONE_TIME', 'RECURRING', 'INTERVAL'))`);
  }
}
