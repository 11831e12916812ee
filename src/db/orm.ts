import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { JobDefinition } from './entities/job-definition.entity.js';
import { JobRun } from './entities/job-run.entity.js';
import { migrationsList } from '../../migrations/index.js';

export { MikroORM };
export type { EntityManager } from '@mikro-orm/postgresql';

export interface OrmOptions {
  databaseUrl: string;
  /** Connection pool size. @default 10 */
  poolSize?: number;
  debug?: boolean;
}

export function ormConfig(options: OrmOptions): Options {
  return {
    clientUrl: options.databaseUrl,
    entities: [JobDefinition, JobRun],
    extensions: [Migrator],
    // The migrations are a static list: no file globbing, same behaviour under vitest and dist/.
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    discovery: { warnWhenNoEntities: true },
    // MikroORM's own dynamic import() would bypass vitest's loader.
    dynamicImportProvider: (id: string) => import(id),
    pool: { min: 0, max: options.poolSize ?? 10 },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    forceUtcTimezone: true,
    ensureDatabase: false,
  };
}

export async function openOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init(ormConfig(options));
}

/** Applies pending migrations; safe when several instances start together (advisory lock). */
export async function migrate(orm: MikroORM): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    // Held until commit: a second instance waits, then finds nothing left to apply.
    await em.execute('SELECT pg_advisory_xact_lock(7253190041)');
    await orm.getMigrator().up({ transaction: em.getTransactionContext() });
  });
}
