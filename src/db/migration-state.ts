import { MIGRATION_NAMES } from '../../migrations/names.js';
import type { Pool } from './pool.js';

/** The table MikroORM's migrator records applied migrations in (its default name). */
const MIGRATIONS_TABLE = 'mikro_orm_migrations';

/**
 * The migrations the database has not recorded, in order (all of them on an empty database): one
 * read, so that a start with nothing to apply loads neither the migrations nor MikroORM's
 * migrator (a quarter of a second of imports). Only a non-empty answer is acted on, under the
 * migrator's advisory lock (orm.ts, `migrate`), which decides again what is pending.
 */
export async function pendingMigrations(pool: Pool): Promise<string[]> {
  const res = await pool.query(`SELECT name FROM ${MIGRATIONS_TABLE} WHERE name = ANY($1::text[])`, [MIGRATION_NAMES]).catch((err: { code?: string }) => {
    // No table yet (a new database): nothing is applied.
    if (err.code === UNDEFINED_TABLE) return { rows: [] };
    throw err;
  });
  const applied = new Set(res.rows.map((r: { name: string }) => r.name));
  return MIGRATION_NAMES.filter((name) => !applied.has(name));
}

/** PostgreSQL's code for a relation that does not exist. */
const UNDEFINED_TABLE = '42P01';
