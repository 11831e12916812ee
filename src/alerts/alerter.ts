import { createHmac } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { jobAlertState } from '../db/alert-queries.js';
import { FailureCode, JobStatus, RunStatus, TriggerType } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import { createHttpTarget } from '../runtime/targets/builtin/http.js';
import type { TargetDefinition } from '../runtime/targets/target.js';
import type { RunChange, RunEvents } from '../runtime/run-events.js';

/** What an alert is about. */
export type AlertKind = 'run.failed' | 'job.auto_paused' | 'runs.lost' | 'slots.missed';

/** The JSON body POSTed to CRONQL_ALERT_WEBHOOK_URL. Never carries payloads or outputs. */
export interface Alert {
  kind: AlertKind;
  at: string;
  instanceId: string;
  job?: { id: string; key: string; version: number; target: string };
  run?: { id: string; status: string; trigger: string; scheduledAt: string; failureCode: string | null; failureMessage: string | null };
  /** run.failed / job.auto_paused: failed runs in a row. */
  consecutiveFailures?: number;
  /** job.auto_paused: the reason recorded on the job. */
  reason?: string;
  /** runs.lost / slots.missed: how many, and a bounded sample. */
  count?: number;
  runIds?: string[];
  /** slots.missed: why (PROCESS_DOWN, STALL, CLOCK_JUMP, DATABASE_UNREACHABLE). */
  missedReason?: string;
}

export interface AlerterOptions {
  url: string;
  /** HMAC-SHA256 key: the body's signature goes in `X-Cronql-Signature: sha256=<hex>`. */
  secret?: string;
  pool: Pool;
  events: RunEvents;
  log: Logger;
  instanceId: string;
  now(): Date;
  /** Let the webhook be a loopback/private address (CRONQL_HTTP_ALLOW_PRIVATE). @default false */
  allowPrivate?: boolean;
  /** Attempts per alert before it is dropped (logged). @default 6 */
  attempts?: number;
  /** First retry delay; doubles each time, up to a minute. @default 1000 */
  retryMs?: number;
}

/** Alerts waiting at most; past it the oldest are dropped (and logged): memory stays bounded. */
const MAX_QUEUED = 1_000;
/** Lost runs and missed slots arrive in bursts: gathered this long into one alert. */
const GATHER_MS = 500;
const SAMPLE = 20;

/**
 * Failure alerts, one per transition — not one per failure of a failing job:
 * - `run.failed`: a job's run failed after it had been succeeding (its first failure in a row);
 * - `job.auto_paused`: cronql paused the job after `pauseAfterFailures` failures in a row;
 * - `runs.lost`: RUNNING runs were settled because their runner was gone (one alert per burst);
 * - `slots.missed`: slots were recorded MISSED (one alert per burst and reason).
 * Each instance alerts for the changes it made, so an alert is sent once across instances. The
 * webhook is called through the `http` target (the same SSRF guard, pinned to the checked
 * address), from a bounded queue, with retries and backoff: never from the fire path.
 */
export class Alerter {
  private readonly queue: Alert[] = [];
  private sending = false;
  private stopped = false;
  private readonly http: TargetDefinition;
  private readonly gathered = new Map<string, { alert: Alert; timer: NodeJS.Timeout }>();
  private readonly off: () => void;
  private readonly abort = new AbortController();

  constructor(private readonly o: AlerterOptions) {
    this.http = createHttpTarget({ allowPrivate: o.allowPrivate });
    this.off = o.events.on((change) => void this.observe(change));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.off();
    this.abort.abort();
    for (const { timer } of this.gathered.values()) clearTimeout(timer);
  }

  private async observe({ run, previousStatus, remote, retried }: RunChange): Promise<void> {
    if (remote || this.stopped) return;
    // A failed attempt that will be retried is not the slot's outcome: its last attempt is.
    if (retried) return;
    try {
      if (run.status === RunStatus.FAILED && previousStatus === RunStatus.RUNNING &&
          (run.failureCode === FailureCode.RUNNER_LOST || run.failureCode === FailureCode.STALE_TIMEOUT)) {
        this.gather('runs.lost', run, run.failureCode);
      }
      const lost = run.failureCode === FailureCode.RUNNER_LOST || run.failureCode === FailureCode.STALE_TIMEOUT;
      if (run.status === RunStatus.SKIPPED && run.failureCode === FailureCode.MISSED) {
        const reason = String((run.failureDetails as { reason?: string } | null)?.reason ?? 'UNKNOWN');
        this.gather('slots.missed', run, reason, (run.failureDetails as { summary?: { count?: number } } | null)?.summary?.count ?? 1);
      }
      if (run.status !== RunStatus.FAILED) return;
      const job = await jobAlertState(this.o.pool, run.jobId);
      if (!job) return;
      const base = {
        at: this.o.now().toISOString(),
        instanceId: this.o.instanceId,
        job: { id: job.id, key: job.key, version: job.version, target: job.target },
        run: runOf(run),
        consecutiveFailures: job.consecutiveFailures,
      };
      // A lost run has its own alert (runs.lost); it still counts towards auto-pause.
      if (job.consecutiveFailures === 1 && !lost) this.enqueue({ kind: 'run.failed', ...base });
      if (job.status === JobStatus.PAUSED && job.updatedBy === 'cronql' && job.consecutiveFailures === job.pauseAfterFailures) {
        this.enqueue({ kind: 'job.auto_paused', ...base, reason: job.pauseReason as string });
      }
    } catch (err) {
      this.o.log.warn({ err, runId: run.id }, 'alerts: could not evaluate a run change');
    }
  }

  /** Bursts (a sweep settling many runs, a gap of missed slots) become one alert. */
  private gather(kind: 'runs.lost' | 'slots.missed', run: RunRecord, reason: string, count = 1): void {
    const key = `${kind}:${reason}`;
    const known = this.gathered.get(key);
    if (known) {
      known.alert.count! += count;
      if (known.alert.runIds!.length < SAMPLE) known.alert.runIds!.push(run.id);
      return;
    }
    const alert: Alert = { kind, at: this.o.now().toISOString(), instanceId: this.o.instanceId, count, runIds: [run.id] };
    if (kind === 'slots.missed') alert.missedReason = reason;
    const timer = setTimeout(() => {
      this.gathered.delete(key);
      this.enqueue(alert);
    }, GATHER_MS);
    timer.unref();
    this.gathered.set(key, { alert, timer });
  }

  private enqueue(alert: Alert): void {
    if (this.stopped) return;
    if (this.queue.length >= MAX_QUEUED) {
      const dropped = this.queue.shift()!;
      this.o.log.warn({ kind: dropped.kind }, 'alerts: queue full, dropped the oldest alert');
    }
    this.queue.push(alert);
    if (!this.sending) void this.drain();
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let alert = this.queue.shift(); alert && !this.stopped; alert = this.queue.shift()) await this.deliver(alert);
    } finally {
      this.sending = false;
    }
  }

  /** POSTs one alert, retrying with backoff; logs and drops it after the last attempt. */
  private async deliver(alert: Alert): Promise<void> {
    const body = JSON.stringify(alert);
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-cronql-event': alert.kind };
    if (this.o.secret) headers['x-cronql-signature'] = `sha256=${createHmac('sha256', this.o.secret).update(body).digest('hex')}`;
    const attempts = this.o.attempts ?? 6;
    for (let attempt = 1; attempt <= attempts && !this.stopped; attempt++) {
      try {
        await this.http.handler({
          payload: { url: this.o.url, method: 'POST', headers, body, timeoutMs: 10_000 },
          signal: this.abort.signal,
          log: this.o.log,
          // Not a run: nothing to report.
          progress: () => {},
          heartbeat: () => {},
          run: { id: 'alert', jobId: 'alert', jobKey: 'alert', jobVersion: 0, scheduledAt: new Date(), triggerType: TriggerType.MANUAL, attempt: 1 },
        });
        return;
      } catch (err) {
        if (attempt === attempts || this.stopped) {
          this.o.log.error({ kind: alert.kind, attempts: attempt, code: (err as { code?: string }).code }, 'alerts: webhook failed; alert dropped');
          return;
        }
        const delay = Math.min(60_000, (this.o.retryMs ?? 1_000) * 2 ** (attempt - 1));
        await new Promise((r) => setTimeout(r, delay).unref());
      }
    }
  }
}

const runOf = (r: RunRecord) => ({
  id: r.id,
  status: r.status,
  trigger: r.triggerType,
  scheduledAt: r.scheduledAt.toISOString(),
  failureCode: r.failureCode,
  failureMessage: r.failureMessage,
});
