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
import type { HttpServer, PreparedHttpServer } from './http/server.js';
import { adminTokenStartupLines, resolveAdminToken, type ResolvedAdminToken } from './auth/admin-token.js';
import { unsupportedNodeLine } from './node-support.js';

/** The API's largest packages, imported one by one before the API itself (see main). */
const API_PACKAGES = [() => import('type-graphql'), () => import('@apollo/server'), () => import('express'), () => import('ws'), () => import('graphql-scalars')];

/** `npm start`: read the configuration, start cronql and its HTTP server, stop in order on a signal. */
async function main(): Promise<void> {
  // From the process's start to here: node itself, then the imports above.
  const processStart = Math.round(performance.nodeTiming.bootstrapComplete);
  const imports = Math.round(performance.now()) - processStart;
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
  // Reading the configuration, the targets module and the admin token.
  const configured = performance.now();
  const configMs = Math.round(configured) - processStart - imports;
  const cronql = createCronql({ ...optionsFromConfig(config), targets, log });
  // Its steps follow main's without a gap: together they add up to the total.
  cronql.startup.continueFrom(configured);

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

  let http: HttpServer | undefined;
  let listening = 0;
  // The API — its modules (type-graphql, Apollo, Express: half of what a start imports), its
  // schema, Apollo started — is prepared while start() reads the jobs (PostgreSQL computes and
  // sends their rows meanwhile): no route reaches cronql before a request, and the server listens
  // only once start() is done, so /readyz still answers 200 only with the jobs armed and the API
  // answering. Not earlier, and a package at a time: evaluating modules holds the event loop, and
  // a connection or statement timer that expired meanwhile would fail a start however fast the
  // database answered — so the start's connections are open by then (recovery ran on them), and
  // no single hold is long.
  let apiStarted = 0;
  let api = 0;
  let prepared: Promise<PreparedHttpServer> | undefined;
  const prepareApi = () =>
    (prepared ??= (async () => {
      apiStarted = performance.now();
      for (const load of API_PACKAGES) await load();
      const { prepareHttpServer } = await import('./http/server.js');
      const server = await prepareHttpServer(cronql, { ...config, adminToken: admin?.token, viewerToken: config.viewerToken });
      api = Math.round(performance.now() - apiStarted);
      return server;
    })());
  // A failure is reported where it is awaited, below. Without a runtime (role api) there is no
  // recovery: the API is prepared after start().
  cronql.startup.after('recovery', () => void prepareApi().catch(() => {}));
  try {
    await cronql.start();
    http = await (await prepareApi()).listen();
    listening = cronql.startup.mark('http');
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
  const cpu = process.cpuUsage();
  const startup = {
    processStart,
    imports,
    config: configMs,
    ...cronql.startup.phases,
    // Overlapped with the jobs read and the arming, not after them: the API's modules loaded, its schema built.
    api,
    total: Math.round(listening),
    cpu: Math.round((cpu.user + cpu.system) / 1000),
  };
  log.info({ url: http.url, role: config.role, embeddedDatabase: !config.databaseUrl, startup }, 'cronql is listening');
  console.log(`cronql listening on ${http.url} (health: ${http.url}/healthz)`);
  if (admin) for (const line of adminTokenStartupLines(admin, http.url)) console.log(line);
}

main().catch((err) => {
  // Anything that escaped: one line, no stack trace on the console (the log has the details).
  console.error(`cronql: could not start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
