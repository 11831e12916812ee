import type pg from 'pg';
import type { JobStatus } from '../domain/enums.js';
import type { JobRecord } from '../domain/job.js';
import type { LabelSelector } from '../domain/label-selector.js';
import { labelSelectorSql } from './label-selector-sql.js';
import { rowToJobRecord } from './job-loading.js';
import { S } from './runs/vocabulary.js';
import { Channel } from './notifier.js';
import type { Pool } from './pool.js';
import { auditFromRows, type AuditBy } from './audit.js';

/** A pool, or a client inside the caller's transaction. */
type Db = Pick<Pool, 'query'> | pg.ClientBase;

/** What a bulk change sets on each job it changes (pause: PAUSED with a reason and an end; resume: RESUMED). */
export interface BulkChange {
  status: JobStatus;
  pauseReason: string | null;
  pausedUntil: Date | null;
  /** Set (resume: 0, as resumeJob does), or left as is (undefined). */
  consecutiveFailures?: number;
}

/**
 * Changes every live version in `from` whose labels match `selector`, and notifies every instance
 * of each (the NOTIFY that pauseJob's and resumeJob's writes send), in ONE statement: the rows and
 * their notifications commit together, and a job changed meanwhile by another writer is either
 * changed here or not matched (its row is locked by the UPDATE; its status re-checked after the
 * wait), with one audit entry per job changed (db/audit.ts: as pauseJob's and resumeJob's, its
 * version and new status in the details beside `audit.details`). Returns the changed records.
 */
export async function changeJobsBySelector(
  db: Db,
  selector: LabelSelector,
  from: readonly JobStatus[],
  change: BulkChange,
  actor: string | null,
  now: Date,
  audit: AuditBy & { details?: Record<string, unknown> | null },
): Promise<JobRecord[]> {
  const params: unknown[] = [];
  const p = (value: unknown) => `$${params.push(value)}`;
  const sets = [
    `status = ${p(change.status)}`,
    `pause_reason = ${p(change.pauseReason)}`,
    `paused_until = ${p(change.pausedUntil)}::timestamptz`,
    ...(change.consecutiveFailures === undefined ? [] : [`consecutive_failures = ${p(change.consecutiveFailures)}::int`]),
    `updated_by = ${p(actor)}`,
    `updated_at = ${p(now)}`,
  ];
  const where = `j.status = ANY(${p(from)}::text[]) AND ${labelSelectorSql('j.labels', selector, params)}`;
  const res = await db.query(
    `WITH changed AS (
       UPDATE cron_job_definitions j SET ${sets.join(', ')} WHERE ${where}
       RETURNING j.*, (SELECT max(r.finished_at) FROM cron_job_runs r WHERE r.job_definition_id = j.id AND r.status = ${S.SUCCEEDED}) AS last_success_at
     ), sent AS (SELECT pg_notify(${p(Channel.JOB_CHANGED)}, id::text) FROM changed),
     audit AS (${auditFromRows({
       from: 'changed',
       at: p(now),
       actor: `${p(audit.actor)}::text`,
       action: `${p(audit.action)}::text`,
       jobKey: 'changed.job_key',
       subject: 'changed.id::text',
       details: `(${p(JSON.stringify(audit.details ?? {}))}::jsonb || jsonb_build_object('version', changed.version, 'status', changed.status))`,
     })})
     SELECT changed.*, (SELECT count(*) FROM sent) AS notified FROM changed`,
    params,
  );
  return res.rows.map(rowToJobRecord);
}
