import { loadConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { createLogger } from '../logger.js';
import { startEmbeddedPostgres } from '../db/embedded-postgres.js';
import { migrate, openOrm } from '../db/orm.js';

/** `npm run migrate`: apply pending migrations to DATABASE_URL (or the embedded database). */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger();
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, log });
  const orm = await openOrm({ databaseUrl: config.databaseUrl ?? embedded!.url });
  try {
    const pending = await orm.getMigrator().getPendingMigrations();
    await migrate(orm);
    console.log(pending.length ? `applied ${pending.length} migration(s): ${pending.map((m) => m.name).join(', ')}` : 'no pending migrations');
  } finally {
    await orm.close(true);
    await embedded?.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof ConfigError ? `cronql: invalid configuration: ${err.message}` : err);
  process.exit(err instanceof ConfigError ? 2 : 1);
});
