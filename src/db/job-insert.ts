import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { JobStatus } from '../domain/enums.js';
import { JOB_SETTINGS, SETTING_NAMES } from '../domain/job-fields.js';
import { RETRY_PARTS, type JobDefinitionFields, type JobRecord } from '../domain/job.js';
import { rowToJobRecord } from './job-loading.js';
import { Channel } from './notifier.js';

/** A new version 1 of a key, as the services validated it. */
export interface NewJobRow {
  key: string;
  fields: JobDefinitionFields & { finalSlotAt: Date | null };
}

/**
 * The columns a new job row is written with, and how each is read from a validated definition:
 * the settings' columns from the settings table (domain/job-fields.ts), the retry policy as its
 * five columns. What the database fills itself (revision, consecutive failures, active_since by
 * trigger) is not listed.
 */
const COLUMNS: [column: string, value: (row: NewJobRow, actor: string | null, now: Date) => unknown][] = [
  ['id', () => randomUUID()],
  ['job_key', (r) => r.key],
  ['version', () => 1],
  ['target', (r) => r.fields.target],
  ['schedule_type', (r) => r.fields.scheduleType],
  ['cron_expression', (r) => r.fields.cronExpression],
  ['run_at', (r) => r.fields.runAt],
  ['final_slot_at', (r) => r.fields.finalSlotAt],
  ['timezone', (r) => r.fields.timezone],
  ['status', () => JobStatus.ACTIVE],
  ...SETTING_NAMES.flatMap((name): [string, (row: NewJobRow) => unknown][] => {
    const spec = JOB_SETTINGS[name];
    if (spec.kind === 'retry') {
      return Object.entries(RETRY_PARTS).map(([part, [, column]]) => [column, (r: NewJobRow) => r.fields.retry?.[part as keyof typeof RETRY_PARTS] ?? null]);
    }
    // jsonb: the JSON text, so that an array is not taken for a PostgreSQL array.
    if (spec.kind === 'json') return [[spec.column, (r: NewJobRow) => (r.fields[name] == null ? null : JSON.stringify(r.fields[name]))]];
    return [[spec.column, (r: NewJobRow) => r.fields[name]]];
  }),
  ['created_by', (_, actor) => actor],
  ['updated_by', (_, actor) => actor],
  ['created_at', (_, __, now) => now],
  ['updated_at', (_, __, now) => now],
];

/** PostgreSQL's code for a unique violation, and the key it names in its detail. */
const UNIQUE_VIOLATION = '23505';
const KEY_IN_DETAIL = /^Key \(job_key, version\)=\((.*), 1\) already exists/;

/** A new key's version 1 collided with an existing one: `key` is the key PostgreSQL named. */
export class KeyTaken extends Error {
  constructor(readonly key: string | null) {
    super(`job key ${key ?? '(unknown)'} exists already`);
  }
}

/**
 * Inserts version 1 of each key, ACTIVE, and notifies every instance of each new job, in ONE
 * statement: the rows and their NOTIFYs commit together (autocommit, or the caller's
 * transaction), in one round trip, whatever the number of rows. Returns the records in the order
 * given. @throws KeyTaken when a key has a version 1 already (nothing is inserted).
 */
export async function insertJobs(db: pg.Pool | pg.PoolClient, rows: readonly NewJobRow[], actor: string | null, now: Date): Promise<JobRecord[]> {
  if (rows.length === 0) return [];
  const params: unknown[] = [];
  const values = rows.map((row) => `(${COLUMNS.map(([, value]) => `$${params.push(value(row, actor, now))}`).join(', ')})`);
  const sql = `WITH ins AS (
      INSERT INTO cron_job_definitions (${COLUMNS.map(([c]) => c).join(', ')}) VALUES ${values.join(', ')} RETURNING *),
    sent AS (SELECT pg_notify($${params.push(Channel.JOB_CHANGED)}, id::text) FROM ins)
    SELECT ins.*, (SELECT count(*) FROM sent) AS notified FROM ins`;
  let res: pg.QueryResult;
  try {
    res = await db.query(sql, params);
  } catch (err) {
    const e = err as { code?: string; detail?: string };
    if (e.code === UNIQUE_VIOLATION) throw new KeyTaken(KEY_IN_DETAIL.exec(e.detail ?? '')?.[1] ?? null);
    throw err;
  }
  const byKey = new Map(res.rows.map((r) => [r.job_key as string, rowToJobRecord(r)]));
  return rows.map((r) => byKey.get(r.key)!);
}
