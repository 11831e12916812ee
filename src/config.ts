import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { ConfigError } from './errors.js';

export type Role = 'all' | 'api' | 'scheduler';

/** cronql's configuration, read once from the environment at startup (see API.md). */
export interface Config {
  /** HTTP and WebSocket port. @default 4000 */
  port: number;
  /** Bind address. @default "127.0.0.1" */
  host: string;
  /** PostgreSQL URL; undefined = embedded PostgreSQL in `dataDir`. */
  databaseUrl?: string;
  /** Embedded database files and the generated admin token. @default "./.cronql" */
  dataDir: string;
  /** Admin token; undefined = generated on first start and kept in `dataDir`. */
  adminToken?: string;
  /** Optional read-only token. */
  viewerToken?: string;
  /** Path of an ES module whose default export maps target names to handlers. */
  targetsModule?: string;
  /** Which parts run in this process. @default "all" */
  role: Role;
  /** Recorded as `runnerInstanceId`. @default "<host>-<pid>-<random>" */
  instanceId: string;
  /** RUNNING runs older than this at startup become FAILED (STALE_TIMEOUT). @default 900000 */
  staleAfterMs: number;
  /** Let the `http` target call loopback/private addresses. @default false */
  httpAllowPrivate: boolean;
  /** How long in-flight runs may take to finish on shutdown. @default 30000 */
  shutdownGraceMs: number;
  /** Largest accepted job/run payload, in bytes of JSON. @default 65536 */
  maxPayloadBytes: number;
  /** How often a runtime records that it is alive (and sweeps lost runs). @default 5000 */
  heartbeatMs: number;
  /** A runner silent this long has lost its RUNNING runs (RUNNER_LOST): the sweep settles them at most this long after its last heartbeat. @default 30000 */
  lostAfterMs: number;
  /** A slot that cannot be recorded within this long after it came due is MISSED, not run late. @default 10000 */
  misfireGraceMs: number;
  /** How long to wait for a new database connection (or a free one in the pool). @default 5000 */
  dbConnectTimeoutMs: number;
  /** Client-side bound on one statement; `statement_timeout` is set to match. @default 10000 */
  dbQueryTimeoutMs: number;
  /** Subscriptions one WebSocket may hold; the next is refused. @default 50 */
  maxSubscriptionsPerConnection: number;
  /** Open WebSocket connections per process; the next is closed with 1013. @default 5000 */
  maxConnections: number;
  /** Largest answer to one operation; larger fails with RESPONSE_TOO_LARGE. @default 8388608 */
  maxResponseBytes: number;
  /** Bearer token `/metrics` requires when set. @default unset (open, like /healthz) */
  metricsToken?: string;
  /** Runs created longer ago than this many days are deleted; 0 keeps everything. @default 180 */
  retentionDays: number;
  /** Where failure alerts are POSTed as JSON. @default unset (no alerts) */
  alertWebhookUrl?: string;
  /** HMAC-SHA256 key signing each alert body. @default unset */
  alertWebhookSecret?: string;
  /** Browser origins allowed to call the API (comma-separated). @default none beyond the same origin */
  corsOrigins: string[];
}

/** The defaults of the tunables, shared by the environment reader and the library API. */
export const DEFAULTS = {
  staleAfterMs: 900_000,
  shutdownGraceMs: 30_000,
  maxPayloadBytes: 65_536,
  heartbeatMs: 5_000,
  lostAfterMs: 30_000,
  misfireGraceMs: 10_000,
  dbConnectTimeoutMs: 5_000,
  dbQueryTimeoutMs: 10_000,
  maxSubscriptionsPerConnection: 50,
  maxConnections: 5_000,
  maxResponseBytes: 8_388_608,
  retentionDays: 180,
} as const;

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer between ${min} and ${max}, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be an integer between ${min} and ${max}, got "${raw}"`);
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['true', '1', 'yes'].includes(raw)) return true;
  if (['false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be true or false, got "${env[name]}"`);
}

function str(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

function token(env: Env, name: string): string | undefined {
  const value = str(env, name);
  if (value !== undefined && value.length < 16) {
    throw new ConfigError(name, 'must be at least 16 characters long');
  }
  return value;
}

export function defaultInstanceId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/** Reads and validates the configuration; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  const role = (str(env, 'CRONQL_ROLE') ?? 'all') as Role;
  if (!['all', 'api', 'scheduler'].includes(role)) {
    throw new ConfigError('CRONQL_ROLE', `must be one of all, api, scheduler, got "${env.CRONQL_ROLE}"`);
  }
  const databaseUrl = str(env, 'DATABASE_URL');
  if (databaseUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(databaseUrl);
    } catch {
      throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
    if (!['postgres:', 'postgresql:'].includes(url.protocol)) {
      throw new ConfigError('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    }
  }
  const adminToken = token(env, 'CRONQL_ADMIN_TOKEN');
  const viewerToken = token(env, 'CRONQL_VIEWER_TOKEN');
  if (adminToken && viewerToken && adminToken === viewerToken) {
    throw new ConfigError('CRONQL_VIEWER_TOKEN', 'must differ from CRONQL_ADMIN_TOKEN');
  }
  const instanceId = str(env, 'CRONQL_INSTANCE_ID') ?? defaultInstanceId();
  if (instanceId.length > 200) throw new ConfigError('CRONQL_INSTANCE_ID', 'must be at most 200 characters');
  const heartbeatMs = int(env, 'CRONQL_HEARTBEAT_MS', DEFAULTS.heartbeatMs, 100, 600_000);
  const lostAfterMs = int(env, 'CRONQL_LOST_AFTER_MS', DEFAULTS.lostAfterMs, 300, 86_400_000);
  if (lostAfterMs < 3 * heartbeatMs) {
    throw new ConfigError('CRONQL_LOST_AFTER_MS', `must be at least 3 × CRONQL_HEARTBEAT_MS (${3 * heartbeatMs}), got "${lostAfterMs}"`);
  }
  return {
    port: int(env, 'PORT', 4000, 0, 65535),
    host: str(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    dataDir: resolve(str(env, 'CRONQL_DATA_DIR') ?? './.cronql'),
    adminToken,
    viewerToken,
    targetsModule: str(env, 'CRONQL_TARGETS'),
    role,
    instanceId,
    staleAfterMs: int(env, 'CRONQL_STALE_AFTER_MS', DEFAULTS.staleAfterMs, 1_000, 2_147_483_647),
    httpAllowPrivate: bool(env, 'CRONQL_HTTP_ALLOW_PRIVATE', false),
    shutdownGraceMs: int(env, 'CRONQL_SHUTDOWN_GRACE_MS', DEFAULTS.shutdownGraceMs, 0, 3_600_000),
    maxPayloadBytes: int(env, 'CRONQL_MAX_PAYLOAD_BYTES', DEFAULTS.maxPayloadBytes, 1, 16 * 1024 * 1024),
    heartbeatMs,
    lostAfterMs,
    misfireGraceMs: int(env, 'CRONQL_MISFIRE_GRACE_MS', DEFAULTS.misfireGraceMs, 1_000, 86_400_000),
    dbConnectTimeoutMs: int(env, 'CRONQL_DB_CONNECT_TIMEOUT_MS', DEFAULTS.dbConnectTimeoutMs, 100, 600_000),
    dbQueryTimeoutMs: int(env, 'CRONQL_DB_QUERY_TIMEOUT_MS', DEFAULTS.dbQueryTimeoutMs, 100, 3_600_000),
    maxSubscriptionsPerConnection: int(env, 'CRONQL_MAX_SUBSCRIPTIONS_PER_CONNECTION', DEFAULTS.maxSubscriptionsPerConnection, 1, 10_000),
    maxConnections: int(env, 'CRONQL_MAX_CONNECTIONS', DEFAULTS.maxConnections, 1, 1_000_000),
    maxResponseBytes: int(env, 'CRONQL_MAX_RESPONSE_BYTES', DEFAULTS.maxResponseBytes, 1_024, 1_073_741_824),
    metricsToken: str(env, 'CRONQL_METRICS_TOKEN'),
    retentionDays: int(env, 'CRONQL_RETENTION_DAYS', DEFAULTS.retentionDays, 0, 36_500),
    alertWebhookUrl: webhookUrl(env),
    alertWebhookSecret: str(env, 'CRONQL_ALERT_WEBHOOK_SECRET'),
    corsOrigins: origins(env),
  };
}

function webhookUrl(env: Env): string | undefined {
  const value = str(env, 'CRONQL_ALERT_WEBHOOK_URL');
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError('CRONQL_ALERT_WEBHOOK_URL', `must be an absolute http: or https: URL, got "${value}"`);
  }
  return url.href;
}

/** `https://app.example.com,http://localhost:3000`: each an origin (scheme, host, port; no path). */
function origins(env: Env): string[] {
  const value = str(env, 'CRONQL_CORS_ORIGINS');
  if (value === undefined) return [];
  return value.split(',').map((o) => o.trim()).filter(Boolean).map((o) => {
    const url = URL.canParse(o) ? new URL(o) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== o.replace(/\/$/, '')) {
      throw new ConfigError('CRONQL_CORS_ORIGINS', `each entry must be an origin like https://app.example.com, got "${o}"`);
    }
    return url.origin;
  });
}
