import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPool, endPool } from '../../src/db/pool.js';
import { parseTimestamptz } from '../../src/db/timestamps.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/**
 * cronql's connections read `timestamptz` with their own parser (src/db/timestamps.ts): it must
 * give exactly what node-postgres's default gives, for whatever text PostgreSQL sends — generated
 * instants over the whole range, every precision, sessions in several zones, and the odd values.
 */
describe('timestamptz as cronql reads it', () => {
  let db: TestDatabase;
  let client: pg.Client;
  const reference = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date | number;
  const same = (text: string) => {
    const ours = parseTimestamptz(text);
    const theirs = reference(text);
    expect(ours instanceof Date, text).toBe(theirs instanceof Date);
    expect(Number(ours), text).toBe(Number(theirs));
  };

  beforeAll(async () => {
    db = await createTestDatabase({ empty: true });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('equals node-postgres for generated instants, in every precision, in UTC and other zones', async () => {
    let checked = 0;
    for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu']) {
      await client.query(`SET TimeZone = '${zone}'`);
      // From year 1 to 9999 and around now; rounded to 0–6 fractional digits (PostgreSQL drops trailing zeros).
      const { rows } = await client.query<{ text: string }>(
        `SELECT (date_trunc('second', t) + round(extract(microseconds FROM t)::numeric % 1000000 / 10 ^ (6 - p)) * 10 ^ (6 - p) * interval '1 microsecond')::text AS text
           FROM (SELECT CASE WHEN g % 3 = 0 THEN now() + (random() - 0.5) * interval '30 days'
                             ELSE timestamptz '0001-01-01 00:00:00+00' + random() * (timestamptz '9999-12-31 00:00:00+00' - timestamptz '0001-01-01 00:00:00+00') END AS t,
                        g % 7 AS p
                   FROM generate_series(1, 700) AS g) s`,
      );
      for (const { text } of rows) same(text);
      checked += rows.length;
    }
    expect(checked).toBe(2_800);
  });

  it('equals node-postgres for the odd values: infinity, BC, years before 1000 and after 9999, leap days, the epoch', async () => {
    await client.query(`SET TimeZone = 'UTC'`);
    const { rows } = await client.query<{ text: string }>(
      `SELECT v::text AS text FROM unnest(ARRAY['infinity', '-infinity', '0044-03-15 12:00:00 BC', '0001-01-01 00:00:00+00', '0099-12-31 23:59:59.999999+00',
         '0999-06-01 00:00:00.5+00', '1000-01-01 00:00:00+00', '2024-02-29 23:59:59.000001+00', '1970-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00',
         '10000-01-01 00:00:00+00', '275760-09-13 00:00:00+00']::timestamptz[]) AS v`,
    );
    expect(rows).toHaveLength(12);
    for (const { text } of rows) same(text);
  });

  it("is what cronql's pool reads", async () => {
    const pool = createPool(db.url);
    try {
      const { rows } = await pool.query<{ at: Date }>(`SELECT timestamptz '2026-11-26 12:34:56.789123+00' AS at`);
      expect(rows[0].at).toBeInstanceOf(Date);
      expect(rows[0].at.toISOString()).toBe('2026-11-26T12:34:56.789Z');
    } finally {
      await endPool(pool, 5_000);
    }
  });
});
