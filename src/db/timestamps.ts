import { createRequire } from 'node:module';
import pg from 'pg';

// A CommonJS function whose typings declare an ES default export: required as what it is.
const parsePostgresDate = createRequire(import.meta.url)('postgres-date') as (text: string) => Date | number | null;

/** PostgreSQL's `timestamptz` type (pg_type.oid). */
const TIMESTAMPTZ = 1184;

/** Where `YYYY-MM-DD HH:MM:SS` has its digits. */
const DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
const num = (text: string, at: number, len: number): number => {
  let v = 0;
  for (let i = at; i < at + len; i++) v = v * 10 + text.charCodeAt(i) - 48;
  return v;
};

/**
 * A `timestamptz` as node-postgres reads it by default (a Date; ±Infinity for 'infinity'), faster:
 * a page of 50 runs reads about 250 of them, and node-postgres's own parser (postgres-date 1,
 * regular expressions) was ≈ 3 % of a page read's CPU. What a UTC session sends —
 * `2026-11-26 12:00:00.123456+00`, years 1000–9999 — is read here digit by digit (milliseconds
 * truncated, as before); anything else (another zone's offset, BC, infinity, other years) goes to
 * postgres-date 2, the same parser's newer version, which gives the same values
 * (test/db/timestamps.test.ts compares both with node-postgres's own).
 */
export function parseTimestamptz(text: string): Date | number {
  const n = text.length;
  if (n >= 22 && n <= 29 && text.endsWith('+00') && isUtcTimestamp(text, n)) {
    const fraction = n - 23; // digits after the '.', 0 without one
    const ms = fraction > 0 ? num(text, 20, Math.min(fraction, 3)) * 10 ** (3 - Math.min(fraction, 3)) : 0;
    const month = num(text, 5, 2);
    const day = num(text, 8, 2);
    const hour = num(text, 11, 2);
    const minute = num(text, 14, 2);
    const second = num(text, 17, 2);
    if (month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour <= 23 && minute <= 59 && second <= 59) {
      return new Date(Date.UTC(num(text, 0, 4), month - 1, day, hour, minute, second, ms));
    }
  }
  return parsePostgresDate(text) as Date | number;
}

/** `YYYY-MM-DD HH:MM:SS[.f…]+00`, year 1000 or later (`n`: its length). */
function isUtcTimestamp(text: string, n: number): boolean {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return false;
  if (text.charCodeAt(0) === 48) return false;
  for (const at of DIGITS) if (!isDigit(text.charCodeAt(at))) return false;
  if (n === 22) return true;
  if (n === 23 || text.charCodeAt(19) !== 46) return false;
  for (let i = 20; i < n - 3; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * The type parsers of cronql's own connections: node-postgres's defaults but for `timestamptz`.
 * MikroORM's statements bring their own parsers (dates as text) and keep them.
 */
export const PG_TYPES = new pg.TypeOverrides();
PG_TYPES.setTypeParser(TIMESTAMPTZ, 'text', parseTimestamptz);
