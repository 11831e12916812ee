import type { Logger } from './logger.js';
import { defaultInstanceId, lostAfterProblem, TUNABLES, tunableProblem, type Config, type Role, type Tunable } from './config.js';
import type { Clock } from './runtime/clock.js';
import type { TargetMap } from './runtime/targets/target.js';
import { TracingSettingsError, tracingRequested, tracingSettings, type TracingSettings } from './tracing/settings.js';

export interface CronqlOptions {
  /** PostgreSQL URL; undefined = embedded PostgreSQL in `dataDir`. */
  databaseUrl?: string;
  /** Where the embedded PostgreSQL keeps its files. @default "./.cronql" */
  dataDir?: string;
  /** Custom targets: name → handler. */
  targets?: TargetMap;
  /** `api` runs no runtime. @default "all" */
  role?: Role;
  /** @default "<host>-<pid>-<random>" */
  instanceId?: string;
  /** @default 900000 */
  staleAfterMs?: number;
  /** @default 30000 */
  shutdownGraceMs?: number;
  /** @default 65536 */
  maxPayloadBytes?: number;
  /** Let the `http` target call loopback/private addresses. @default false */
  httpAllowPrivate?: boolean;
  /** How often a runtime records that it is alive and sweeps lost runs. @default 5000 */
  heartbeatMs?: number;
  /** A runner silent this long has lost its RUNNING runs (RUNNER_LOST). @default 30000 */
  lostAfterMs?: number;
  /** A slot not recorded within this long after it came due is MISSED rather than run late. @default 10000 */
  misfireGraceMs?: number;
  /** Where failure alerts are POSTed (JSON); unset: no alerts. */
  alertWebhookUrl?: string;
  /** HMAC-SHA256 key signing each alert body (`X-Cronql-Signature`). */
  alertWebhookSecret?: string;
  /** The server's public base URL (`https://cron.example.com`): Slack alerts link to the run in its dashboard. */
  publicUrl?: string;
  /** 32-byte key (base64 or hex) encrypting secrets at rest; unset: `<dataDir>/secrets-key`, generated with the first secret. */
  secretsKey?: string;
  /** Runs scheduled longer ago than this (their slot, or a run-now's creation) are deleted (0 keeps everything); pruned by runtime roles. @default 180 */
  retentionDays?: number;
  /** How many scheduler instances arm each job; 0: every instance arms every job. @default 2 */
  jobReplicas?: number;
  /** Run log lines written longer ago than this many days are deleted (0 keeps them as long as their run); pruned by runtime roles. @default 30 */
  runLogRetentionDays?: number;
  /** Audit entries older than this many days are deleted (0 keeps them); pruned by runtime roles. @default 400 */
  auditRetentionDays?: number;
  /** How long to wait for a database connection (new, or free in a full pool). @default 5000 */
  dbConnectTimeoutMs?: number;
  /** Client-side bound on one statement (the server's statement_timeout matches). @default 10000 */
  dbQueryTimeoutMs?: number;
  /** @default a SystemClock */
  clock?: Clock;
  /** Listen for other instances' changes (LISTEN/NOTIFY). @default true */
  listen?: boolean;
  /**
   * Export OpenTelemetry traces over OTLP (docs/operations.md, "Tracing"); the exporter and the
   * batch processor read the standard `OTEL_*` variables. Off, nothing of OpenTelemetry is loaded.
   * @default true when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set
   */
  tracing?: boolean;
  log?: Logger;
}

/** The options with every default applied: what a Cronql runs with. */
export type ResolvedOptions = Omit<CronqlOptions, Tunable | 'role' | 'instanceId' | 'dataDir' | 'listen' | 'tracing'> & { [K in Tunable]: number } & {
  role: Role;
  instanceId: string;
  dataDir: string;
  listen: boolean;
  /** The batch processor's settings when tracing is on; undefined: off. */
  tracing?: TracingSettings;
};

/** A bad option given to `createCronql` (or `attachCronql`): the message names it and says what it must be. */
export class OptionsError extends Error {
  constructor(
    readonly option: string,
    problem: string,
    where = 'createCronql',
  ) {
    super(`${where}: ${option} ${problem}`);
    this.name = 'OptionsError';
  }
}

const ROLES: readonly Role[] = ['all', 'api', 'scheduler'];

/**
 * What `npm start` gives `createCronql` from the environment (`loadConfig`): every tunable —
 * taken from the one table of them, so a variable added there cannot be read, checked and then
 * left behind (CRONQL_RUN_LOG_RETENTION_DAYS and CRONQL_AUDIT_RETENTION_DAYS once were) — and
 * the settings a Cronql takes besides. The server's own (port, tokens, limits) go to the HTTP server.
 */
export function optionsFromConfig(config: Config): CronqlOptions {
  const tunables = Object.fromEntries((Object.keys(TUNABLES) as Tunable[]).map((name) => [name, config[name]])) as { [K in Tunable]: number };
  return {
    ...tunables,
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    role: config.role,
    instanceId: config.instanceId,
    httpAllowPrivate: config.httpAllowPrivate,
    alertWebhookUrl: config.alertWebhookUrl,
    alertWebhookSecret: config.alertWebhookSecret,
    publicUrl: config.publicUrl,
    secretsKey: config.secretsKey,
  };
}

/**
 * Checks the options once, when a Cronql is created (as `loadConfig` checks the environment, by
 * the same rules and bounds), and fills in every default — the only place they are applied.
 */
export function resolveOptions(o: CronqlOptions = {}): ResolvedOptions {
  const tunables = {} as { [K in Tunable]: number };
  for (const name of Object.keys(TUNABLES) as Tunable[]) {
    const value = o[name as keyof CronqlOptions];
    if (value === undefined) {
      tunables[name] = TUNABLES[name].default;
      continue;
    }
    const problem = tunableProblem(name, value);
    if (problem) throw new OptionsError(name, problem);
    tunables[name] = value as number;
  }
  const lost = lostAfterProblem(tunables.heartbeatMs, tunables.lostAfterMs);
  if (lost) throw new OptionsError('lostAfterMs', lost);
  const role = o.role ?? 'all';
  if (!ROLES.includes(role)) throw new OptionsError('role', `must be one of ${ROLES.join(', ')}, got ${String(role)}`);
  const instanceId = o.instanceId ?? defaultInstanceId();
  if (typeof instanceId !== 'string' || instanceId.length === 0 || instanceId.length > 200) {
    throw new OptionsError('instanceId', 'must be a string of 1 to 200 characters');
  }
  if (o.databaseUrl !== undefined) {
    const url = typeof o.databaseUrl === 'string' && URL.canParse(o.databaseUrl) ? new URL(o.databaseUrl) : undefined;
    if (!url || !['postgres:', 'postgresql:'].includes(url.protocol)) throw new OptionsError('databaseUrl', 'must be a postgres:// or postgresql:// URL');
  }
  if (o.alertWebhookUrl !== undefined) {
    const url = typeof o.alertWebhookUrl === 'string' && URL.canParse(o.alertWebhookUrl) ? new URL(o.alertWebhookUrl) : undefined;
    if (!url || !['http:', 'https:'].includes(url.protocol)) throw new OptionsError('alertWebhookUrl', 'must be an absolute http: or https: URL');
  }
  if (o.publicUrl !== undefined) {
    const url = typeof o.publicUrl === 'string' && URL.canParse(o.publicUrl) ? new URL(o.publicUrl) : undefined;
    if (!url || !['http:', 'https:'].includes(url.protocol)) throw new OptionsError('publicUrl', 'must be an absolute http: or https: URL');
  }
  if (o.tracing !== undefined && typeof o.tracing !== 'boolean') throw new OptionsError('tracing', 'must be a boolean');
  let tracing: TracingSettings | undefined;
  if (o.tracing ?? tracingRequested()) {
    try {
      tracing = tracingSettings();
    } catch (err) {
      if (err instanceof TracingSettingsError) throw new OptionsError('tracing', `cannot be on: ${err.message}`);
      throw err;
    }
  }
  return { ...o, ...tunables, role, instanceId, dataDir: o.dataDir ?? './.cronql', listen: o.listen !== false, tracing };
}
