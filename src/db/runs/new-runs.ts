import { ROW_COLUMNS, S } from './vocabulary.js';

/** Expressions for the columns of new runs (SQL fragments over `s`, `j` and the parameters). */
export interface NewRunColumns {
  trigger: string;
  status: string;
  code: string;
  message: string;
  /** The instant of the change. */
  at: string;
  details?: string;
  /** RUNNING at once: the runner's instance id (inserted and claimed in one statement). */
  runner?: string;
  /** The run's lane. @default 0 */
  lane?: string;
  /** When the run is due, if not at its slot. @default NULL */
  due?: string;
  /** Extra conditions on the rows of `source`. */
  where?: string;
  /** The run's trace context (`Run.traceparent`). @default NULL (the column is not written) */
  traceparent?: string;
  /** The new run's id, when the statement needs to know it beforehand (a dependent's links). @default cron_run_id(): time-ordered (migration 20261130000000) */
  id?: string;
  /** Who asked for the run (`Run.triggeredBy`: MANUAL, AD_HOC, BACKFILL). @default NULL (the column is not written) */
  triggeredBy?: string;
  /**
   * A row that meets a unique index (the slot key, a busy lane) is left out (`ON CONFLICT DO
   * NOTHING`, every unique index an arbiter). False: the statement fails with a unique violation
   * instead, and changes nothing — a fifth cheaper in PostgreSQL's CPU, for a statement that
   * expects no conflict (fire.ts, `claimRunning`). @default true
   */
  skipConflicts?: boolean;
}

/**
 * The statement that creates runs (a slot's, a missed slot's, a run-now's; a retry is made by
 * the end rules): one row per (job, slot, payload) of `source`, a query that
 * yields `job_id`, `slot` and `payload` (null: the job's own payload) from the job rows `j`
 * it joins. Rows go in in (job, slot) order, so two instances inserting the same co-due slots
 * take their index locks in the same order and never deadlock each other.
 */
export function insertRuns(source: string, p: NewRunColumns, returning = ROW_COLUMNS): string {
  const running = p.runner !== undefined;
  return `INSERT INTO cron_job_runs (id, job_definition_id, job_key, job_version, target, payload_snapshot,
      trigger_type, scheduled_at, status, failure_code, failure_message, failure_details, started_at, runner_instance_id,
      finished_at, lane, due_at, created_at, updated_at, concurrency_pool${p.traceparent ? ', traceparent' : ''}${p.triggeredBy ? ', triggered_by' : ''})
    SELECT ${p.id ?? 'cron_run_id()'}, j.id, j.job_key, j.version, j.target, coalesce(s.payload, j.payload), ${p.trigger},
      s.slot, ${p.status}, ${p.code}, ${p.message}, ${p.details ?? 'NULL'}, ${running ? p.at : 'NULL'}, ${running ? p.runner : 'NULL'},
      CASE WHEN ${p.status} = ${S.SKIPPED} THEN ${p.at}::timestamptz END, ${p.lane ?? '0'}, ${p.due ?? 'NULL'}, ${p.at}, ${p.at}, j.concurrency_pool${p.traceparent ? `, ${p.traceparent}` : ''}${p.triggeredBy ? `, ${p.triggeredBy}` : ''}
    FROM ${source}
    ${p.where ? `WHERE ${p.where}` : ''}
    ORDER BY j.id, s.slot
    ${p.skipConflicts === false ? '' : 'ON CONFLICT DO NOTHING'}
    RETURNING ${returning}`;
}
