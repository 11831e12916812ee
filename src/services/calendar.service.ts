import { auditActor } from './audit-actor.js';
import { CronqlError } from '../errors.js';
import type { Clock } from '../runtime/clock.js';
import { CalendarInUse, CalendarStore, type CalendarRow } from '../db/calendar-store.js';
import type { Pool } from '../db/pool.js';
import { CALENDAR_NAME, validateCalendarRules, type CalendarRulesInput } from '../schedule/calendar.js';
import { checkText } from './stored-input.js';

export type { CalendarRow } from '../db/calendar-store.js';

/** A calendar as given to setCalendar: its rules and a description. */
export interface CalendarInput extends CalendarRulesInput {
  description?: string | null;
}

export interface CalendarDeps {
  pool: Pool;
  clock: Clock;
  /** Told of every calendar this process set or deleted (its runtime re-reads it; others get the NOTIFY). */
  changed?: (name: string) => void | Promise<void>;
}

export const MAX_CALENDAR_DESCRIPTION = 2_000;

/**
 * Exclusion calendars: set (create or replace by name), delete (refused while a live job names
 * it: CALENDAR_IN_USE), read. The rules are checked by schedule/calendar.ts; bad input changes
 * nothing. Every write reaches every runtime before their next slot (the store's NOTIFY).
 */
export class CalendarService {
  private readonly store: CalendarStore;

  constructor(private readonly d: CalendarDeps) {
    this.store = new CalendarStore(d.pool);
  }

  async list(): Promise<(CalendarRow & { usedBy: string[] })[]> {
    const rows = await this.store.list();
    const used = await this.store.usedBy(rows.map((r) => r.name));
    return rows.map((r) => ({ ...r, usedBy: used.get(r.name) ?? [] }));
  }

  /** One calendar by name; null when there is none (or the name cannot be one). */
  async get(name: unknown): Promise<CalendarRow | null> {
    if (typeof name !== 'string' || !CALENDAR_NAME.test(name)) return null;
    return (await this.store.getMany([name]))[0] ?? null;
  }

  /** The calendars of these names that exist. */
  getMany(names: readonly string[]): Promise<CalendarRow[]> {
    return this.store.getMany(names.filter((n) => CALENDAR_NAME.test(n)));
  }

  /** The live job versions (ids) naming the calendar. */
  async usedBy(name: string): Promise<string[]> {
    return (await this.store.usedBy([name])).get(name) ?? [];
  }

  async set(input: CalendarInput, actor: string | null = null): Promise<CalendarRow> {
    const rules = validateCalendarRules(input);
    const description = input.description == null || input.description.trim() === '' ? null : input.description;
    if (description !== null && description.length > MAX_CALENDAR_DESCRIPTION) {
      throw new CronqlError('BAD_USER_INPUT', `description must be at most ${MAX_CALENDAR_DESCRIPTION} characters`, { field: 'description' });
    }
    checkText('description', description);
    rules.dailyWindows.forEach((w, i) => checkText(`dailyWindows[${i}].reason`, w.reason));
    rules.windows.forEach((w, i) => checkText(`windows[${i}].reason`, w.reason));
    const row = await this.store.upsert(rules, description, actor, this.d.clock.now(), {
      actor: auditActor(actor),
      action: 'setCalendar',
      details: { timezone: rules.timezone, dates: rules.dates.length, yearly: rules.yearly.length, dailyWindows: rules.dailyWindows.length, windows: rules.windows.length },
    });
    // This instance's book has the calendar before the answer: what a caller reads next (nextRuns, upcoming) uses it.
    await this.d.changed?.(row.name);
    return row;
  }

  /** False when there was no such calendar. @throws CronqlError CALENDAR_IN_USE while a live job names it. */
  async delete(name: unknown, actor: string | null = null): Promise<boolean> {
    if (typeof name !== 'string' || !CALENDAR_NAME.test(name)) {
      throw new CronqlError('BAD_USER_INPUT', 'a calendar name is 1–64 letters, digits and . _ -, starting with a letter or digit', { field: 'name' });
    }
    let deleted: boolean;
    try {
      deleted = await this.store.delete(name, { actor: auditActor(actor), action: 'deleteCalendar' }, this.d.clock.now());
    } catch (err) {
      if (err instanceof CalendarInUse) {
        throw new CronqlError('CALENDAR_IN_USE', `calendar "${name}" is used by job "${err.jobKey ?? '?'}"; remove it from every live job first (a new version without it)`, {
          calendar: name,
          job: err.jobKey,
        });
      }
      throw err;
    }
    if (deleted) await this.d.changed?.(name);
    return deleted;
  }
}
