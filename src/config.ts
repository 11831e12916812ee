import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseSecretsKey } from './secrets/key.js';
import { ConfigError } from './errors.js';

export type Role = 'all' | 'api' | 'scheduler';

/** cronql's configuration, read once from the environment at startup (every variable: docs/configuration.md). */
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
  /** Runs scheduled longer ago than this many days (their slot, or a run-now's creation) are deleted; 0 keeps everything. @default 180 */
  retentionDays: number;
  /** How many scheduler instances arm each job (0: every instance arms every job). @default 2 */
  jobReplicas: number;
  /** Run log lines written longer ago than this many days are deleted (0 keeps them as long as their run). @default 30 */
  runLogRetentionDays: number;
  /** Audit entries older than this many days are deleted (0 keeps them). @default 400 */
  auditRetentionDays: number;
  /** Where failure alerts are POSTed as JSON. @default unset (no alerts) */
  alertWebhookUrl?: string;
  /** HMAC-SHA256 key signing each alert body. @default unset */
  alertWebhookSecret?: string;
  /** The server's public base URL: Slack alerts link to the run in its dashboard. @default unset (no links) */
  publicUrl?: string;
  /** Key encrypting secrets at rest (checked here: 32 bytes, base64 or hex). @default generated into the data dir */
  secretsKey?: string;
  /** Browser origins allowed to call the API (comma-separated). @default none beyond the same origin */
  corsOrigins: string[];
}

/**
 * The tunables: each one's environment variable, default and bounds, written once and used by
 * both the environment reader (`loadConfig`) and the library API (`createCronql` options).
 */
export const TUNABLES = {
  staleAfterMs: { env: 'CRONQL_STALE_AFTER_MS', default: 900_000, min: 1_000, max: 2_147_483_647 },
  shutdownGraceMs: { env: 'CRONQL_SHUTDOWN_GRACE_MS', default: 30_000, min: 0, max: 3_600_000 },
  maxPayloadBytes: { env: 'CRONQL_MAX_PAYLOAD_BYTES', default: 65_536, min: 1, max: 16 * 1024 * 1024 },
  heartbeatMs: { env: 'CRONQL_HEARTBEAT_MS', default: 5_000, min: 100, max: 600_000 },
  lostAfterMs: { env: 'CRONQL_LOST_AFTER_MS', default: 30_000, min: 300, max: 86_400_000 },
  misfireGraceMs: { env: 'CRONQL_MISFIRE_GRACE_MS', default: 10_000, min: 1_000, max: 86_400_000 },
  dbConnectTimeoutMs: { env: 'CRONQL_DB_CONNECT_TIMEOUT_MS', default: 5_000, min: 100, max: 600_000 },
  dbQueryTimeoutMs: { env: 'CRONQL_DB_QUERY_TIMEOUT_MS', default: 10_000, min: 100, max: 3_600_000 },
  maxSubscriptionsPerConnection: { env: 'CRONQL_MAX_SUBSCRIPTIONS_PER_CONNECTION', default: 50, min: 1, max: 10_000 },
  maxConnections: { env: 'CRONQL_MAX_CONNECTIONS', default: 5_000, min: 1, max: 1_000_000 },
  maxResponseBytes: { env: 'CRONQL_MAX_RESPONSE_BYTES', default: 8_388_608, min: 1_024, max: 1_073_741_824 },
  retentionDays: { env: 'CRONQL_RETENTION_DAYS', default: 180, min: 0, max: 36_500 },
  jobReplicas: { env: 'CRONQL_JOB_REPLICAS', default: 2, min: 0, max: 16 },
  runLogRetentionDays: { env: 'CRONQL_RUN_LOG_RETENTION_DAYS', default: 30, min: 0, max: 36_500 },
  auditRetentionDays: { env: 'CRONQL_AUDIT_RETENTION_DAYS', default: 400, min: 0, max: 36_500 },
} as const;

export type Tunable = keyof typeof TUNABLES;

/**
 * The runtime's fixed bounds: not configurable, but written here once, beside the tunables, and
 * handed to the parts that use them (the runtime passes them on; none of them has a default of
 * its own).
 */
export const RUNTIME_BOUNDS = {
  /** Alarms for waiting runs (retries) at most; past it the retry-wakeups duty claims the rest, a heartbeat late at most. */
  maxRetryWakers: 100_000,
  /** Alarms for pauses that end by themselves at most; past it the pause-ends duty sets the rest as their ends come near. */
  maxPauseAlarms: 100_000,
  /** On stop, how long slots being recorded may take to start their runs (at most the shutdown grace). */
  stopRecordingMs: 5_000,
  /** A heartbeat is fresh within two heartbeats and this much. */
  heartbeatSlackMs: 1_000,
  /**
   * On SIGTERM/SIGINT, how long past the shutdown grace the process waits for its bounded stop
   * steps before it exits 1 anyway: a container's stop timeout (compose's stop_grace_period,
   * Kubernetes' terminationGracePeriodSeconds) must cover the grace plus this.
   */
  shutdownLastResortMs: 15_000,
} as const;

/**
 * The maintenance duties (src/maintenance; docs/operations.md, "Maintenance"): how often each
 * runs, in heartbeats (CRONQL_HEARTBEAT_MS), and their fixed bounds. Written once, here.
 */
export const MAINTENANCE = {
  /** Each duty's period, in heartbeats. */
  everyHeartbeats: {
    heartbeat: 1,
    lease: 1,
    'heartbeat-timeouts': 1,
    'lost-runs': 1,
    'pending-runs': 1,
    'retry-wakeups': 1,
    'pause-ends': 1,
    'stranded-buffers': 1,
    'chain-stops': 1,
    backfills: 1,
    rebalance: 1,
    'own-runs': 1,
    'late-jobs': 1,
    'instance-pruning': 60,
  },
  /** Between two retention rounds (an hour). */
  retentionEveryMs: 3_600_000,
  /** Runs deleted per retention statement. */
  retentionBatch: 1_000,
  /** Run log lines deleted per statement of their own retention. */
  runLogRetentionBatch: 10_000,
  /** Audit entries deleted per statement of their own retention. */
  auditRetentionBatch: 10_000,
  /** PENDING runs older than this are claimed by the pending-runs duty (their creator did not). */
  pendingAfterMs: 2_000,
  /** Rows one pass of a duty handles at most (pending runs, retries, buffered slots). */
  perPass: 1_000,
  /** Instance rows silent this long (or ten times the lost-runner bound, if longer) are deleted. */
  pruneInstancesAfterMs: 3_600_000,
} as const;

/**
 * Alert deliveries (alerts/deliverer.ts; docs/operations.md, "Notifications"): fixed bounds,
 * written once here.
 */
export const NOTIFICATIONS = {
  /** One attempt's HTTP bound. */
  timeoutMs: 10_000,
  /** Attempts per delivery (about 68 minutes of retries), then it is given up. */
  attempts: 12,
  /** The first retry's delay; doubles each attempt. */
  retryMs: 1_000,
  maxRetryMs: 3_600_000,
  /** The outbox is read this often without a notification (one lost, or an api-only instance). */
  pollMs: 5_000,
  /** Channels sent to at once. */
  batch: 20,
  /** Delivered and given-up deliveries are kept this long, then pruned with the run history. */
  keepMs: 7 * 86_400_000,
  /** JOB_LATE: jobs checked per pass of the late-jobs duty. */
  lateJobsPerPass: 1_000,
} as const;

/**
 * How long the cluster-wide maintenance lease lasts: the lost-runner bound less two heartbeats
 * (at least two heartbeats). A killed holder's lease lapses, another instance takes it at its next
 * heartbeat, and runs the lost-run rescue at once: its own lost runs are still settled within the
 * bound of their last heartbeat.
 */
export function maintenanceLeaseMs(heartbeatMs: number, lostAfterMs: number): number {
  return Math.max(2 * heartbeatMs, lostAfterMs - 2 * heartbeatMs);
}

/** The defaults of the tunables. */
export const DEFAULTS = Object.fromEntries(Object.entries(TUNABLES).map(([k, t]) => [k, t.default])) as { [K in Tunable]: (typeof TUNABLES)[K]['default'] };

/** What is wrong with `value` as the tunable `name`, or null (an integer within its bounds). */
export function tunableProblem(name: Tunable, value: unknown): string | null {
  const { min, max } = TUNABLES[name];
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return null;
  return `must be an integer between ${min} and ${max}, got ${typeof value === 'string' ? `"${value}"` : String(value)}`;
}

/** The runner-loss rule: a runner is judged lost only after it missed at least three beats. */
export function lostAfterProblem(heartbeatMs: number, lostAfterMs: number): string | null {
  return lostAfterMs < 3 * heartbeatMs ? `must be at least 3 × the heartbeat (${3 * heartbeatMs}), got ${lostAfterMs}` : null;
}

type Env = Record<string, string | undefined>;

/** A tunable from its environment variable, or its default. */
function tunable(env: Env, name: Tunable): number {
  const t = TUNABLES[name];
  return int(env, t.env, t.default, t.min, t.max);
}

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
  const heartbeatMs = tunable(env, 'heartbeatMs');
  const lostAfterMs = tunable(env, 'lostAfterMs');
  const lost = lostAfterProblem(heartbeatMs, lostAfterMs);
  if (lost) throw new ConfigError('CRONQL_LOST_AFTER_MS', lost.replace('the heartbeat', 'CRONQL_HEARTBEAT_MS'));
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
    staleAfterMs: tunable(env, 'staleAfterMs'),
    httpAllowPrivate: bool(env, 'CRONQL_HTTP_ALLOW_PRIVATE', false),
    shutdownGraceMs: tunable(env, 'shutdownGraceMs'),
    maxPayloadBytes: tunable(env, 'maxPayloadBytes'),
    heartbeatMs,
    lostAfterMs,
    misfireGraceMs: tunable(env, 'misfireGraceMs'),
    dbConnectTimeoutMs: tunable(env, 'dbConnectTimeoutMs'),
    dbQueryTimeoutMs: tunable(env, 'dbQueryTimeoutMs'),
    maxSubscriptionsPerConnection: tunable(env, 'maxSubscriptionsPerConnection'),
    maxConnections: tunable(env, 'maxConnections'),
    maxResponseBytes: tunable(env, 'maxResponseBytes'),
    metricsToken: str(env, 'CRONQL_METRICS_TOKEN'),
    retentionDays: tunable(env, 'retentionDays'),
    jobReplicas: tunable(env, 'jobReplicas'),
    runLogRetentionDays: tunable(env, 'runLogRetentionDays'),
    auditRetentionDays: tunable(env, 'auditRetentionDays'),
    alertWebhookUrl: webhookUrl(env),
    alertWebhookSecret: str(env, 'CRONQL_ALERT_WEBHOOK_SECRET'),
    publicUrl: publicUrl(env),
    secretsKey: secretsKey(env),
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

/** CRONQL_PUBLIC_URL: where people reach this server (`https://cron.example.com`, a path allowed), without a trailing slash. */
function publicUrl(env: Env): string | undefined {
  const value = str(env, 'CRONQL_PUBLIC_URL');
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new ConfigError('CRONQL_PUBLIC_URL', `must be an absolute http: or https: URL without query or fragment, got "${value}"`);
  }
  return url.href.replace(/\/+$/, '');
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

/** CRONQL_SECRETS_KEY, checked now: a malformed key is a configuration error, not a failed run later. */
function secretsKey(env: NodeJS.ProcessEnv): string | undefined {
  const raw = str(env, 'CRONQL_SECRETS_KEY');
  if (raw !== undefined) parseSecretsKey(raw);
  return raw;
}
