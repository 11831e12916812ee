import { loadConfig } from '../config.js';
import { ConfigError } from '../errors.js';
import { createLogger } from '../logger.js';
import { EmbeddedPostgresMissingError } from '../db/embedded/binaries.js';
import { migrateDatabase } from '../db/orm.js';

/** `npm run migrate`: apply pending migrations to DATABASE_URL (or the embedded database). */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger();
  const embedded = config.databaseUrl
    ? undefined
    : await (await import('../db/embedded-postgres.js')).startEmbeddedPostgres({ dataDir: config.dataDir, log });
  try {
    const applied = await migrateDatabase(config.databaseUrl ?? embedded!.url, {
      connectTimeoutMs: config.dbConnectTimeoutMs,
      queryTimeoutMs: config.dbQueryTimeoutMs,
    });
    console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(', ')}` : 'no pending migrations');
  } finally {
    await embedded?.stop();
  }
}

main().catch((err) => {
  if (err instanceof EmbeddedPostgresMissingError) console.error(`cronql: ${err.message}`);
  else console.error(err instanceof ConfigError ? `cronql: invalid configuration: ${err.message}` : err);
  process.exit(err instanceof ConfigError || err instanceof EmbeddedPostgresMissingError ? 2 : 1);
});
