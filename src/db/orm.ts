import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { JobDefinition } from './entities/job-definition.entity.js';
import { migrationsList } from '../../migrations/index.js';
import { connectionOptions, DEFAULT_DB_BOUNDS, type DbBounds, type Pool } from './pool.js';
import { dialectOver } from './orm-dialect.js';

export { MikroORM };
export type { EntityManager } from '@mikro-orm/postgresql';

export interface OrmOptions {
  databaseUrl: string;
  /**
   * The process's one connection pool: the ORM borrows its connections there and has none of its
   * own (see orm-dialect.ts). Without it (migrations at startup), a small pool of `poolSize`
   * connections of its own, closed with the ORM.
   */
  pool?: Pool;
  /** Size of the ORM's own pool when no `pool` is given. @default 2 */
  poolSize?: number;
  debug?: boolean;
  /** Connect and statement bounds, the same as the runtime pool's. */
  bounds?: DbBounds;
}

export function ormConfig(options: OrmOptions): Options {
  const bounds = options.bounds ?? DEFAULT_DB_BOUNDS;
  const { connectionString: _url, ...pgOptions } = connectionOptions(options.databaseUrl, bounds);
  return {
    clientUrl: options.databaseUrl,
    // Runs are plain records, written and read by plain SQL (run-store.ts): only job definitions are mapped.
    entities: [JobDefinition],
    extensions: [Migrator],
    // The migrations are a static list: no file globbing, same behaviour under vitest and dist/.
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: true },
    // MikroORM's own dynamic import() would bypass vitest's loader.
    dynamicImportProvider: (id: string) => import(id),
    // Every wait bounded (see DbBounds): over the process's pool, by the pool's own bounds; on a
    // pool of its own, knex waits for a free connection at most the connect timeout, and each
    // connection gets the same timeouts and keep-alive.
    ...(options.pool
      ? { driverOptions: { client: dialectOver(options.pool), connection: pgOptions } }
      : {
          pool: { min: 0, max: options.poolSize ?? 2, acquireTimeoutMillis: bounds.connectTimeoutMs },
          driverOptions: { connection: pgOptions, acquireConnectionTimeout: bounds.connectTimeoutMs },
        }),
    debug: options.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ensureDatabase: false,
  };
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/**
 * A migration may take long (an index on a big table) and may wait for another instance's
 * migrations (the advisory lock): its own connection bounds a statement at an hour, not at the
 * runtime's few seconds. Connecting stays bounded.
 */
export const MIGRATION_STATEMENT_MS = 3_600_000;

/** Opens a small ORM (the migrator takes a second connection beside its transaction) with the migration bounds, applies pending migrations, closes it. */
export async function migrateDatabase(databaseUrl: string, bounds: DbBounds = DEFAULT_DB_BOUNDS): Promise<string[]> {
  const orm = await openOrm({ databaseUrl, poolSize: 2, bounds: { connectTimeoutMs: bounds.connectTimeoutMs, queryTimeoutMs: MIGRATION_STATEMENT_MS } });
  try {
    return await migrate(orm);
  } finally {
    await orm.close(true);
  }
}

/**
 * Applies pending migrations; safe when several instances start together: everything, including
 * creating the migrations table, happens under an advisory lock. Returns the names applied.
 */
export async function migrate(orm: MikroORM): Promise<string[]> {
  return orm.em.fork().transactional(async (em) => {
    // Held until commit: a second instance waits, then finds nothing left to apply.
    // A migration may legitimately take longer than one statement's usual bound.
    await em.execute('SET LOCAL statement_timeout = 0');
    await em.execute('SELECT pg_advisory_xact_lock(7253190041)');
    const applied = await orm.getMigrator().up({ transaction: em.getTransactionContext() });
    return applied.map((m) => m.name);
  });
}
