import { auditPerRow, type AuditEntryInput } from './audit.js';
import type { Pool } from './pool.js';
import { lit } from './sql.js';
import { JobStatus } from '../domain/enums.js';
import type { CalendarRules } from '../schedule/calendar.js';
import { Channel } from './notifier.js';

/** A calendar as stored: its rules and who changed it when. */
export interface CalendarRow extends CalendarRules {
  description: string | null;
  createdAt: Date;
  updatedAt: Date;
  updatedBy: string | null;
}

/** deleteCalendar refused by the database: a live job names the calendar (`jobKey`). */
export class CalendarInUse extends Error {
  constructor(readonly calendar: string, readonly jobKey: string | null) {
    super(`calendar ${calendar} is used by job ${jobKey ?? '?'}`);
  }
}

const COLUMNS = 'name, timezone, description, dates, yearly, daily_windows, windows, created_at, updated_at, updated_by';

function toRow(r: Record<string, unknown>): CalendarRow {
  const windows = r.windows as { from: string; to: string; reason: string | null }[];
  return {
    name: r.name as string,
    timezone: r.timezone as string,
    description: (r.description as string | null) ?? null,
    dates: r.dates as string[],
    yearly: r.yearly as string[],
    dailyWindows: r.daily_windows as CalendarRules['dailyWindows'],
    windows: windows.map((w) => ({ from: new Date(w.from), to: new Date(w.to), reason: w.reason ?? null })),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
    updatedBy: (r.updated_by as string | null) ?? null,
  };
}

/**
 * The SQL of calendars. Each write sends the NOTIFY that makes every runtime re-read the calendar
 * in the same statement (it is delivered when the write commits). That a live job names only
 * calendars that exist is held by the database (triggers of migration 20261127010000_calendars).
 */
export class CalendarStore {
  constructor(private readonly pool: Pool) {}

  /** Every calendar, by name. */
  async list(): Promise<CalendarRow[]> {
    const res = await this.pool.query(`SELECT ${COLUMNS} FROM cron_calendars ORDER BY name`);
    return res.rows.map(toRow);
  }

  /** The calendars of these names that exist. */
  async getMany(names: readonly string[]): Promise<CalendarRow[]> {
    if (names.length === 0) return [];
    const res = await this.pool.query(`SELECT ${COLUMNS} FROM cron_calendars WHERE name = ANY($1::text[]) ORDER BY name`, [names]);
    return res.rows.map(toRow);
  }

  /** Creates the calendar, or replaces the one of that name (its creation instant kept). */
  async upsert(rules: CalendarRules, description: string | null, actor: string | null, now: Date, audit: AuditEntryInput): Promise<CalendarRow> {
    const windows = rules.windows.map((w) => ({ from: w.from.toISOString(), to: w.to.toISOString(), reason: w.reason }));
    const params: unknown[] = [rules.name, rules.timezone, description, rules.dates, rules.yearly, JSON.stringify(rules.dailyWindows), JSON.stringify(windows), now, actor, Channel.CALENDAR_CHANGED];
    const res = await this.pool.query(
      `WITH saved AS (
         INSERT INTO cron_calendars (name, timezone, description, dates, yearly, daily_windows, windows, created_at, updated_at, updated_by)
         VALUES ($1, $2, $3, $4::text[], $5::text[], $6::jsonb, $7::jsonb, $8, $8, $9)
         ON CONFLICT (name) DO UPDATE SET timezone = EXCLUDED.timezone, description = EXCLUDED.description, dates = EXCLUDED.dates,
           yearly = EXCLUDED.yearly, daily_windows = EXCLUDED.daily_windows, windows = EXCLUDED.windows,
           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by
         RETURNING ${COLUMNS}
       ), sent AS (SELECT pg_notify($10, name) FROM saved),
       audit AS (${auditPerRow(params, 'saved', audit, now, { subject: 'saved.name' })})
       SELECT saved.*, (SELECT count(*) FROM sent) AS notified FROM saved`,
      params,
    );
    return toRow(res.rows[0]);
  }

  /**
   * Deletes the calendar; false when there was none.
   * @throws CalendarInUse when a live (not RETIRED) job names it, whenever that job was written
   */
  async delete(name: string, audit: AuditEntryInput, now: Date): Promise<boolean> {
    try {
      const params: unknown[] = [name, Channel.CALENDAR_CHANGED];
      const res = await this.pool.query(
        `WITH gone AS (DELETE FROM cron_calendars WHERE name = $1 RETURNING name),
           sent AS (SELECT pg_notify($2, name) FROM gone),
           audit AS (${auditPerRow(params, 'gone', audit, now, { subject: 'gone.name' })})
         SELECT (SELECT count(*) FROM gone)::int AS deleted, (SELECT count(*) FROM sent) AS notified`,
        params,
      );
      return res.rows[0].deleted > 0;
    } catch (err) {
      const e = err as { code?: string; constraint?: string; detail?: string };
      if (e.code === '23503' && e.constraint === 'cron_calendars_in_use') throw new CalendarInUse(name, e.detail ?? null);
      throw err;
    }
  }

  /** The live (not RETIRED) job versions naming each of `names`, by name (ids, by key). */
  async usedBy(names: readonly string[]): Promise<Map<string, string[]>> {
    const used = new Map<string, string[]>(names.map((n) => [n, []]));
    if (names.length === 0) return used;
    const res = await this.pool.query(
      `SELECT c.name, d.id FROM unnest($1::text[]) AS c(name)
       JOIN cron_job_definitions d ON d.status <> ${lit(JobStatus.RETIRED)} AND d.calendars <> '{}' AND d.calendars @> ARRAY[c.name]
       ORDER BY c.name, d.job_key`,
      [names],
    );
    for (const r of res.rows) used.get(r.name as string)!.push(r.id as string);
    return used;
  }
}
