import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instantArray, nullsOr, uuidArray, wordArray } from '../../src/db/array-literals.js';
import { RunStatus } from '../../src/domain/enums.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * The fire path's arrays go to PostgreSQL as literals it builds itself (src/db/array-literals.ts):
 * read back, they are the values pg's own serialisation sends, whatever the session's zone.
 */
describe('array literals of the fire path', () => {
  let db: TestDatabase;
  let client: pg.Client;
  beforeAll(async () => {
    db = await createTestDatabase({ empty: true });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    // Not UTC, with DST: an instant's literal must not depend on the session's zone.
    await client.query(`SET TimeZone = 'America/New_York'`);
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  const roundTrip = async (param: unknown, type: 'uuid' | 'timestamptz' | 'text' | 'jsonb' | 'float8') =>
    (
      await client.query(
        type === 'timestamptz'
          ? `SELECT (extract(epoch FROM v) * 1000)::float8 AS v FROM unnest($1::timestamptz[]) WITH ORDINALITY AS u(v, i) ORDER BY i`
          : `SELECT v::text AS v FROM unnest($1::${type}[]) WITH ORDINALITY AS u(v, i) ORDER BY i`,
        [param],
      )
    ).rows.map((r) => r.v as string | number | null);

  it('uuids: every element, in order, as pg sends a string[]', async () => {
    for (const n of [0, 1, 2, 1_000]) {
      const ids = Array.from({ length: n }, () => randomUUID());
      expect(await roundTrip(uuidArray(ids), 'uuid')).toEqual(ids);
      expect(await roundTrip(uuidArray(ids), 'uuid')).toEqual(await roundTrip(ids, 'uuid'));
    }
  });

  it('instants (ms precision, 1970–2099, across DST changes, nulls among them): every element, in order, as pg sends a Date[]', async () => {
    const edges = [0, Date.UTC(2026, 2, 8, 7, 0, 0, 1), Date.UTC(2026, 10, 1, 5, 59, 59, 999), Date.UTC(2099, 11, 31, 23, 59, 59, 999)];
    const random = Array.from({ length: 1_000 }, () => Math.floor(Math.random() * Date.UTC(2099, 0, 1)));
    const instants = [...edges, ...random].map((ms, i) => (i % 7 === 3 ? null : new Date(ms)));
    const back = await roundTrip(instantArray(instants), 'timestamptz');
    expect(back).toEqual(instants.map((d) => (d === null ? null : d.getTime())));
    expect(back).toEqual(await roundTrip(instants, 'timestamptz'));
    expect(await roundTrip(instantArray([]), 'timestamptz')).toEqual([]);
    expect(await roundTrip(instantArray([null]), 'timestamptz')).toEqual([null]);
  });

  it('enum names: every element, in order, as pg sends a string[]', async () => {
    const statuses = Object.values(RunStatus);
    for (const words of [[], [RunStatus.SUCCEEDED], Array.from({ length: 1_000 }, (_, i) => statuses[i % statuses.length])]) {
      expect(await roundTrip(wordArray(words), 'text')).toEqual(words);
      expect(await roundTrip(wordArray(words), 'text')).toEqual(await roundTrip(words, 'text'));
    }
  });

  it('nullable arrays: all null as a literal, anything else as pg sends it (text, jsonb, float8)', async () => {
    for (const n of [0, 1, 2, 1_000]) {
      const nulls = new Array<null>(n).fill(null);
      expect(typeof nullsOr(nulls)).toBe('string');
      for (const type of ['text', 'jsonb', 'float8'] as const) expect(await roundTrip(nullsOr(nulls), type)).toEqual(nulls);
    }
    // One value among nulls: handed to pg as it was (quotes, commas, braces, backslashes, NUL-free).
    const texts = [null, 'a "quoted", {braced} \\ text', null, 'NULL'];
    expect(nullsOr(texts)).toBe(texts);
    expect(await roundTrip(nullsOr(texts), 'text')).toEqual(texts);
    const json = [null, JSON.stringify({ a: [1, 'b,c'] })];
    expect(await roundTrip(nullsOr(json), 'jsonb')).toEqual([null, '{"a": [1, "b,c"]}']);
    expect(await roundTrip(nullsOr([null, 42.5]), 'float8')).toEqual([null, '42.5']);
  });
});
