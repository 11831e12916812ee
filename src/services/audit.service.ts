import { CronqlError } from '../errors.js';
import { countAudit, listAudit, type AuditQueryFilter, type AuditRow } from '../db/audit.js';
import type { Pool } from '../db/pool.js';
import { decodeCursor, pageSize, toPage, type Page } from './pagination.js';
import { checkText } from './stored-input.js';

export type AuditFilter = AuditQueryFilter;

/** The most actions one filter lists (each is an exact name, e.g. pauseJob). */
export const MAX_AUDIT_ACTIONS = 50;

/** The longest text a filter's actor, action or job key may be (none stored is longer than a key or a name). */
const MAX_FILTER_TEXT = 256;

/**
 * The audit log, read (docs/operations.md, "Audit log"): pages of entries, newest first, by actor,
 * action, job key and time. What writes it is each change's own transaction (db/audit.ts).
 */
export class AuditService {
  constructor(private readonly d: { pool: Pool }) {}

  async list(filter: AuditFilter = {}, first?: number | null, after?: string | null): Promise<Page<AuditRow>> {
    const f = checkedFilter(filter);
    const size = pageSize(first, DEFAULT_AUDIT_PAGE);
    const position = decodeCursor(after);
    if (position && !/^\d{1,19}$/.test(position.id)) throw new CronqlError('BAD_USER_INPUT', 'after is not a cursor returned by this API', { field: 'after' });
    const [rows, total] = await Promise.all([listAudit(this.d.pool, f, position, size + 1), countAudit(this.d.pool, f)]);
    return toPage(rows, size, (e) => ({ at: e.at, id: e.id }), total);
  }
}

/** `auditLog`'s page size when `first` is omitted. */
export const DEFAULT_AUDIT_PAGE = 50;

/** Bad input fails with BAD_USER_INPUT naming the field, and reads nothing. */
function checkedFilter(f: AuditFilter): AuditFilter {
  const text = (field: string, v: string | null | undefined) => {
    if (v == null) return;
    checkText(field, v);
    if (v.length > MAX_FILTER_TEXT) throw new CronqlError('BAD_USER_INPUT', `${field} must be at most ${MAX_FILTER_TEXT} characters`, { field, max: MAX_FILTER_TEXT });
  };
  text('filter.actor', f.actor);
  text('filter.jobKey', f.jobKey);
  if (f.action) {
    if (f.action.length > MAX_AUDIT_ACTIONS) {
      throw new CronqlError('BAD_USER_INPUT', `filter.action lists at most ${MAX_AUDIT_ACTIONS} actions`, { field: 'filter.action', max: MAX_AUDIT_ACTIONS });
    }
    f.action.forEach((a, i) => text(`filter.action[${i}]`, a));
  }
  if (f.after && f.before && f.after.getTime() >= f.before.getTime()) {
    throw new CronqlError('BAD_USER_INPUT', 'filter.after must be before filter.before', { field: 'filter.after' });
  }
  return f;
}
