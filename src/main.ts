// First: graphql must load in production mode before any module imports it.
import './graphql-production-mode.js';
import 'reflect-metadata';
import { loadConfig, RUNTIME_BOUNDS, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { EmbeddedPostgresMissingError } from './db/embedded/binaries.js';
import { createLogger } from './logger.js';
import { createCronql } from './app.js';
import { optionsFromConfig } from './options.js';
import { loadTargetModule } from './runtime/targets/load-module.js';
import { startHttpServer } from './http/server.js';
import { adminTokenStartupLines, resolveAdminToken, type ResolvedAdminToken } from './auth/admin-token.js';
import { unsupportedNodeLine } from './node-support.js';

/** `npm start`: read the configuration, start cronql and its HTTP server, stop in order on a signal. */
async function main(): Promise<void> {
  // From the process's start to here: node itself and the imports above.
  const imports = Math.round(performance.now());
  // Said once and then ignored: an older Node may well run cronql, but it is not what was tested.
  const unsupported = unsupportedNodeLine(process.version);
  if (unsupported) console.error(unsupported);
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`cronql: invalid configuration: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger({ instanceId: config.instanceId });
  let targets = {};
  let admin: ResolvedAdminToken | undefined;
  try {
    if (config.targetsModule) targets = await loadTargetModule(config.targetsModule);
    // A scheduler serves no API, so it needs no token.
    if (config.role !== 'scheduler') admin = await resolveAdminToken({ adminToken: config.adminToken, dataDir: config.dataDir });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(`cronql: invalid configuration: ${err.message}`);
    process.exit(2);
  }
  const cronql = createCronql({ ...optionsFromConfig(config), targets, log });

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal }, 'shutting down: no more firing, draining in-flight runs');
    // Every step below is bounded; this is the last word if the database hangs in a way they miss.
    setTimeout(() => {
      log.error({ graceMs: config.shutdownGraceMs }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + RUNTIME_BOUNDS.shutdownLastResortMs).unref();
    try {
      // Stop firing first, then stop serving, then drain the runs in flight.
      cronql.stopFiring();
      await http?.close();
      await cronql.stop();
      log.info('stopped');
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  let http: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  try {
    await cronql.start();
    http = await startHttpServer(cronql, { ...config, adminToken: admin?.token, viewerToken: config.viewerToken });
    cronql.startup.mark('http');
  } catch (err) {
    // Nothing to add to this one (no stack, no log line): it says what to do.
    const missing = err instanceof EmbeddedPostgresMissingError;
    if (missing) console.error(`cronql: ${err.message}`);
    else {
      log.error({ err }, 'cronql could not start');
      // One line for whoever reads the console; the log line above has the details.
      console.error(`cronql: could not start: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    await Promise.race([cronql.stop().catch(() => {}), new Promise((r) => setTimeout(r, 5_000).unref())]);
    process.exit(missing ? 2 : 1);
  }
  const startup = { processAndImports: imports, ...cronql.startup.phases, total: Math.round(performance.now()) };
  log.info({ url: http.url, role: config.role, embeddedDatabase: !config.databaseUrl, startup }, 'cronql is listening');
  console.log(`cronql listening on ${http.url} (health: ${http.url}/healthz)`);
  if (admin) for (const line of adminTokenStartupLines(admin, http.url)) console.log(line);
}

main().catch((err) => {
  // Anything that escaped: one line, no stack trace on the console (the log has the details).
  console.error(`cronql: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
