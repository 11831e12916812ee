import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { JOB_SETTINGS, SETTING_NAMES } from '../domain/job-fields.js';
import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { JobStatus, type ScheduleType } from '../domain/enums.js';
import { entityReader, jobSnapshot, RETRY_PARTS, type JobDefinitionFields, type JobRecord } from '../domain/job.js';
import { JobDefinition } from './entities/job-definition.entity.js';
import { Channel } from './notifier.js';
import { auditFromRows, writeAuditOrm, type AuditBy } from './audit.js';
import { inTransaction, type Query } from './runs/context.js';
import { dependencyRefusalIn, JobWriteRefused, unknownCalendarIn } from './job-write-refused.js';
import { LAST_SUCCESS_AT, loadJobRecords, loadNewestByKeys, rowToJobRecord } from './job-loading.js';
import { listJobs, type JobQuery } from './job-list.js';
import { changeJobsBySelector, type BulkChange } from './bulk-job-changes.js';
import type { LabelSelector } from '../domain/label-selector.js';
import { UNIQUE_VIOLATION, isDatabaseUnavailable, type Pool } from './pool.js';
import { GroupCommit, type Outcome } from './group-commit.js';

/** The fields of a new job version that the services validated. */
export type JobFields = JobDefinitionFields & Pick<JobDefinition, 'finalSlotAt'>;

/** `cron_expressions` holds the list only when there are several (one is `cron_expression` alone). */
const storedExpressions = (list: readonly string[] | null | undefined): string[] | null => (list && list.length > 1 ? [...list] : null);

/** A state change of a job the caller asked for (its status, and what goes with it). */
export type JobChange = Partial<Pick<JobRecord, 'status' | 'pauseReason' | 'pausedUntil' | 'consecutiveFailures' | 'skipRemaining' | 'skipReason'>>;

export type { JobQuery } from './job-list.js';

/** The audit entry a job write records with its change (db/audit.ts): who, by which mutation, and what changed. */
export interface JobAudit extends AuditBy {
  details?: Record<string, unknown> | null;
}


/**
 * Every property of the entity is a field of the record, but for the relation (its id) and the
 * retry columns (one `retry` policy): a column added to the entity fails to compile here until
 * the record and `toJobRecord` carry it.
 */
type Unmapped = Exclude<keyof JobDefinition, keyof JobRecord | 'supersedes' | `retry${Capitalize<string>}`>;
const everyColumnMapped: [Unmapped] extends [never] ? true : Unmapped = true;
void everyColumnMapped;

/** The plain record of an entity: what leaves the data layer (no ORM session, no lazy relation). */
export function toJobRecord(job: JobDefinition): JobRecord {
  return {
    // What the runtime sees, read the one way every job is read (domain/job.ts), …
    ...jobSnapshot(entityReader(job)),
    // … and what the API shows beside it.
    finalSlotAt: job.finalSlotAt ?? null,
    consecutiveFailures: job.consecutiveFailures,
    lastSuccessAt: job.lastSuccessAt ?? null,
    lastFailureAt: job.lastFailureAt ?? null,
    pauseReason: job.pauseReason ?? null,
    skipRemaining: job.skipRemaining,
    skipReason: job.skipReason ?? null,
    supersedesId: job.supersedes?.id ?? null,
    createdBy: job.createdBy ?? null,
    updatedBy: job.updatedBy ?? null,
    createdAt: job.createdAt,
  };
}

export { JobWriteRefused, type JobWriteRefusal } from './job-write-refused.js';

/** What the services use of the job store: its public methods (a store opened lazily has the same). */
export type JobStoreApi = { [K in keyof JobStore]: JobStore[K] };

/**
 * Job definitions in the database: the reads the API serves, and the writer of their state by the admin's hand (creating, versioning, pausing,
 * resuming, retiring). Each write is one transaction: a conditional update on the expected state
 * (two admins or instances cannot both win), the NOTIFY that tells every scheduler instance, and
 * then `publish` with the rows it changed — the one place this process's own runtime hears of
 * it. What a job becomes because of its runs (signals, auto-pause, a one-time job's retirement) is
 * written with the run's end, by the run store, in the same statement.
 */
export class JobStore {
  constructor(
    private readonly orm: MikroORM,
    /** The process's pool (the ORM's connections are its): new jobs are one plain statement. */
    private readonly pool: Pool,
    /** Told of every job row a write changed, after its transaction committed. */
    private readonly publish: (jobs: readonly JobRecord[]) => void,
  ) {}

  private em(): EntityManager {
    return this.orm.em.fork();
  }

  /** One version by id (a uuid). */
  async get(id: string): Promise<JobRecord | null> {
    return (await loadJobRecords(this.pool, [id]))[0] ?? null;
  }

  /** The versions with these ids (uuids), in no particular order. */
  async getMany(ids: readonly string[]): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    return loadJobRecords(this.pool, ids);
  }

  /** The newest version of each of these keys (`loadNewestByKeys`). */
  async newestByKeys(keys: readonly string[]): Promise<JobRecord[]> {
    return loadNewestByKeys(this.pool, keys);
  }

  /** The versions that replaced these ones (uuids). */
  async successorsOf(ids: readonly string[]): Promise<JobRecord[]> {
    if (ids.length === 0) return [];
    return (await this.em().find(JobDefinition, { supersedes: { $in: [...ids] } })).map(toJobRecord);
  }

  /**
   * Up to `limit` versions matching `query` after `position`, newest first (createdAt, then id),
   * and how many match in all.
   */
  async list(query: JobQuery, position: { at: Date; id: string } | undefined, limit: number): Promise<{ rows: JobRecord[]; total: number }> {
    return listJobs(this.pool, query, position, limit);
  }

  /**
   * Version 1 of a new key, ACTIVE, with its audit entry and the NOTIFY that arms it: what one
   * `createMany` of it writes. Concurrent calls share a statement (a group commit, `createTogether`),
   * each answered on its own. @throws JobWriteRefused('KEY_EXISTS') and the refusals of `createMany`
   */
  async create(key: string, fields: JobFields, actor: string | null, now: Date, audit: AuditBy): Promise<JobRecord> {
    return this.creations.add({ row: { key, fields: { ...fields, finalSlotAt: fields.finalSlotAt ?? null } }, actor, now, audit });
  }

  private readonly creations = new GroupCommit<NewJobWrite, JobRecord>((writes) => this.createTogether(writes), MAX_CREATIONS_TOGETHER);

  /**
   * The new jobs of several `create` calls in one statement, each caller answered as if it had
   * been alone: a key taken (before, or by an earlier call of the same batch) is KEY_EXISTS for
   * that caller only. A statement refused for one row's sake (an unknown calendar, pool or
   * upstream: the database's triggers refuse the whole statement) is tried again in halves, in
   * the callers' order, until the refusal is its own caller's alone; an unreachable database
   * fails them all (each would fail alone too).
   */
  private async createTogether(writes: NewJobWrite[]): Promise<Outcome<JobRecord>[]> {
    const first = new Map<string, NewJobWrite>();
    for (const w of writes) if (!first.has(w.row.key)) first.set(w.row.key, w);
    const distinct = [...first.values()];
    let written: (JobRecord | null)[];
    try {
      written = await insertJobsSkippingTaken(this.pool, distinct);
    } catch (err) {
      if (writes.length === 1 || isDatabaseUnavailable(err)) {
        const error = err instanceof KeyTaken ? new JobWriteRefused('KEY_EXISTS', err.key) : err;
        return writes.map(() => ({ ok: false, error }));
      }
      const half = Math.ceil(writes.length / 2);
      return [...(await this.createTogether(writes.slice(0, half))), ...(await this.createTogether(writes.slice(half)))];
    }
    const records = written.filter((r): r is JobRecord => r !== null);
    if (records.length) this.publish(records);
    const created = new Map(distinct.map((w, i) => [w, written[i]]));
    return writes.map((w) => {
      const record = created.get(w);
      return record ? { ok: true, value: record } : { ok: false, error: new JobWriteRefused('KEY_EXISTS', w.row.key) };
    });
  }

  /**
   * Version 1 of each new key, ACTIVE, all or none: one statement writes the rows and the NOTIFY
   * that arms each on every instance (`insertJobs` below; no ORM unit of work, which cost more than
   * the statement). @throws JobWriteRefused('KEY_EXISTS', key) when a key has a version 1 already
   * (unique (job_key, version)), whoever created it when; nothing is written then. One audit entry
   * per job, by the same statement.
   */
  async createMany(rows: readonly NewJobRow[], actor: string | null, now: Date, audit: AuditBy): Promise<JobRecord[]> {
    let records: JobRecord[];
    try {
      records = await insertJobs(this.pool, rows, actor, now, audit);
    } catch (err) {
      if (err instanceof KeyTaken) throw new JobWriteRefused('KEY_EXISTS', err.key);
      throw err;
    }
    this.publish(records);
    return records;
  }

  /**
   * Retires each `old` and activates its next version, all or none, in one transaction (one
   * statement retires them all, one inserts the new versions with their audit entries): what
   * createJobVersion writes for one job and createJobVersions for a batch. Returns [retired,
   * created] per item, in the order given. Each new version is ACTIVE, `old.version + 1`, and
   * supersedes `old`; every instance is told of both rows (NOTIFY, the retired ones first).
   * @throws JobWriteRefused('NOT_IN_STATE', key) when an `old` is RETIRED by now,
   * ('CONCURRENT', key) when another version of its key was made meanwhile, and the refusals of
   * `createMany` (an unknown calendar, pool or upstream, a cycle); nothing is written then.
   */
  async supersedeMany(items: readonly NewVersion[], actor: string | null, now: Date, audit: AuditBy): Promise<[JobRecord, JobRecord][]> {
    if (items.length === 0) return [];
    const pairs = await inTransaction(this.pool, async (q) => {
      const retired = await retireReplaced(q, items.map((i) => i.old.id), actor, now);
      if (retired.length < items.length) {
        const done = new Set(retired.map((r) => r.id));
        throw new JobWriteRefused('NOT_IN_STATE', items.find((i) => !done.has(i.old.id))!.old.jobKey);
      }
      let created: (JobRecord | null)[];
      try {
        created = await insertNewJobs(
          { query: q },
          items.map(({ old, fields, details }) => ({
            row: { key: old.jobKey, version: old.version + 1, supersedesId: old.id, fields: { ...fields, finalSlotAt: fields.finalSlotAt ?? null } },
            actor,
            now,
            audit,
            // The entry of createJobVersion: what the caller said (the fields' names), the version made, the one it replaces.
            details: { ...details, version: old.version + 1, replaces: old.id },
          })),
          'refuse',
        );
      } catch (err) {
        // Unique (job_key, version) or one live version per key: another version of the key was made meanwhile.
        if (err instanceof KeyTaken) throw new JobWriteRefused('CONCURRENT', err.key);
        throw err;
      }
      const byId = new Map(retired.map((r) => [r.id, r]));
      return items.map(({ old }, i): [JobRecord, JobRecord] => [byId.get(old.id)!, created[i]!]);
    });
    this.publish(pairs.flat());
    return pairs;
  }

  /**
   * Changes every version in `from` whose labels match `selector`, in one statement with the
   * notifications that tell every instance (db/bulk-job-changes.ts); returns the changed records.
   */
  async changeBySelector(selector: LabelSelector, from: JobStatus[], change: BulkChange, actor: string | null, now: Date, audit: JobAudit): Promise<JobRecord[]> {
    const records = await changeJobsBySelector(this.pool, selector, from, change, actor, now, audit);
    if (records.length) this.publish(records);
    return records;
  }

  /**
   * `change` if the job's status is one of `from` (and, with `pausedUntil`, its pause still ends
   * then: a pause that ends by itself is resumed only if nobody changed it meanwhile); the updated
   * row, or null when it was not. The change's audit entry is written in its transaction.
   */
  async transition(id: string, from: JobStatus[], change: JobChange, actor: string | null, now: Date, audit: JobAudit, pausedUntil?: Date): Promise<JobRecord | null> {
    let updated: JobDefinition | null = null;
    await this.em().transactional(async (tx) => {
      const where: FilterQuery<JobDefinition> = pausedUntil ? { id, status: { $in: from }, pausedUntil } : { id, status: { $in: from } };
      const n = await tx.nativeUpdate(JobDefinition, where, { ...change, updatedBy: actor, updatedAt: now });
      if (n === 0) return;
      updated = await tx.findOne(JobDefinition, { id }, { refresh: true });
      await writeAuditOrm(tx, [{ ...audit, jobKey: updated!.jobKey, subject: id, details: { ...audit.details, version: updated!.version, status: updated!.status } }], now);
      await notify(tx, id);
    });
    if (!updated) return null;
    const record = toJobRecord(updated);
    this.publish([record]);
    return record;
  }
}

function notify(em: EntityManager, jobId: string): Promise<unknown> {
  return em.execute('SELECT pg_notify(?, ?)', [Channel.JOB_CHANGED, jobId]);
}

// --- New jobs: one statement for the rows and their notifications -------------------------------

/**
 * The most `createJob`s written by one statement: 500 rows of the columns below stay well under
 * PostgreSQL's 65,535 parameters, and a batch that large already costs one commit for hundreds.
 */
const MAX_CREATIONS_TOGETHER = 500;

/** A new job row, as the services validated it: version 1 of a new key, or (`supersedeMany`) the next version of a live one. */
export interface NewJobRow {
  key: string;
  fields: JobDefinitionFields & { finalSlotAt: Date | null };
  /** 1 unless given. */
  version?: number;
  /** The version it replaces (retired in the same transaction). */
  supersedesId?: string | null;
}

/** A new version of a live job: the version it replaces, its validated fields, and what its audit entry says beside the version. */
export interface NewVersion {
  old: JobRecord;
  fields: JobFields;
  details?: Record<string, unknown>;
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
  ['version', (r) => r.version ?? 1],
  ['supersedes_job_id', (r) => r.supersedesId ?? null],
  ['target', (r) => r.fields.target],
  ['schedule_type', (r) => r.fields.scheduleType],
  ['cron_expression', (r) => r.fields.cronExpression],
  ['run_at', (r) => r.fields.runAt],
  ['cron_expressions', (r) => storedExpressions(r.fields.cronExpressions)],
  ['every_ms', (r) => r.fields.everyMs],
  ['anchor_at', (r) => r.fields.anchorAt],
  ['start_at', (r) => r.fields.startAt],
  ['end_at', (r) => r.fields.endAt],
  ['final_slot_at', (r) => r.fields.finalSlotAt],
  ['timezone', (r) => r.fields.timezone],
  ['status', () => JobStatus.ACTIVE],
  ...SETTING_NAMES.flatMap((name): [string, (row: NewJobRow) => unknown][] => {
    const spec = JOB_SETTINGS[name];
    if (spec.kind === 'retry') {
      return Object.entries(RETRY_PARTS).map(([part, [, column]]) => [column, (r: NewJobRow) => r.fields.retry?.[part as keyof typeof RETRY_PARTS] ?? null]);
    }
    // jsonb: the JSON text, so that an array is not taken for a PostgreSQL array.
    if (spec.kind === 'json' || spec.kind === 'dependencies') return [[spec.column, (r: NewJobRow) => (r.fields[name] == null ? null : JSON.stringify(r.fields[name]))]];
    if (spec.kind === 'labels') return [[spec.column, (r: NewJobRow) => JSON.stringify(r.fields[name] ?? {})]];
    return [[spec.column, (r: NewJobRow) => r.fields[name]]];
  }),
  ['created_by', (_, actor) => actor],
  ['updated_by', (_, actor) => actor],
  ['created_at', (_, __, now) => now],
  ['updated_at', (_, __, now) => now],
];

/** The key a unique violation names in its detail (unique (job_key, version), or one live version per key). */
const KEY_IN_DETAIL = /^Key \(job_key(?:, version)?\)=\((.*?)(?:, \d+)?\) already exists/;

/** A new key's version 1 collided with an existing one: `key` is the key PostgreSQL named. */
export class KeyTaken extends Error {
  constructor(readonly key: string | null) {
    super(`job key ${key ?? '(unknown)'} exists already`);
  }
}

/** One new job's write: its row, and who writes it when (each caller of a group commit its own). */
export interface NewJobWrite {
  row: NewJobRow;
  actor: string | null;
  now: Date;
  audit: AuditBy;
  /** The audit entry's details (a new version's); a new job's are its version, target and schedule type. */
  details?: Record<string, unknown>;
}

/**
 * Inserts version 1 of each key, ACTIVE, and notifies every instance of each new job, in ONE
 * statement: the rows, their audit entries and their NOTIFYs commit together (autocommit, or the
 * caller's transaction), in one round trip, whatever the number of rows. Returns the records in
 * the order given. @throws KeyTaken when a key has a version 1 already (nothing is inserted).
 */
export async function insertJobs(db: pg.Pool | pg.PoolClient, rows: readonly NewJobRow[], actor: string | null, now: Date, audit: AuditBy): Promise<JobRecord[]> {
  const records = await insertNewJobs(db, rows.map((row) => ({ row, actor, now, audit })), 'refuse');
  return records as JobRecord[];
}

/**
 * `insertJobs` of writes by several callers (the group commit of `createJob`s): each row with its
 * own actor, instant and audit entry, and a key that is taken SKIPPED rather than failing the
 * others (`ON CONFLICT DO NOTHING`, any unique key: a version 1 or a live version of the key):
 * null in its place. The keys must be distinct.
 */
export async function insertJobsSkippingTaken(db: pg.Pool | pg.PoolClient, writes: readonly NewJobWrite[]): Promise<(JobRecord | null)[]> {
  return insertNewJobs(db, writes, 'skip');
}

async function insertNewJobs(db: Pick<pg.Pool, 'query'> | { query: Query }, writes: readonly NewJobWrite[], taken: 'refuse' | 'skip'): Promise<(JobRecord | null)[]> {
  if (writes.length === 0) return [];
  const params: unknown[] = [];
  const values = writes.map(({ row, actor, now }) => `(${COLUMNS.map(([, value]) => `$${params.push(value(row, actor, now))}`).join(', ')})`);
  // Who wrote each row, by key (distinct in one statement): four array parameters, whatever the number of rows.
  const who = `SELECT * FROM unnest($${params.push(writes.map((w) => w.row.key))}::text[], $${params.push(writes.map((w) => w.audit.actor))}::text[], $${params.push(
    writes.map((w) => w.audit.action),
  )}::text[], $${params.push(writes.map((w) => (w.details ? JSON.stringify(w.details) : null)))}::jsonb[]) AS w(job_key, actor, action, details)`;
  const sql = `WITH ins AS (
      INSERT INTO cron_job_definitions (${COLUMNS.map(([c]) => c).join(', ')}) VALUES ${values.join(', ')}
      ${taken === 'skip' ? 'ON CONFLICT DO NOTHING' : ''} RETURNING *),
    who AS (${who}),
    sent AS (SELECT pg_notify($${params.push(Channel.JOB_CHANGED)}, id::text) FROM ins),
    audit AS (${auditFromRows({
      from: 'ins JOIN who ON who.job_key = ins.job_key',
      // The row's own instant: created_at is its caller's now.
      at: 'ins.created_at',
      actor: 'who.actor',
      action: 'who.action',
      jobKey: 'ins.job_key',
      subject: 'ins.id::text',
      details: `coalesce(who.details, jsonb_build_object('version', ins.version, 'target', ins.target, 'scheduleType', ins.schedule_type))`,
    })})
    SELECT ins.*, (SELECT count(*) FROM sent) AS notified FROM ins`;
  let res: { rows: Record<string, unknown>[] };
  try {
    res = await db.query(sql, params);
  } catch (err) {
    const e = err as { code?: string; detail?: string };
    if (e.code === UNIQUE_VIOLATION) throw new KeyTaken(KEY_IN_DETAIL.exec(e.detail ?? '')?.[1] ?? null);
    throw unknownCalendarIn(err) ?? dependencyRefusalIn(err) ?? err;
  }
  const byKey = new Map(res.rows.map((r) => [r.job_key as string, rowToJobRecord(r)]));
  return writes.map((w) => byKey.get(w.row.key) ?? null);
}

/**
 * Retires the versions `ids` that are not RETIRED yet (the replaced side of `supersedeMany`) and
 * notifies every instance of each, in one statement on the caller's transaction; returns the
 * records of those it retired (fewer than `ids` when some were RETIRED already).
 */
async function retireReplaced(q: Query, ids: readonly string[], actor: string | null, now: Date): Promise<JobRecord[]> {
  const res = await q(
    `WITH retired AS (
       UPDATE cron_job_definitions j SET status = $1, pause_reason = NULL, paused_until = NULL, updated_by = $2, updated_at = $3
       WHERE j.id = ANY($4::uuid[]) AND j.status <> $1
       RETURNING j.*, ${LAST_SUCCESS_AT}
     ), sent AS (SELECT pg_notify($5, id::text) FROM retired)
     SELECT retired.*, (SELECT count(*) FROM sent) AS notified FROM retired`,
    [JobStatus.RETIRED, actor, now, ids, Channel.JOB_CHANGED],
  );
  return res.rows.map(rowToJobRecord);
}
