import type { RunLogLine } from '../domain/run-log.js';
import type { RunStatus } from '../domain/enums.js';
import { Channel } from './notifier.js';
import type { Pool } from './pool.js';

/**
 * The statements of run logs (`cron_run_logs`, docs/run-logs.md): the writer's batch, the reads
 * of the live stream and of `Run.logs`, and their own retention.
 */

/** A line as the writer sends it: its fields already JSON text (measured once, against the bound). */
export interface LineRow {
  runId: string;
  sequence: number;
  at: Date;
  level: string;
  message: string;
  fieldsJson: string | null;
  dropped: number | null;
}

/** The highest sequence `readRanges` reads up to when a range is open-ended. */
export const LAST_SEQUENCE = 2_147_483_647;

const LINE_COLUMNS = 'l.run_id, l.sequence, l.at, l.level, l.message, l.fields, l.dropped';

const rowToLine = (r: Record<string, unknown>): RunLogLine => ({
  runId: r.run_id as string,
  sequence: r.sequence as number,
  at: new Date(r.at as Date),
  level: r.level as string,
  message: r.message as string,
  fields: r.fields ?? null,
  dropped: (r.dropped as number | null) ?? null,
});

/**
 * Writes the lines of many runs in one statement, and in the same statement (so they are sent
 * when, and only if, the lines are committed) the notifications that tell other instances which
 * ranges to read. A line whose run is gone (pruned, or deleted with its job) is left out rather
 * than failing the batch; a line already written (a run executed again after a lost answer)
 * is kept as it was. Returns the lines written.
 */
export async function writeLines(pool: Pool, lines: readonly LineRow[], notifications: readonly string[]): Promise<number> {
  if (lines.length === 0) return 0;
  const res = await pool.query(
    `WITH written AS (
       INSERT INTO cron_run_logs (run_id, sequence, at, level, message, fields, dropped)
       SELECT t.r, t.s, t.a, t.l, t.m, t.f::jsonb, t.d
         FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[], $7::int[]) AS t(r, s, a, l, m, f, d)
        WHERE EXISTS (SELECT 1 FROM cron_job_runs x WHERE x.id = t.r)
       ON CONFLICT (run_id, sequence) DO NOTHING
       RETURNING 1)
     SELECT (SELECT count(*) FROM written)::int AS written,
            (SELECT count(pg_notify($8, p)) FROM unnest($9::text[]) AS p)::int AS notified`,
    [
      lines.map((l) => l.runId),
      lines.map((l) => l.sequence),
      lines.map((l) => l.at),
      lines.map((l) => l.level),
      lines.map((l) => l.message),
      lines.map((l) => l.fieldsJson),
      lines.map((l) => l.dropped),
      Channel.RUN_LOGS,
      notifications,
    ],
  );
  return res.rows[0].written as number;
}

/** The lines of each (run, from, to) range, inclusive, in order per run: the live stream's reads. */
export async function readRanges(pool: Pool, ranges: readonly { runId: string; from: number; to: number }[]): Promise<RunLogLine[]> {
  if (ranges.length === 0) return [];
  const res = await pool.query(
    `SELECT ${LINE_COLUMNS}
       FROM unnest($1::uuid[], $2::int[], $3::int[]) AS q(r, f, t)
       JOIN cron_run_logs l ON l.run_id = q.r AND l.sequence BETWEEN q.f AND q.t
      ORDER BY l.run_id, l.sequence`,
    [ranges.map((r) => r.runId), ranges.map((r) => r.from), ranges.map((r) => r.to)],
  );
  return res.rows.map(rowToLine);
}

/** A run's status and the last sequence of its log (0 when it has none); null when there is no such run. */
export async function logPosition(pool: Pool, runId: string): Promise<{ status: RunStatus; last: number } | null> {
  const res = await pool.query(
    `SELECT r.status, coalesce((SELECT max(l.sequence) FROM cron_run_logs l WHERE l.run_id = r.id), 0)::int AS last
       FROM cron_job_runs r WHERE r.id = $1`,
    [runId],
  );
  const row = res.rows[0];
  return row ? { status: row.status as RunStatus, last: row.last as number } : null;
}

/** One page of a run's log, for each of many runs, and whether each run's log was truncated. */
export interface LogPageRows {
  lines: Map<string, RunLogLine[]>;
  truncated: Set<string>;
}

/**
 * Pages of the logs of many runs in one statement (`Run.logs` under a page of runs): up to
 * `limit` lines after `after` for each run, and whether its log ends with the drop line.
 */
export async function pageLogsOfRuns(pool: Pool, runIds: readonly string[], after: number, limit: number): Promise<LogPageRows> {
  const lines = new Map<string, RunLogLine[]>();
  const truncated = new Set<string>();
  if (runIds.length === 0) return { lines, truncated };
  const res = await pool.query(
    `SELECT q.id AS of_run, ${LINE_COLUMNS},
            EXISTS (SELECT 1 FROM cron_run_logs d WHERE d.run_id = q.id AND d.dropped IS NOT NULL) AS truncated
       FROM unnest($1::uuid[]) AS q(id)
       LEFT JOIN LATERAL (SELECT * FROM cron_run_logs x WHERE x.run_id = q.id AND x.sequence > $2 ORDER BY x.sequence LIMIT $3) l ON true
      ORDER BY q.id, l.sequence`,
    [runIds, after, limit],
  );
  for (const row of res.rows) {
    const id = row.of_run as string;
    if (row.truncated) truncated.add(id);
    if (!lines.has(id)) lines.set(id, []);
    if (row.sequence !== null) lines.get(id)!.push(rowToLine(row));
  }
  return { lines, truncated };
}

/** Deletes up to `limit` lines written before `cutoff` (their own retention); returns how many. */
export async function pruneLines(pool: Pool, cutoff: Date, limit: number): Promise<number> {
  const res = await pool.query(
    `DELETE FROM cron_run_logs WHERE ctid = ANY (ARRAY(SELECT ctid FROM cron_run_logs WHERE at < $1 LIMIT $2))`,
    [cutoff, limit],
  );
  return res.rowCount ?? 0;
}
