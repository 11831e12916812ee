import { Migration20261122000000_initial } from './Migration20261122000000_initial.js';
import { Migration20261122010000_job_revision } from './Migration20261122010000_job_revision.js';
import { Migration20261124000000_self_healing } from './Migration20261124000000_self_healing.js';
import { Migration20261124100000_job_signals } from './Migration20261124100000_job_signals.js';
import { Migration20261124110000_health_index } from './Migration20261124110000_health_index.js';
import { Migration20261124120000_revision_on_change } from './Migration20261124120000_revision_on_change.js';
import { Migration20261124130000_job_fillfactor } from './Migration20261124130000_job_fillfactor.js';
import { Migration20261124140000_last_success_from_runs } from './Migration20261124140000_last_success_from_runs.js';
import { Migration20261124160000_job_policies } from './Migration20261124160000_job_policies.js';
import { Migration20261124170000_secrets } from './Migration20261124170000_secrets.js';
import { Migration20261124180000_capture_bytes } from './Migration20261124180000_capture_bytes.js';
import { Migration20261124190000_ownership } from './Migration20261124190000_ownership.js';
import { Migration20261125000000_lean_run_indexes } from './Migration20261125000000_lean_run_indexes.js';
import { Migration20261126000000_final_slot } from './Migration20261126000000_final_slot.js';
import { Migration20261126010000_maintenance_lease } from './Migration20261126010000_maintenance_lease.js';
import { Migration20261127000000_schedule_kinds } from './Migration20261127000000_schedule_kinds.js';
import { Migration20261127010000_calendars } from './Migration20261127010000_calendars.js';
import { Migration20261127020000_backfills } from './Migration20261127020000_backfills.js';
import { Migration20261127030000_pause_until_skip } from './Migration20261127030000_pause_until_skip.js';
import { Migration20261127040000_run_logs } from './Migration20261127040000_run_logs.js';
import { Migration20261127050000_heartbeats } from './Migration20261127050000_heartbeats.js';
import { Migration20261127060000_trace_ids } from './Migration20261127060000_trace_ids.js';
import { Migration20261127070000_notification_channels } from './Migration20261127070000_notification_channels.js';
import { Migration20261128000000_labels } from './Migration20261128000000_labels.js';
import { Migration20261128010000_api_tokens } from './Migration20261128010000_api_tokens.js';
import { Migration20261128020000_audit_log } from './Migration20261128020000_audit_log.js';
import { Migration20261128030000_dependencies } from './Migration20261128030000_dependencies.js';
import { Migration20261128040000_concurrency_pools } from './Migration20261128040000_concurrency_pools.js';
import { Migration20261128060000_lean_fire } from './Migration20261128060000_lean_fire.js';
import { Migration20261129050000_backfill_trace } from './Migration20261129050000_backfill_trace.js';
import { Migration20261130000000_fire_run_indexes } from './Migration20261130000000_fire_run_indexes.js';

import type { Migration } from '@mikro-orm/migrations';
import { MIGRATION_NAMES, type MigrationName } from './names.js';

/** Each migration's class, by its name (names.ts holds the order). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const classes: Record<MigrationName, new (...args: any[]) => Migration> = {
  Migration20261122000000_initial,
  Migration20261122010000_job_revision,
  Migration20261124000000_self_healing,
  Migration20261124100000_job_signals,
  Migration20261124110000_health_index,
  Migration20261124120000_revision_on_change,
  Migration20261124130000_job_fillfactor,
  Migration20261124140000_last_success_from_runs,
  Migration20261124160000_job_policies,
  Migration20261124170000_secrets,
  Migration20261124180000_capture_bytes,
  Migration20261124190000_ownership,
  Migration20261125000000_lean_run_indexes,
  Migration20261126000000_final_slot,
  Migration20261126010000_maintenance_lease,
  Migration20261127000000_schedule_kinds,
  Migration20261127010000_calendars,
  Migration20261127020000_backfills,
  Migration20261127030000_pause_until_skip,
  Migration20261127040000_run_logs,
  Migration20261127050000_heartbeats,
  Migration20261127060000_trace_ids,
  Migration20261127070000_notification_channels,
  Migration20261128000000_labels,
  Migration20261128010000_api_tokens,
  Migration20261128020000_audit_log,
  Migration20261128030000_dependencies,
  Migration20261128040000_concurrency_pools,
  Migration20261128060000_lean_fire,
  Migration20261129050000_backfill_trace,
  Migration20261130000000_fire_run_indexes,
};

/** Every migration, in order. Append only: a new one's name goes in names.ts, its class here. */
export const migrationsList = MIGRATION_NAMES.map((name) => ({ name, class: classes[name] }));
