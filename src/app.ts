import { createLogger, type Logger } from './logger.js';
import { MAINTENANCE, type Role } from './config.js';
import { resolveOptions, type CronqlOptions, type ResolvedOptions } from './options.js';
import type { EmbeddedDatabase } from './db/embedded-postgres.js';
import { listInstances, liveSchedulers, type InstanceRecord } from './db/instances.js';
import { lastHourLosses } from './db/readiness-queries.js';
import { lazyJobStore } from './db/lazy-job-store.js';
import { pendingMigrations } from './db/migration-state.js';
import type { JobRecord } from './domain/job.js';
import { Channel, Notifier, notify } from './db/notifier.js';
import type { MikroORM } from './db/orm.js';
import { createPool, endPool, type DbBounds, type Pool } from './db/pool.js';
import { VERSION } from './version.js';
import { CronqlMetrics } from './metrics/metrics.js';
import { Deliverer } from './alerts/deliverer.js';
import { NOTIFICATIONS } from './config.js';
import { notificationMetrics } from './metrics/notifications.js';
import { poolMetrics } from './metrics/pools.js';
import { ChannelService } from './services/channel.service.js';
import { bounded } from './domain/bounded.js';
import { SystemClock, type Clock } from './runtime/clock.js';
import { RunEvents } from './runtime/run-events.js';
import { RuntimeEvents } from './runtime/events.js';
import { CalendarBook } from './runtime/calendar-book.js';
import { CALENDAR_NAME } from './schedule/calendar.js';
import { RunStore } from './db/run-store.js';
import { Runtime } from './runtime/runtime.js';
import { RunEventRelay } from './runtime/run-event-relay.js';
import { RunLogEvents } from './runtime/run-log-events.js';
import { RunLogRelay } from './runtime/run-log-relay.js';
import { RunLogWriter } from './runtime/run-log-writer.js';
import { createTargetRegistry, type TargetRegistry } from './runtime/targets/registry.js';
import { JobService, toSnapshot } from './services/job.service.js';
import { UpcomingService } from './services/upcoming.service.js';
import { loadCounts } from './db/upcoming-jobs.js';
import { RunService } from './services/run.service.js';
import { RunLogService } from './services/run-log.service.js';
import { BackfillService } from './services/backfill.service.js';
import { AuditService } from './services/audit.service.js';
import { Backfills } from './runtime/backfills.js';
import { SecretService } from './services/secret.service.js';
import { CalendarService } from './services/calendar.service.js';
import { PoolService } from './services/pool.service.js';
import { TokenService } from './services/token.service.js';
import { StartupTiming } from './startup-timing.js';
import { loadTracing, type Tracing } from './tracing/tracing.js';

export type { CronqlOptions } from './options.js';

/**
 * cronql as a library: `const cronql = createCronql({ databaseUrl, targets }); await cronql.start();`
 * then `cronql.jobs.create(...)`, `cronql.runs.runNow(...)`, `cronql.events.on(...)`, and
 * `await cronql.stop()`. The HTTP/GraphQL server (src/http) is built on this object.
 */
export class Cronql {
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: RunEvents;
  /** The lines of run logs as they are stored, by run (this instance's and, relayed, the others'). */
  readonly runLogEvents: RunLogEvents;
  /**
   * What this process's runtime does, as typed events (slot recorded, slots missed, run ended,
   * rebalanced, database unreachable / reachable, armed, maintenance pass): what tests and hooks
   * wait on. Never emits with role `api` (no runtime).
   */
  readonly runtimeEvents: RuntimeEvents;
  readonly targets: TargetRegistry;
  readonly instanceId: string;
  readonly role: Role;
  readonly maxPayloadBytes: number;
  private embedded?: EmbeddedDatabase;
  /** MikroORM, opened on the job store's first use (lazy-job-store.ts). */
  private orm?: Promise<MikroORM>;
  private _pool?: Pool;
  /** The readiness probe's own connection: never queued behind the runtime's work. */
  private probe?: Pool;
  private _jobs?: JobService;
  private _runs?: RunService;
  private _upcoming?: UpcomingService;
  /** An api instance's calendars (a scheduler's are its runtime's), and the events they announce changes on. */
  private ownBook?: CalendarBook;
  private readonly calendarEvents = new RuntimeEvents();
  private _runLogs?: RunLogService;
  /** Keeps handlers' `ctx.log` lines with their runs (runtime roles). */
  private logWriter?: RunLogWriter;
  private logRelay?: RunLogRelay;
  private _secrets?: SecretService;
  private _calendars?: CalendarService;
  private _pools?: PoolService;
  private _tokens?: TokenService;
  private _backfills?: BackfillService;
  private _audit?: AuditService;
  private _runtime?: Runtime;
  private notifier?: Notifier;
  private _metrics?: CronqlMetrics;
  private _channels?: ChannelService;
  private deliverer?: Deliverer;
  private relay?: RunEventRelay;
  private _tracing?: Tracing;
  private started = false;
  private stopping?: Promise<void>;
  private _databaseUrl?: string;
  /** Where `start()`'s time went, step by step (ms). */
  readonly startup = new StartupTiming();

  private readonly options: ResolvedOptions;

  /** @throws OptionsError naming the first bad option. */
  constructor(options: CronqlOptions = {}) {
    this.options = resolveOptions(options);
    const o = this.options;
    this.instanceId = o.instanceId;
    this.log = o.log ?? createLogger({ instanceId: this.instanceId });
    this.events = new RunEvents((err) => this.log.error({ err }, 'a run event listener threw'));
    this.runLogEvents = new RunLogEvents((err) => this.log.error({ err }, 'a run log listener threw'));
    this.runtimeEvents = new RuntimeEvents((err, name) => this.log.error({ err, event: name }, 'a runtime event listener threw'));
    this.clock = o.clock ?? new SystemClock((err) => this.log.error({ err }, 'an alarm callback threw; the other alarms still fire'));
    this.targets = createTargetRegistry(o.targets ?? {}, { httpAllowPrivate: o.httpAllowPrivate });
    this.role = o.role;
    this.maxPayloadBytes = o.maxPayloadBytes;
  }

  get jobs(): JobService {
    return this.need(this._jobs);
  }
  get runs(): RunService {
    return this.need(this._runs);
  }
  /** The upcoming timeline: every job's slots that will run in a window. */
  get upcoming(): UpcomingService {
    return this.need(this._upcoming);
  }

  /** Run logs: pages of a run's lines, and a run's lines followed live (docs/run-logs.md). */
  get runLogs(): RunLogService {
    return this.need(this._runLogs);
  }

  /** Backfills: plan, run and cancel a job's past slots of a range. */
  get backfills(): BackfillService {
    return this.need(this._backfills);
  }
  /** The audit log: pages of every change, by actor, action, job key and time. */
  get audit(): AuditService {
    return this.need(this._audit);
  }
  /** Secrets: set, delete, list (never a value). */
  get secrets(): SecretService {
    return this.need(this._secrets);
  }
  /** Notification channels: set, delete, list (never a URL nor a secret). */
  get channels(): ChannelService {
    return this.need(this._channels);
  }
  /** The outbox's deliverer of this process: `test(name)` sends a test alert now; `idle()` waits for a round. */
  get notifications(): Deliverer {
    return this.need(this.deliverer);
  }
  /** Named API tokens: create, list, revoke, and the check of a bearer secret (docs/security.md). */
  get tokens(): TokenService {
    return this.need(this._tokens);
  }
  /** Exclusion calendars: set, delete, list. */
  get calendars(): CalendarService {
    return this.need(this._calendars);
  }
  /** Concurrency pools: set, delete, list with what each holds. */
  get pools(): PoolService {
    return this.need(this._pools);
  }
  get pool(): Pool {
    return this.need(this._pool);
  }
  /** The runtime of this process (undefined with role `api`). */
  get runtime(): Runtime | undefined {
    return this._runtime;
  }
  /** Prometheus metrics of this instance (GET /metrics). */
  get metrics(): CronqlMetrics {
    return this.need(this._metrics);
  }
  get databaseUrl(): string {
    return this.need(this._databaseUrl);
  }

  /** OpenTelemetry traces of this process (docs/operations.md, "Tracing"); undefined while off. */
  get tracing(): Tracing | undefined {
    return this._tracing;
  }

  /** How many scheduler instances arm each job (CRONQL_JOB_REPLICAS; 0: all). */
  get jobReplicas(): number {
    return this.options.jobReplicas;
  }

  /** The scheduler instances armed and beating now: the members among which jobs are shared. */
  liveSchedulers(): Promise<string[]> {
    return liveSchedulers(this.pool, this.options.lostAfterMs);
  }

  /** The runtimes recorded alive (or recently seen) in the database, with their RUNNING runs. */
  instances(): Promise<InstanceRecord[]> {
    return listInstances(this.pool);
  }

  /** Database up, migrations applied, recovery done, one actor per ACTIVE job armed. */
  async start(): Promise<void> {
    if (this.started) throw new Error('Cronql: start() may be called once');
    this.started = true;
    const o = this.options;
    let url = o.databaseUrl;
    const t = this.startup;
    t.mark('beforeStart');
    // Loaded only when on: off, no module of OpenTelemetry is read (docs/operations.md, "Tracing").
    if (o.tracing) this._tracing = await loadTracing({ settings: o.tracing, instanceId: this.instanceId, version: VERSION, log: this.log });
    if (!url) {
      // Loaded only here: with a DATABASE_URL, the optional embedded PostgreSQL is never touched.
      const { startEmbeddedPostgres } = await import('./db/embedded-postgres.js');
      this.embedded = await startEmbeddedPostgres({ dataDir: o.dataDir, log: this.log });
      url = this.embedded.url;
      t.mark('embeddedDatabase');
    }
    this._databaseUrl = url;
    const bounds: DbBounds = {
      connectTimeoutMs: o.dbConnectTimeoutMs,
      queryTimeoutMs: o.dbQueryTimeoutMs,
    };
    // One pool for every statement of this process, the ORM's included (see db/pool.ts).
    this._pool = createPool(url, bounds);
    // The migrator (and the migrations) are loaded only when there is something to apply.
    if ((await pendingMigrations(this._pool)).length > 0) {
      const { migrateDatabase } = await import('./db/orm.js');
      await migrateDatabase(url, bounds);
    }
    t.mark('migrations');
    this.probe = createPool(url, { connectTimeoutMs: PROBE_MS, queryTimeoutMs: PROBE_MS }, 1);
    const store = new RunStore({
      pool: this._pool,
      instanceId: this.instanceId,
      now: () => this.clock.now(),
      publish: (c) => this.events.publish(c),
      // startedAt is when the handler was entered, and the RUNNING change says so (db/runs/started.ts).
      startedOnEntry: true,
      onStartedError: (err) => this.log.warn({ err }, 'could not record when handlers were entered; the runs keep their claim instant'),
      onProgressError: (err) => this.log.warn({ err }, 'could not record progress reports; they are written with the runs\' next write'),
    });
    // A process that fires slots: every connection it opens from now on is ready for the fire statement.
    if (this.role !== 'api') {
      store.primeConnections();
      void store.openFireConnections();
    }
    if (o.listen) {
      this.notifier = new Notifier(
        url,
        this.log,
        () => {
          this._upcoming?.invalidate();
          void this.ownBook?.loadAll().catch((err: unknown) => this.log.warn({ err }, 'could not re-read the calendars after a lost notification connection'));
          void this._runtime?.resync();
          // Revocations sent while the connection was away: every verdict dropped, open sockets' tokens re-read.
          void this._tokens?.resync();
        },
        { bounds },
      );
      await this.notifier.start();
      this.relay = new RunEventRelay(this._pool, this.events, this.notifier, this.instanceId, this.log);
      this.relay.start();
      this.logRelay = new RunLogRelay(this._pool, this.runLogEvents, this.notifier, this.instanceId, this.log);
      this.logRelay.start();
    }
    const tokens = (this._tokens = new TokenService({ pool: this._pool, clock: this.clock, log: this.log }));
    this.notifier?.on(Channel.TOKEN_REVOKED, (id) => tokens.forget(id));
    // With secrets stored, the key must be theirs: a start with another key stops here, in one line.
    this._secrets = new SecretService({ pool: this._pool, clock: this.clock, secretsKey: o.secretsKey, dataDir: o.dataDir });
    await this._secrets.init();
    this._channels = new ChannelService({
      pool: this._pool,
      now: () => this.clock.now(),
      credentials: this._secrets,
      env: { url: o.alertWebhookUrl, secret: o.alertWebhookSecret },
      log: this.log,
    });
    // CRONQL_ALERT_WEBHOOK_URL is the channel `default`, written at each start (its URL stays in the environment).
    await this._channels.syncEnvChannel();
    t.mark('listenAndSecrets');
    if (this.role !== 'api') {
      this.logWriter = new RunLogWriter({
        pool: this._pool,
        instanceId: this.instanceId,
        now: () => this.clock.now(),
        lines: this.runLogEvents,
        log: this.log,
        onStored: (n) => this._metrics?.runLogLines(n),
        onDropped: (n, reason) => this._metrics?.runLogLinesDropped(n, reason),
      });
      this._runtime = new Runtime({
        pool: this._pool,
        clock: this.clock,
        targets: this.targets,
        log: this.log,
        instanceId: this.instanceId,
        role: this.role,
        version: VERSION,
        staleAfterMs: o.staleAfterMs,
        shutdownGraceMs: o.shutdownGraceMs,
        heartbeatMs: o.heartbeatMs,
        lostAfterMs: o.lostAfterMs,
        misfireGraceMs: o.misfireGraceMs,
        notifier: this.notifier,
        store,
        secrets: this._secrets,
        jobReplicas: o.jobReplicas,
        retentionDays: o.retentionDays,
        runLogRetentionDays: o.runLogRetentionDays,
        auditRetentionDays: o.auditRetentionDays,
        logs: this.logWriter,
        onLogsPruned: (n) => this._metrics?.runLogRetention(n),
        onMaintenancePass: (pass) => this._metrics?.maintenancePass(pass),
        onPruned: (deleted, at) => this._metrics?.retention(deleted, at),
        events: this.runtimeEvents,
        tracing: this._tracing,
        // The services' resume (one rule), for the pauses that end by themselves.
        resumePaused: async (jobId, until) => {
          const job = await this.jobs.resumeEnded(jobId, until);
          return job && toSnapshot(job);
        },
      });
    }
    const pool = this._pool;
    this._metrics = new CronqlMetrics(this.events, {
      activeActors: () => this._runtime?.actorCount ?? 0,
      runsInFlight: () => this._runtime?.activeRuns ?? 0,
      databaseReachable: () => !(this._runtime?.databaseUnreachable ?? false),
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      maintenanceLeaseHeld: () => this._runtime?.maintenanceLeaseHeld ?? false,
    });
    const openStore = async (publish: (jobs: readonly JobRecord[]) => void) => {
      const [{ JobStore }, orm] = await Promise.all([import('./db/job-store.js'), this.openOrm(url!, bounds)]);
      return new JobStore(orm, pool, publish);
    };
    // The timeline's jobs are kept between requests: every job change (here, or another instance's
    // notification) has it re-read that job, and a lost notification connection everything.
    // The calendars the slots that will run are read with (nextRuns, upcoming): the runtime's book,
    // or, on an instance without a runtime (role api), one of its own kept fresh the same way.
    const book = this._runtime?.calendarBook ?? (await this.ownCalendarBook());
    const calendarsOf = (job: { calendars: readonly string[] }) => {
      const { rules, unknown } = book.rulesOf(job.calendars);
      // A calendar set on another instance an instant ago, its notification still on its way: read it now for the next reader.
      if (unknown.length > 0) void book.fetch(unknown);
      return rules;
    };
    const upcoming = (this._upcoming = new UpcomingService({ pool, clock: this.clock, calendarsOf }));
    this.notifier?.on(Channel.JOB_CHANGED, (id) => upcoming.invalidate(id));
    // A calendar changed: the timeline's slots of every job naming it move (calendars are few and rarely changed).
    (this._runtime?.events ?? this.calendarEvents).on('calendarsChanged', () => upcoming.invalidate());
    const deps = {
      jobStore: (publish: (jobs: readonly JobRecord[]) => void) => lazyJobStore(() => openStore(publish)),
      targets: this.targets,
      clock: this.clock,
      maxPayloadBytes: this.maxPayloadBytes,
      runtime: this._runtime,
      secrets: this._secrets,
      jobsChanged: (jobs: readonly JobRecord[]) => jobs.forEach((j) => upcoming.invalidate(j.id)),
      counts: (ids: readonly string[]) => loadCounts(pool, ids),
      channels: this._channels,
      calendarsOf,
    };
    this._jobs = new JobService(deps);
    this._pools = new PoolService({ pool: this._pool, clock: this.clock });
    const pools = this._pools;
    if (this._metrics) poolMetrics(this._metrics.registry, () => pools.list());
    this._calendars = new CalendarService({ pool: this._pool, clock: this.clock, changed: (name) => (this._runtime ? this._runtime.calendarChanged(name) : this.ownBook?.refresh(name)) });
    this._runs = new RunService({
      pool: this._pool,
      store,
      jobs: this._jobs,
      maxPayloadBytes: this.maxPayloadBytes,
      runtime: this._runtime,
      tracing: this._tracing,
    });
    this._runLogs = new RunLogService({ pool: this._pool, runEvents: this.events, logEvents: this.runLogEvents, runs: this._runs });
    const runtime = this._runtime;
    const notifyCreated = async (ids: string[]) => {
      for (const id of ids) await notify(pool, Channel.RUN_CREATED, id);
    };
    // Without a runtime here (role api), a scheduler instance is told of each backfill run made.
    const mover = runtime
      ? { advance: () => runtime.advanceBackfills() }
      : new Backfills({ pool, store, log: this.log, claimAndExecute: notifyCreated, perRound: MAINTENANCE.perPass });
    this._audit = new AuditService({ pool });
    this._backfills = new BackfillService({ pool, store, jobs: this._jobs, clock: this.clock, mover, calendars: this._calendars, tracing: this._tracing });
    this.deliverer = new Deliverer({
      pool: this._pool,
      channels: this._channels,
      log: this.log,
      instanceId: this.instanceId,
      now: () => this.clock.now(),
      notifier: this.notifier,
      metrics: notificationMetrics(this._metrics.registry, () => this.deliverer!.pending()),
      allowPrivate: o.httpAllowPrivate,
      publicUrl: o.publicUrl,
      bounds: NOTIFICATIONS,
    });
    this.deliverer.start();
    t.mark('services');
    await this._runtime?.start(t);
  }

  /**
   * The calendar book of an instance without a runtime: read whole now and after a lost
   * notification connection, one calendar re-read on each change, as the runtime's is.
   */
  private async ownCalendarBook(): Promise<CalendarBook> {
    const book = new CalendarBook(this._pool!, this.log, this.calendarEvents);
    await book.loadAll();
    this.notifier?.on(Channel.CALENDAR_CHANGED, (name) => CALENDAR_NAME.test(name) && void book.refresh(name));
    this.ownBook = book;
    return book;
  }

  /**
   * Readiness, by named check: the database answers (within a second, on the probe's own
   * connection, so a backlog of the runtime never delays it) and, where this process runs one,
   * the runtime is armed and its fire path reaches the database.
   */
  async readiness(): Promise<Readiness> {
    const checks: Record<string, 'ok' | 'failing'> = {};
    if (this._runtime) {
      checks.runtime = this._runtime.armed && !this._runtime.databaseUnreachable ? 'ok' : 'failing';
      checks.heartbeat = this._runtime.heartbeatFresh ? 'ok' : 'failing';
    }
    const lastHour = await this.probeDatabase();
    checks.database = lastHour ? 'ok' : 'failing';
    const ready = !this.stopping && Object.values(checks).every((c) => c === 'ok');
    return lastHour ? { ready, checks, lastHour } : { ready, checks };
  }

  async ready(): Promise<boolean> {
    return (await this.readiness()).ready;
  }

  /**
   * The database answers, and says how many runs were lost and slots missed in the last hour
   * (a partial index keeps it cheap); null when it does not answer within PROBE_MS.
   */
  private async probeDatabase(): Promise<{ lostRuns: number; missedSlots: number } | null> {
    if (!this.probe || this.stopping) return null;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        lastHourLosses(this.probe, new Date(this.clock.now().getTime() - 3_600_000)),
        new Promise<null>((r) => (timer = setTimeout(() => r(null), PROBE_MS))),
      ]);
    } catch {
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The first step of an orderly stop, synchronous: nothing arms or fires from now on. `main`
   * calls it before closing the HTTP server; `stop()` calls it too.
   */
  stopFiring(): void {
    this._runtime?.stopFiring();
  }

  /** Orderly stop: runtime drains first, then connections close, then the embedded database. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopFiring();
      await this._runtime?.stop();
      // The lines of the runs drained are stored already; anything a stray handler wrote later is written now.
      await bounded(this.logWriter?.stop() ?? Promise.resolve(), 2_000);
      await this.deliverer?.stop();
      await bounded(this._tokens?.stop() ?? Promise.resolve(), 1_000);
      // The spans of the drained runs are exported before the process goes (bounded: a collector
      // that does not answer must not hold the stop).
      if (this._tracing) await bounded(this._tracing.shutdown().catch((err: unknown) => this.log.warn({ err }, 'could not export the last spans')), TRACE_FLUSH_MS);
      this.clock.close();
      // Bounded, together: a database that does not answer must not hold the process. The relay
      // sends its last changes before the pool ends (or gives up with it).
      await Promise.all([
        bounded(Promise.all([this.relay?.stop(), this.logRelay?.stop()]), 1_000).then(() => this._pool && endPool(this._pool, 1_000)),
        bounded(this.notifier?.close() ?? Promise.resolve(), 1_000),
        this.probe && endPool(this.probe, 1_000),
        // The ORM has no connections of its own (they are the pool's): this ends only its session.
        bounded(this.orm?.then((orm) => orm.close(true)) ?? Promise.resolve(), 1_000),
      ]);
      await this.embedded?.stop();
    })();
    return this.stopping;
  }

  /**
   * Loads and opens MikroORM over the process's pool, once (again after a failure): on the job
   * store's first use. Not opened ahead: loading it right after the server listens delayed the
   * first answers of /readyz by as long as the load (0.7–2.4 s on a busy 2-core machine).
   */
  private openOrm(url = this.databaseUrl, bounds: DbBounds = { connectTimeoutMs: this.options.dbConnectTimeoutMs, queryTimeoutMs: this.options.dbQueryTimeoutMs }): Promise<MikroORM> {
    const pool = this.pool;
    this.orm ??= import('./db/orm.js')
      .then(({ openOrm }) => openOrm({ databaseUrl: url, bounds, pool }))
      .catch((err: unknown) => {
        this.orm = undefined;
        throw err;
      });
    return this.orm;
  }

  private need<T>(value: T | undefined): T {
    if (value === undefined) throw new Error('Cronql: call start() first');
    return value;
  }
}

/** What /readyz and the `health` query report. */
export interface Readiness {
  ready: boolean;
  /** Each check by name: database, and where a runtime runs, runtime and heartbeat. */
  checks: Record<string, 'ok' | 'failing'>;
  /** Counted across instances; informational (they do not make the instance unready). */
  lastHour?: { lostRuns: number; missedSlots: number };
}

/** How long the readiness probe waits for the database: /readyz answers within a second. */
const PROBE_MS = 800;

/** How long an orderly stop waits for the last spans to be exported. */
const TRACE_FLUSH_MS = 5_000;

export function createCronql(options: CronqlOptions = {}): Cronql {
  return new Cronql(options);
}
