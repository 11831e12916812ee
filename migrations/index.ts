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

/** Every migration, in order. Append only. */
export const migrationsList = [
  { name: 'Migration20261122000000_initial', class: Migration20261122000000_initial },
  { name: 'Migration20261122010000_job_revision', class: Migration20261122010000_job_revision },
  { name: 'Migration20261124000000_self_healing', class: Migration20261124000000_self_healing },
  { name: 'Migration20261124100000_job_signals', class: Migration20261124100000_job_signals },
  { name: 'Migration20261124110000_health_index', class: Migration20261124110000_health_index },
  { name: 'Migration20261124120000_revision_on_change', class: Migration20261124120000_revision_on_change },
  { name: 'Migration20261124130000_job_fillfactor', class: Migration20261124130000_job_fillfactor },
  { name: 'Migration20261124140000_last_success_from_runs', class: Migration20261124140000_last_success_from_runs },
  { name: 'Migration20261124160000_job_policies', class: Migration20261124160000_job_policies },
  { name: 'Migration20261124170000_secrets', class: Migration20261124170000_secrets },
  { name: 'Migration20261124180000_capture_bytes', class: Migration20261124180000_capture_bytes },
  { name: 'Migration20261124190000_ownership', class: Migration20261124190000_ownership },
  { name: 'Migration20261125000000_lean_run_indexes', class: Migration20261125000000_lean_run_indexes },
  { name: 'Migration20261126000000_final_slot', class: Migration20261126000000_final_slot },
  { name: 'Migration20261126010000_maintenance_lease', class: Migration20261126010000_maintenance_lease },
];
