/**
 * Every migration's name, in order: what a start compares with the names the database recorded
 * (db/migration-state.ts) without loading the migrations themselves or MikroORM's migrator. Append
 * only; index.ts maps each name to its class (a name without one does not compile).
 */
export const MIGRATION_NAMES = [
  'Migration20261122000000_initial',
  'Migration20261122010000_job_revision',
  'Migration20261124000000_self_healing',
  'Migration20261124100000_job_signals',
  'Migration20261124110000_health_index',
  'Migration20261124120000_revision_on_change',
  'Migration20261124130000_job_fillfactor',
  'Migration20261124140000_last_success_from_runs',
  'Migration20261124160000_job_policies',
  'Migration20261124170000_secrets',
  'Migration20261124180000_capture_bytes',
  'Migration20261124190000_ownership',
  'Migration20261125000000_lean_run_indexes',
  'Migration20261126000000_final_slot',
  'Migration20261126010000_maintenance_lease',
  'Migration20261127000000_schedule_kinds',
  'Migration20261127010000_calendars',
  'Migration20261127020000_backfills',
  'Migration20261127030000_pause_until_skip',
  'Migration20261127040000_run_logs',
  'Migration20261127050000_heartbeats',
  'Migration20261127060000_trace_ids',
  'Migration20261127070000_notification_channels',
  'Migration20261128000000_labels',
  'Migration20261128010000_api_tokens',
  'Migration20261128020000_audit_log',
  'Migration20261128030000_dependencies',
  'Migration20261128040000_concurrency_pools',
  'Migration20261128060000_lean_fire',
  'Migration20261129050000_backfill_trace',
  'Migration20261130000000_fire_run_indexes',
] as const;

export type MigrationName = (typeof MIGRATION_NAMES)[number];
