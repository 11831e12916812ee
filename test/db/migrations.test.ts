import 'reflect-metadata';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsList } from '../../migrations/index.js';
import { migrateDatabase } from '../../src/db/orm.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

/** Every table, column, constraint, index, trigger and function of the public schema, as text. */
async function schemaOf(url: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ item: string }>(`
      SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, coalesce(column_default, '')) AS item
        FROM information_schema.columns WHERE table_schema = 'public'
      UNION ALL
      SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace
      UNION ALL
      SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
      UNION ALL
      SELECT format('trigger %s', pg_get_triggerdef(oid)) FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL
      SELECT format('function %s', pg_get_functiondef(p.oid)) FROM pg_proc p WHERE pronamespace = 'public'::regnamespace
      UNION ALL
      SELECT format('table %s %s', c.relname, array_to_string(c.reloptions, ',')) FROM pg_class c
        WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
      UNION ALL
      SELECT format('migration %s', name) FROM mikro_orm_migrations
      ORDER BY 1`);
    return rows.map((r) => r.item);
  } finally {
    await c.end();
  }
}

/**
 * The test files' databases are copies of a template migrated once (test/support/db.ts); the
 * migrations themselves run here, from an empty database, the way instances starting together run
 * them.
 */
describe('migrations', () => {
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('from an empty database, three instances migrating at once apply each migration once, and build the schema every test database has', async () => {
    const empty = await createTestDatabase({ empty: true });
    dbs.push(empty);
    const applied = await Promise.all([migrateDatabase(empty.url), migrateDatabase(empty.url), migrateDatabase(empty.url)]);
    expect(applied.flat().sort()).toEqual(migrationsList.map((m) => m.name).sort());
    expect(applied.filter((names) => names.length > 0)).toHaveLength(1);
    expect(await migrateDatabase(empty.url)).toEqual([]);

    const copy = await createTestDatabase();
    dbs.push(copy);
    expect(await migrateDatabase(copy.url)).toEqual([]);
    const schema = await schemaOf(empty.url);
    expect(schema.filter((s) => s.startsWith('migration '))).toHaveLength(migrationsList.length);
    expect(schema.filter((s) => s.startsWith('table cron_job_runs'))).toHaveLength(1);
    expect(await schemaOf(copy.url)).toEqual(schema);
  }, 120_000);
});
