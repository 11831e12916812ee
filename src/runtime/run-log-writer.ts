import type { Logger } from '../logger.js';
import type { Pool } from '../db/pool.js';
import { writeLines, type LineRow } from '../db/run-logs.js';
import { droppedMessage, lineBytes, RUN_LOG_BOUNDS, type RunLogLine } from '../domain/run-log.js';
import type { RunLogEvents } from './run-log-events.js';
import { encodeRanges, type LogRange } from './run-log-wire.js';

/** Why a line was not kept (the label of `cronql_run_log_lines_dropped_total`). */
export type DropReason = 'bound' | 'buffer' | 'write_failed';

export interface RunLogWriterOptions {
  pool: Pool;
  /** Written into the notifications, so this instance skips its own. */
  instanceId: string;
  /** The runtime's clock: a line's `at`. */
  now: () => Date;
  /** Where the lines go once stored (this process's subscribers). */
  events: RunLogEvents;
  log: Logger;
  /** Told of the lines each statement stored (metrics). */
  onStored?: (lines: number) => void;
  /** Told of lines not kept, and why (metrics). */
  onDropped?: (lines: number, reason: DropReason) => void;
}

/** A run's log as its handler's logger writes to it. */
export interface RunLogHandle {
  /** Keeps a line: `line` is called only if the run's log still takes lines (past its bound a line is only counted). */
  write(level: string, line: () => { message: string; fields: unknown }): void;
}

/**
 * The writer's fixed bounds (docs/run-logs.md). Memory is bounded twice: per run by
 * RUN_LOG_BOUNDS (a line past it is counted, never stringified or buffered), and across runs by
 * the buffer's bound (a database slower than the handlers closes the logs that would overflow it).
 */
export const RUN_LOG_WRITER = {
  /** A flush at most this long after a line is buffered. */
  flushMs: 100,
  /** …or at once when this many lines wait. */
  flushLines: 1_000,
  /** Lines per statement (a flush of more is several statements, one after the other). */
  statementLines: 2_000,
  /** Bytes buffered at most, all runs together: 64 runs' worth of full logs. */
  maxBufferedBytes: 16 * 1024 * 1024,
} as const;

interface RunState {
  /** Lines kept so far: the last sequence given. */
  lines: number;
  bytes: number;
  /** Lines not kept: past a bound, or lost with a failed write. */
  dropped: number;
  /** Lines buffered or being written, not yet stored (or lost). */
  unflushed: number;
  /** A bound was reached: every later line is counted, not kept. */
  full: boolean;
  /** The run ended (or the writer stopped): later lines are ignored. */
  ended: boolean;
}

interface Waiting {
  promise: Promise<void>;
  resolve: () => void;
  timer: NodeJS.Timeout | undefined;
  at: number;
}

/** PostgreSQL text and jsonb cannot hold NUL: removed from messages, and (as `\u0000` escapes, not `\\u0000`) from the fields' JSON. */
const withoutNul = (text: string): string => text.replaceAll('\u0000', '');
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

/** Fields as JSON text: errors as their name, message and stack; bigints as strings; anything unserialisable as its type. */
export function fieldsJson(fields: unknown): string | null {
  if (fields === undefined || fields === null) return null;
  if (typeof fields === 'object' && !Array.isArray(fields) && Object.keys(fields).length === 0) return null;
  let json: string | undefined;
  try {
    json = JSON.stringify(fields, (_key, v: unknown) => {
      if (v instanceof Error) {
        const code = (v as { code?: unknown }).code;
        return { type: v.name, message: v.message, stack: v.stack, ...(typeof code === 'string' ? { code } : {}) };
      }
      return typeof v === 'bigint' ? v.toString() : v;
    });
  } catch {
    json = JSON.stringify({ unserializable: Object.prototype.toString.call(fields) });
  }
  return json === undefined ? null : json.replace(NUL_ESCAPE, '$1');
}

/**
 * Keeps the lines handlers write with `ctx.log` (docs/run-logs.md), off the fire path: a line is
 * checked against its run's bound and buffered, never awaited by the handler; the buffer is
 * written by one statement for all runs, ~100 ms after its first line or at once past 1,000
 * lines, and the same statement notifies other instances of the ranges written. Stored lines are
 * then published to this process's subscribers. Before a run's end is recorded the executor
 * `close`s its log: its buffered lines are written, and the line saying how many were dropped —
 * so whoever learns that the run ended can read (or has received) every line.
 */
export class RunLogWriter {
  private readonly runs = new Map<string, RunState>();
  private buffer: LineRow[] = [];
  private bufferedBytes = 0;
  private waiting: Waiting | undefined;
  /** Flushes run one after another: a run's lines are stored, and published, in order. */
  private writing: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: RunLogWriterOptions) {}

  /** The log of a run starting here (the same one again if it is already open). */
  open(runId: string): RunLogHandle {
    if (this.stopped) return { write: () => {} };
    let state = this.runs.get(runId);
    if (!state) this.runs.set(runId, (state = { lines: 0, bytes: 0, dropped: 0, unflushed: 0, full: false, ended: false }));
    const run = state;
    return { write: (level, line) => this.write(runId, run, level, line) };
  }

  private write(runId: string, run: RunState, level: string, line: () => { message: string; fields: unknown }): void {
    if (run.ended) return;
    if (run.full) return this.drop(run, 'bound');
    const { message, fields } = line();
    const text = withoutNul(message);
    const json = fieldsJson(fields);
    const bytes = lineBytes(text, json);
    if (run.lines + 1 > RUN_LOG_BOUNDS.maxLines || run.bytes + bytes > RUN_LOG_BOUNDS.maxBytes) {
      run.full = true;
      return this.drop(run, 'bound');
    }
    if (this.bufferedBytes + bytes > RUN_LOG_WRITER.maxBufferedBytes) {
      run.full = true;
      return this.drop(run, 'buffer');
    }
    run.lines += 1;
    run.bytes += bytes;
    run.unflushed += 1;
    this.bufferedBytes += bytes;
    this.buffer.push({ runId, sequence: run.lines, at: this.o.now(), level, message: text, fieldsJson: json, dropped: null });
    void this.flushWithin(this.buffer.length >= RUN_LOG_WRITER.flushLines ? 0 : RUN_LOG_WRITER.flushMs);
  }

  private drop(run: RunState, reason: DropReason): void {
    run.dropped += 1;
    this.o.onDropped?.(1, reason);
  }

  /**
   * Ends a run's log: writes what it buffered and, if lines were dropped, the line saying how
   * many. Resolves once they are stored (or their write failed): the executor records the run's
   * end after it. Immediate for a run that wrote nothing since the last flush and dropped nothing.
   */
  async close(runId: string): Promise<void> {
    const run = this.runs.get(runId);
    if (!run) return;
    run.ended = true;
    try {
      if (run.unflushed > 0) await this.flushWithin(0);
      if (run.dropped > 0) {
        this.buffer.push({ runId, sequence: run.lines + 1, at: this.o.now(), level: 'warn', message: droppedMessage(run.dropped), fieldsJson: JSON.stringify({ dropped: run.dropped }), dropped: run.dropped });
        run.unflushed += 1;
        await this.flushWithin(0);
      }
    } finally {
      this.runs.delete(runId);
    }
  }

  /** Closes every open log (their lines and drop lines written); later lines are ignored. Never rejects. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.runs.keys()].map((id) => this.close(id)));
    await this.flushWithin(0);
  }

  /** The flush that will write what is buffered now, started within `ms`. */
  private flushWithin(ms: number): Promise<void> {
    const due = Date.now() + ms;
    let w = this.waiting;
    if (w && w.at <= due) return w.promise;
    if (w) {
      clearTimeout(w.timer);
    } else {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      w = this.waiting = { promise, resolve, timer: undefined, at: due };
    }
    const waiting = w;
    waiting.at = due;
    waiting.timer = setTimeout(() => {
      if (this.waiting === waiting) this.waiting = undefined;
      this.writing = this.writing.then(() => this.writeOut()).then(waiting.resolve);
    }, ms);
    waiting.timer.unref?.();
    return waiting.promise;
  }

  /** Writes the buffer, a statement per `statementLines`. Never rejects: a failed write's lines are counted as dropped. */
  private async writeOut(): Promise<void> {
    const batch = this.buffer;
    this.buffer = [];
    this.bufferedBytes = 0;
    for (let i = 0; i < batch.length; i += RUN_LOG_WRITER.statementLines) {
      const rows = batch.slice(i, i + RUN_LOG_WRITER.statementLines);
      try {
        await writeLines(this.o.pool, rows, encodeRanges(this.o.instanceId, rangesOf(rows)));
        this.o.onStored?.(rows.length);
        this.settled(rows, false);
        this.publish(rows);
      } catch (err) {
        this.o.log.warn({ err, lines: rows.length }, 'could not store run log lines; they are dropped');
        this.o.onDropped?.(rows.length, 'write_failed');
        this.settled(rows, true);
      }
    }
  }

  private settled(rows: readonly LineRow[], lost: boolean): void {
    for (const row of rows) {
      const run = this.runs.get(row.runId);
      if (!run) continue;
      run.unflushed -= 1;
      if (lost && row.dropped === null) run.dropped += 1;
    }
  }

  /** Stored lines to this process's subscribers of their runs (parsed only for runs someone follows). */
  private publish(rows: readonly LineRow[]): void {
    const lines: RunLogLine[] = [];
    for (const row of rows) {
      if (!this.o.events.follows(row.runId)) continue;
      lines.push({ runId: row.runId, sequence: row.sequence, at: row.at, level: row.level, message: row.message, fields: row.fieldsJson === null ? null : JSON.parse(row.fieldsJson), dropped: row.dropped });
    }
    this.o.events.publish(lines);
  }
}

/** The (run, first, last) sequence ranges of a batch (a run's lines are consecutive in it). */
function rangesOf(rows: readonly LineRow[]): LogRange[] {
  const byRun = new Map<string, LogRange>();
  for (const row of rows) {
    const r = byRun.get(row.runId);
    if (!r) byRun.set(row.runId, { runId: row.runId, from: row.sequence, to: row.sequence });
    else {
      r.from = Math.min(r.from, row.sequence);
      r.to = Math.max(r.to, row.sequence);
    }
  }
  return [...byRun.values()];
}
