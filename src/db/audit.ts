import type { EntityManager } from '@mikro-orm/postgresql';
import type { Pool } from './pool.js';

/**
 * The audit log (`cron_audit_log`): one entry per change a mutation made — a bulk action writes
 * one per job it changed — written IN THE SAME TRANSACTION as the change, so that an entry exists
 * exactly when its change committed. Three ways in, one per kind of writer:
 *
 * - a write made of one plain statement includes the entry in it, as a CTE: `auditInsert` (entries
 *   known before the statement, optionally only when the statement changed something) or
 *   `auditFromRows` (one entry per row another CTE returned, e.g. each job an UPDATE paused);
 * - a write in a transaction on one connection (`inTransaction`'s `q`, a `pg.PoolClient`) calls
 *   `writeAudit(q, …)` before it commits;
 * - a MikroORM transaction calls `writeAuditOrm(tx, …)`.
 *
 * `action` is the mutation's name (`pauseJob`, `pauseJobs`, `setSecret` …; cronql's own changes
 * have names of their own, e.g. `pauseEnded`), `actor` the principal's name. `details` say what
 * changed and never carry a secret's value, a channel's URL, or a payload's credential-looking
 * values (services/audit-details.ts).
 */
export interface AuditEntryInput {
  actor: string;
  action: string;
  /** The job's key when the entry is about a job (or one of its runs). */
  jobKey?: string | null;
  /** What was acted on beside the job: a version's or run's id, a secret's or calendar's name … */
  subject?: string | null;
  details?: Record<string, unknown> | null;
}

/** Who made a change and by which mutation: what a write that records its own entry needs to be told. */
export interface AuditBy {
  actor: string;
  action: string;
}

/** An entry as stored and read back. */
export interface AuditRow {
  id: string;
  at: Date;
  actor: string;
  action: string;
  jobKey: string | null;
  subject: string | null;
  details: Record<string, unknown> | null;
}

const COLUMNS = 'at, actor, action, job_key, subject, details';

/** The entries as the one jsonb parameter `auditInsert` reads (an array of records). */
export function auditParam(entries: readonly AuditEntryInput[]): string {
  return JSON.stringify(entries.map((e) => ({ actor: e.actor, action: e.action, job_key: e.jobKey ?? null, subject: e.subject ?? null, details: e.details ?? null })));
}

/**
 * `INSERT INTO cron_audit_log …` of the entries in the jsonb parameter `entries` (`auditParam`),
 * at the timestamptz parameter `at`: a CTE body for a single-statement write
 * (`WITH …, audit AS (${auditInsert('$7', '$3')}) …`). With `when` (a SQL condition, e.g.
 * `EXISTS (SELECT 1 FROM upd)`) the entries are written only if it holds.
 */
export function auditInsert(entries: string, at: string, when?: string): string {
  return `INSERT INTO cron_audit_log (${COLUMNS})
    SELECT ${at}::timestamptz, e.actor, e.action, e.job_key, e.subject, e.details
    FROM jsonb_to_recordset(${entries}::jsonb) AS e(actor text, action text, job_key text, subject text, details jsonb)
    ${when ? `WHERE ${when}` : ''}`;
}

/** SQL expressions (over `from`'s rows and the statement's parameters) for each column of an entry. */
export interface AuditRowsSql {
  /** The rows: one entry each (a CTE's name, or a FROM list). */
  from: string;
  at: string;
  actor: string;
  action: string;
  jobKey?: string;
  subject?: string;
  /** A jsonb expression. */
  details?: string;
  where?: string;
}

/** `INSERT INTO cron_audit_log …` of one entry per row of `from`: a CTE body, e.g. one entry per job an UPDATE … RETURNING paused. */
export function auditFromRows(p: AuditRowsSql): string {
  return `INSERT INTO cron_audit_log (${COLUMNS})
    SELECT ${p.at}::timestamptz, ${p.actor}, ${p.action}, ${p.jobKey ?? 'NULL'}, ${p.subject ?? 'NULL'}, ${p.details ?? 'NULL'}::jsonb
    FROM ${p.from}
    ${p.where ? `WHERE ${p.where}` : ''}`;
}

/**
 * `auditFromRows` for a plain statement on the pool: one entry per row of `from` with `entry`'s
 * actor, action, job key and details, pushed as parameters onto `params` (the statement's own list,
 * which it extends); `subject` and `jobKey` may instead be SQL over `from`'s rows. E.g.
 * `WITH saved AS (INSERT … RETURNING name), audit AS (${auditPerRow(params, 'saved', entry, now, { subject: 'saved.name' })}) SELECT * FROM saved`.
 */
export function auditPerRow(params: unknown[], from: string, entry: AuditEntryInput, at: Date, sql: { subject?: string; jobKey?: string } = {}): string {
  const p = (v: unknown) => `$${params.push(v)}`;
  return auditFromRows({
    from,
    at: p(at),
    actor: `${p(entry.actor)}::text`,
    action: `${p(entry.action)}::text`,
    jobKey: sql.jobKey ?? `${p(entry.jobKey ?? null)}::text`,
    subject: sql.subject ?? `${p(entry.subject ?? null)}::text`,
    details: p(entry.details == null ? null : JSON.stringify(entry.details)),
  });
}

/** A statement on a connection in the caller's transaction (`inTransaction`'s `q`, a `pg.PoolClient`'s query, the pool for autocommit). */
export type AuditQuery = (text: string, params: unknown[]) => Promise<unknown>;

/** Writes `entries` at `at` with one statement on `q`: inside the caller's transaction when `q` is one's. Nothing for no entries. */
export async function writeAudit(q: AuditQuery, entries: readonly AuditEntryInput[], at: Date): Promise<void> {
  if (entries.length === 0) return;
  await q(auditInsert('$1', '$2'), [auditParam(entries), at]);
}

/** `writeAudit` inside a MikroORM transaction (`em.transactional`'s `tx`). */
export async function writeAuditOrm(tx: EntityManager, entries: readonly AuditEntryInput[], at: Date): Promise<void> {
  if (entries.length === 0) return;
  // MikroORM's raw statements take `?` placeholders, bound in the order they appear: `at` first.
  await tx.execute(auditInsert('?', '?'), [at, auditParam(entries)]);
}

// --- Reading and pruning -------------------------------------------------------------------------

/** Which entries a page shows (the service checked the values). */
export interface AuditQueryFilter {
  actor?: string | null;
  action?: readonly string[] | null;
  jobKey?: string | null;
  /** Entries at or after this instant. */
  after?: Date | null;
  /** Entries before this instant. */
  before?: Date | null;
}

const rowToEntry = (r: Record<string, unknown>): AuditRow => ({
  id: String(r.id),
  at: r.at as Date,
  actor: r.actor as string,
  action: r.action as string,
  jobKey: (r.job_key as string | null) ?? null,
  subject: (r.subject as string | null) ?? null,
  details: (r.details as Record<string, unknown> | null) ?? null,
});

/** The WHERE clause of a filter, its parameters pushed onto `params`. */
function whereOf(f: AuditQueryFilter, params: unknown[]): string[] {
  const p = (v: unknown) => `$${params.push(v)}`;
  const where: string[] = [];
  if (f.actor != null) where.push(`actor = ${p(f.actor)}`);
  if (f.action?.length) where.push(`action = ANY(${p([...f.action])}::text[])`);
  if (f.jobKey != null) where.push(`job_key = ${p(f.jobKey)}`);
  if (f.after) where.push(`at >= ${p(f.after)}`);
  if (f.before) where.push(`at < ${p(f.before)}`);
  return where;
}

/**
 * Up to `limit` entries matching `f`, newest first (at, then id), after the keyset `position`
 * (an entry's at and id); each filter has its index (actor, job key, action: then at, id).
 */
export async function listAudit(pool: Pool, f: AuditQueryFilter, position: { at: Date; id: string } | undefined, limit: number): Promise<AuditRow[]> {
  const params: unknown[] = [];
  const where = whereOf(f, params);
  if (position) where.push(`(at, id) < ($${params.push(position.at)}::timestamptz, $${params.push(position.id)}::bigint)`);
  const res = await pool.query(
    `SELECT id, at, actor, action, job_key, subject, details FROM cron_audit_log
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC LIMIT $${params.push(limit)}`,
    params,
  );
  return res.rows.map(rowToEntry);
}

/** How many entries match `f`. */
export async function countAudit(pool: Pool, f: AuditQueryFilter): Promise<number> {
  const params: unknown[] = [];
  const where = whereOf(f, params);
  const res = await pool.query(`SELECT count(*)::int AS n FROM cron_audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`, params);
  return Number(res.rows[0].n);
}

/** Deletes up to `limit` entries older than `cutoff` (retention, by the at index); how many. */
export async function pruneAudit(pool: Pool, cutoff: Date, limit: number): Promise<number> {
  const res = await pool.query(
    `DELETE FROM cron_audit_log WHERE id IN (SELECT id FROM cron_audit_log WHERE at < $1 ORDER BY at LIMIT $2)`,
    [cutoff, limit],
  );
  return res.rowCount ?? 0;
}
