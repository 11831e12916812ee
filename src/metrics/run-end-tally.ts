import type { Counter, Histogram } from 'prom-client';

/** The ends of one label set waiting to be counted: how many, and their durations (seconds). */
interface Waiting {
  status: string;
  target: string;
  trigger: string;
  count: number;
  durations: number[];
}

/**
 * Ends waiting before they are handed on without a scrape (memory stays bounded when nobody
 * scrapes): a second after the 20,000th — after the burst that brought them, not in its middle.
 */
const MAX_WAITING = 20_000;
const FLUSH_AFTER_MS = 1_000;

/**
 * The ends of runs, counted for `cronql_runs_finished_total` (status, target, trigger) and
 * `cronql_run_duration_seconds` (target, status), handed to prom-client when the metrics are
 * read — a scrape, `registry.metrics()` — or soon after `MAX_WAITING` ends wait. Why not at each end:
 * prom-client hashes and validates a labels object at every `inc` and `observe` (~2–3 µs an end),
 * and 10,000 co-due ends are published while the next co-due statement needs the same two cores
 * (BENCHMARKS.md, "2026-11-26 (s8, N)"). Here an end is three map lookups by its label values
 * (a handful of statuses, targets and triggers), no object and no string made; a scrape reads
 * exactly the values it would have read.
 */
export class RunEndTally {
  /** status → target → trigger → the ends waiting. */
  private readonly sets = new Map<string, Map<string, Map<string, Waiting>>>();
  private waiting = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly finished: Counter<'status' | 'target' | 'trigger'>,
    private readonly duration: Histogram<'target' | 'status'>,
  ) {}

  /** A run ended: `seconds` from its start to its end, null if it never started. */
  add(status: string, target: string, trigger: string, seconds: number | null): void {
    let byTarget = this.sets.get(status);
    if (!byTarget) this.sets.set(status, (byTarget = new Map()));
    let byTrigger = byTarget.get(target);
    if (!byTrigger) byTarget.set(target, (byTrigger = new Map()));
    let w = byTrigger.get(trigger);
    if (!w) byTrigger.set(trigger, (w = { status, target, trigger, count: 0, durations: [] }));
    w.count++;
    if (seconds !== null) w.durations.push(seconds);
    if (++this.waiting >= MAX_WAITING) this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS).unref();
  }

  /** Hands the waiting ends to prom-client (the metrics' `collect`, before they are read). */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.waiting === 0) return;
    this.waiting = 0;
    for (const byTarget of this.sets.values()) {
      for (const byTrigger of byTarget.values()) {
        for (const w of byTrigger.values()) {
          if (w.count > 0) this.finished.inc({ status: w.status, target: w.target, trigger: w.trigger }, w.count);
          if (w.durations.length > 0) {
            const labels = { target: w.target, status: w.status };
            for (const s of w.durations) this.duration.observe(labels, s);
          }
          w.count = 0;
          w.durations = [];
        }
      }
    }
  }
}
