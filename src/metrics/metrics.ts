import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { FailureCode, RunStatus, TriggerType, isTerminal } from '../domain/enums.js';
import type { RunChange, RunEvents } from '../runtime/run-events.js';
import { RunEndTally } from './run-end-tally.js';

/** What the metrics read from the process when scraped (gauges). */
export interface MetricsSources {
  activeActors(): number;
  runsInFlight(): number;
  databaseReachable(): boolean;
  pool(): { total: number; idle: number; waiting: number } | null;
  /** Whether this instance holds the cluster-wide maintenance lease (no runtime: false). */
  maintenanceLeaseHeld?(): boolean;
}

/**
 * cronql's Prometheus metrics, in a registry of their own (several cronql instances may share a
 * process, in tests). Counters move from the run changes this instance makes (relayed changes of
 * other instances are theirs to count); gauges are read at scrape time. Labels are bounded: run
 * status, trigger type, target (a name from the registry), failure code and missed reason from
 * fixed lists — never a run id, a job id or a job key.
 */
export class CronqlMetrics {
  readonly registry = new Registry();
  private readonly finished: Counter<'status' | 'target' | 'trigger'> = new Counter({
    name: 'cronql_runs_finished_total',
    help: 'Runs that reached a terminal state on this instance, by status, target and trigger.',
    labelNames: ['status', 'target', 'trigger'] as const,
    registers: [this.registry],
    // The ends counted meanwhile (`ends`), before it is read.
    collect: (): void => this.ends.flush(),
  });
  private readonly lateness = new Histogram({
    name: 'cronql_fire_lateness_seconds',
    help: 'From a scheduled slot to its run starting on this instance.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  private readonly duration: Histogram<'target' | 'status'> = new Histogram({
    name: 'cronql_run_duration_seconds',
    help: 'From a run starting to its end, by target and terminal status.',
    labelNames: ['target', 'status'] as const,
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    registers: [this.registry],
    collect: (): void => this.ends.flush(),
  });
  /** The ends of runs, handed to the two metrics above when they are read (`run-end-tally.ts`). */
  private readonly ends: RunEndTally = new RunEndTally(this.finished, this.duration);
  private readonly missed = new Counter({
    name: 'cronql_slots_missed_total',
    help: 'Slots recorded SKIPPED/MISSED by this instance, by reason (a summary row counts its slots).',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly lost = new Counter({
    name: 'cronql_runs_lost_total',
    help: 'RUNNING runs settled by this instance because their runner was gone (RUNNER_LOST) or stale (STALE_TIMEOUT).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  private readonly silent = new Counter({
    name: 'cronql_heartbeat_timeouts_total',
    help: 'RUNNING runs this instance failed HEARTBEAT_TIMEOUT (their handler stopped beating), by target and by who ended them (runner: its own instance; maintenance: the heartbeat-timeouts duty).',
    labelNames: ['target', 'settled_by'] as const,
    registers: [this.registry],
  });

  private readonly pruned = new Counter({
    name: 'cronql_retention_deleted_runs_total',
    help: 'Expired runs deleted by this instance (CRONQL_RETENTION_DAYS).',
    registers: [this.registry],
  });
  private readonly prunedAt = new Gauge({
    name: 'cronql_retention_last_run_timestamp_seconds',
    help: 'When this instance last ran a retention round (Unix time).',
    registers: [this.registry],
  });

  private readonly logLines = new Counter({
    name: 'cronql_run_log_lines_total',
    help: "Run log lines (handlers' ctx.log) this instance stored with their runs.",
    registers: [this.registry],
  });
  private readonly logLinesDropped = new Counter({
    name: 'cronql_run_log_lines_dropped_total',
    help: "Run log lines this instance did not keep, by reason: bound (past a run's 1,000 lines / 256 KiB), buffer (the write buffer was full), write_failed (the database refused or did not answer).",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  private readonly logLinesPruned = new Counter({
    name: 'cronql_run_log_retention_deleted_lines_total',
    help: 'Expired run log lines deleted by this instance (CRONQL_RUN_LOG_RETENTION_DAYS).',
    registers: [this.registry],
  });

  private readonly passes = new Counter({
    name: 'cronql_maintenance_passes_total',
    help: 'Maintenance passes this instance ran, by duty and result (ok, unreachable, failed); a cluster-wide duty runs only on the lease holder.',
    labelNames: ['duty', 'result'] as const,
    registers: [this.registry],
  });

  constructor(events: RunEvents, sources: MetricsSources) {
    collectDefaultMetrics({ register: this.registry, prefix: 'cronql_' });
    const reg = [this.registry];
    new Gauge({ name: 'cronql_active_actors', help: 'Jobs armed on this instance.', registers: reg, collect() { this.set(sources.activeActors()); } });
    new Gauge({ name: 'cronql_runs_in_flight', help: 'Runs executing on this instance.', registers: reg, collect() { this.set(sources.runsInFlight()); } });
    new Gauge({
      name: 'cronql_database_reachable',
      help: '1 while the fire path reaches the database, 0 during an outage (slots are then deferred to the ledger).',
      registers: reg,
      collect() {
        this.set(sources.databaseReachable() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'cronql_maintenance_lease_held',
      help: '1 while this instance holds the cluster-wide maintenance lease (it runs the cluster-wide duties), else 0.',
      registers: reg,
      collect() {
        this.set(sources.maintenanceLeaseHeld?.() ? 1 : 0);
      },
    });
    const pool = new Gauge({ name: 'cronql_db_pool_connections', help: 'The runtime pool: connections by state.', labelNames: ['state'] as const, registers: reg, collect() {
      const p = sources.pool();
      if (!p) return;
      pool.set({ state: 'total' }, p.total);
      pool.set({ state: 'idle' }, p.idle);
      pool.set({ state: 'waiting' }, p.waiting);
    } });
    events.on((change) => this.count(change));
  }

  private count({ run, previousStatus, remote }: RunChange): void {
    if (remote) return;
    // A progress report (RUNNING → RUNNING) is not a start.
    if (run.status === RunStatus.RUNNING && previousStatus !== RunStatus.RUNNING && run.triggerType === TriggerType.SCHEDULED && run.startedAt) {
      // From when it was due: the slot, or the slot plus its jitter offset (a retry: its backoff's end).
      this.lateness.observe(Math.max(0, (run.startedAt.getTime() - (run.dueAt ?? run.scheduledAt).getTime()) / 1000));
    }
    if (!isTerminal(run.status)) return;
    const seconds = run.startedAt && run.finishedAt ? (run.finishedAt.getTime() - run.startedAt.getTime()) / 1000 : null;
    this.ends.add(run.status, run.target, run.triggerType, seconds);
    if (run.failureCode === FailureCode.MISSED) {
      const details = (run.failureDetails ?? {}) as { reason?: string; summary?: { count?: number } };
      this.missed.inc({ reason: String(details.reason ?? 'UNKNOWN') }, details.summary?.count ?? 1);
    }
    if (previousStatus === RunStatus.RUNNING && (run.failureCode === FailureCode.RUNNER_LOST || run.failureCode === FailureCode.STALE_TIMEOUT)) {
      this.lost.inc({ code: run.failureCode });
    }
    if (previousStatus === RunStatus.RUNNING && run.failureCode === FailureCode.HEARTBEAT_TIMEOUT) {
      const by = (run.failureDetails as { settledBy?: unknown } | null)?.settledBy === 'maintenance' ? 'maintenance' : 'runner';
      this.silent.inc({ target: run.target, settled_by: by });
    }
  }

  /** A maintenance pass ended. */
  maintenancePass(pass: { duty: string; result: string }): void {
    this.passes.inc({ duty: pass.duty, result: pass.result });
  }

  /** A retention round ended. */
  retention(deleted: number, at: Date): void {
    this.pruned.inc(deleted);
    this.prunedAt.set(at.getTime() / 1000);
  }

  /** Run log lines stored. */
  runLogLines(n: number): void {
    this.logLines.inc(n);
  }

  /** Run log lines not kept, and why. */
  runLogLinesDropped(n: number, reason: 'bound' | 'buffer' | 'write_failed'): void {
    this.logLinesDropped.inc({ reason }, n);
  }

  /** A run-log retention round ended. */
  runLogRetention(deleted: number): void {
    this.logLinesPruned.inc(deleted);
  }

  contentType(): string {
    return this.registry.contentType;
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}
