import type { Logger } from '../logger.js';
import { CalendarStore } from '../db/calendar-store.js';
import type { Pool } from '../db/pool.js';
import type { CalendarRules } from '../schedule/calendar.js';
import type { RuntimeEvents } from './events.js';

/**
 * Every calendar, in memory, for the fire path: a slot is checked against its job's calendars
 * when it comes due, so a change applies from the next slot once the book has it. The book is
 * read whole when the runtime starts and after the notification connection comes back (changes
 * sent meanwhile are lost), and one calendar is re-read on each change (this process's own
 * writes, and other instances' through the `cronql_calendar_changed` NOTIFY). Reads of one name
 * are chained, so the last one read is the newest.
 */
export class CalendarBook {
  private readonly byName = new Map<string, CalendarRules>();
  private readonly store: CalendarStore;
  /** The read in progress per name. */
  private readonly reading = new Map<string, Promise<void>>();
  private loaded = false;

  constructor(pool: Pool, private readonly log: Logger, private readonly events: RuntimeEvents) {
    this.store = new CalendarStore(pool);
  }

  /** Reads every calendar (start, and after a lost notification connection). */
  async loadAll(): Promise<void> {
    const rows = await this.store.list();
    this.byName.clear();
    for (const row of rows) this.byName.set(row.name, row);
    this.loaded = true;
    this.events.emit('calendarsChanged', { names: rows.map((r) => r.name) });
  }

  /** Re-reads one calendar (set or deleted). Never rejects: a failed read is logged, and the resync or the next change reads it again. */
  refresh(name: string): Promise<void> {
    const previous = this.reading.get(name) ?? Promise.resolve();
    const read = previous.then(async () => {
      try {
        const [row] = await this.store.getMany([name]);
        if (row) this.byName.set(name, row);
        else this.byName.delete(name);
        this.events.emit('calendarsChanged', { names: [name] });
      } catch (err) {
        this.log.warn({ err, calendar: name }, 'could not re-read a changed calendar');
      }
    });
    this.reading.set(name, read);
    void read.finally(() => {
      if (this.reading.get(name) === read) this.reading.delete(name);
    });
    return read;
  }

  /**
   * The calendars of these names the book has, in the order given, and the names it does not
   * have (a calendar created an instant ago whose notification is still on its way).
   */
  rulesOf(names: readonly string[]): { rules: CalendarRules[]; unknown: string[] } {
    const rules: CalendarRules[] = [];
    const unknown: string[] = [];
    for (const name of names) {
      const found = this.byName.get(name);
      if (found) rules.push(found);
      else unknown.push(name);
    }
    return { rules, unknown };
  }

  /** Reads these names now (for a slot whose job names a calendar the book does not have yet). */
  async fetch(names: readonly string[]): Promise<void> {
    await Promise.all(names.map((n) => this.refresh(n)));
  }

  get ready(): boolean {
    return this.loaded;
  }
}
