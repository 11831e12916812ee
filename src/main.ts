// First: graphql must load in production mode before any module imports it.
import './graphql-production-mode.js';
import 'reflect-metadata';
import { loadConfig, RUNTIME_BOUNDS, type Config } from './config.js';
import { ConfigError } from './errors.js';
import { EmbeddedPostgresMissingError } from './db/embedded/binaries.js';
import { createLogger } from './logger.js';
import { createCronql } from './app.js';
import { loadTargetModule } from './runtime/targets/load-module.js';
import type { HttpServer, PreparedHttpServer } from './http/server.js';
import { adminTokenStartupLines, resolveAdminToken, type ResolvedAdminToken } from './auth/admin-token.js';
import { unsupportedNodeLine } from './node-support.js';

/** `npm start`: read the configuration, start cronql and its HTTP server, stop in order on a signal. */
async function main(): Promise<void> {
  // From the process's start to here: node itself, then the imports above.
  const processStart = Math.round(performance.nodeTiming.bootstrapComplete);
  const imports = Math.round(performance.now()) - processStart;
  // The API's modules (GraphQL, type-graphql, Apollo, Express: most of what a start imports) load
  // from now on, while the configuration is read and start() waits on the database.
  const apiStarted = performance.now();
  const httpModule = import('./http/server.js');
  httpModule.catch(() => {}); // awaited below; a failure is reported there
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
  const cronql = createCronql({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    targets,
    role: config.role,
    instanceId: config.instanceId,
    staleAfterMs: config.staleAfterMs,
    shutdownGraceMs: config.shutdownGraceMs,
    heartbeatMs: config.heartbeatMs,
    lostAfterMs: config.lostAfterMs,
    misfireGraceMs: config.misfireGraceMs,
    dbConnectTimeoutMs: config.dbConnectTimeoutMs,
    dbQueryTimeoutMs: config.dbQueryTimeoutMs,
    retentionDays: config.retentionDays,
    jobReplicas: config.jobReplicas,
    alertWebhookUrl: config.alertWebhookUrl,
    alertWebhookSecret: config.alertWebhookSecret,
    publicUrl: config.publicUrl,
    secretsKey: config.secretsKey,
    maxPayloadBytes: config.maxPayloadBytes,
    httpAllowPrivate: config.httpAllowPrivate,
    log,
  });

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
  // Its schema is built and Apollo started while start() waits on the database too: no route
  // reaches cronql before a request, and the server listens only once start() is done, so
  // /readyz still answers 200 only with the jobs armed and the API answering.
  let api = 0;
  const prepared: Promise<PreparedHttpServer> = httpModule.then(async ({ prepareHttpServer }) => {
    const server = await prepareHttpServer(cronql, { ...config, adminToken: admin?.token, viewerToken: config.viewerToken });
    api = Math.round(performance.now() - apiStarted);
    return server;
  });
  prepared.catch(() => {}); // awaited below; a failure is reported there
  try {
    await cronql.start();
    http = await (await prepared).listen();
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
  const cpu = process.cpuUsage();
  const startup = {
    processStart,
    imports,
    ...cronql.startup.phases,
    // Overlapped with the steps above, not after them: from main's start to the API prepared.
    api,
    total: Math.round(performance.now()),
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
