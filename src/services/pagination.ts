import { CronqlError } from '../errors.js';

/** `first` is capped at 500 (docs/security.md, bounded work). */
export const MAX_PAGE_SIZE = 500;

export interface Page<T> {
  nodes: T[];
  cursors: string[];
  hasNextPage: boolean;
  endCursor: string | null;
  totalCount: number;
}

/** Keyset position: the sort instant and the id (the tie-breaker). Opaque to clients. */
export interface Position {
  at: Date;
  id: string;
}

export function encodeCursor(p: Position): string {
  return Buffer.from(JSON.stringify([p.at.toISOString(), p.id])).toString('base64url');
}

export function decodeCursor(cursor: string | null | undefined): Position | undefined {
  if (cursor == null || cursor === '') return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const date = new Date(at);
    if (typeof id !== 'string' || Number.isNaN(date.getTime())) throw new Error('bad cursor');
    return { at: date, id };
  } catch {
    throw new CronqlError('BAD_USER_INPUT', 'after is not a cursor returned by this API', { field: 'after' });
  }
}

/** The page size when `first` is omitted or null. */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * The rows a page fetches for a given `first`: the default when omitted or null, capped at
 * MAX_PAGE_SIZE. The one rule both the resolvers and the query-cost estimate use.
 */
export function pageSize(first: number | null | undefined, fallback = DEFAULT_PAGE_SIZE): number {
  const n = first ?? fallback;
  if (!Number.isInteger(n) || n < 0) throw new CronqlError('BAD_USER_INPUT', 'first must be a non-negative integer', { field: 'first' });
  return Math.min(n, MAX_PAGE_SIZE);
}

/** Builds a page from `size + 1` fetched rows (the extra one tells whether there is a next page). */
export function toPage<T>(rows: T[], size: number, position: (t: T) => Position, totalCount: number): Page<T> {
  const nodes = rows.slice(0, size);
  const cursors = nodes.map((n) => encodeCursor(position(n)));
  return {
    nodes,
    cursors,
    hasNextPage: rows.length > size,
    endCursor: cursors.length ? cursors[cursors.length - 1] : null,
    totalCount,
  };
}
