/**
 * A run's log (docs/run-logs.md): the lines its handler wrote with `ctx.log`, kept with the run.
 * `sequence` numbers a run's lines from 1, in the order they were written; it is the cursor of
 * `Run.logs` and how a reader stitches a page and the live stream together.
 */
export interface RunLogLine {
  runId: string;
  sequence: number;
  at: Date;
  /** pino's level name: trace, debug, info, warn, error, fatal. */
  level: string;
  message: string;
  /** The structured fields of the call (and of the child loggers it came through); null when none. */
  fields: unknown;
  /** Set on the run's last line when lines past the bound were not kept: how many. */
  dropped: number | null;
}

/** What a run's log keeps at most: this many lines and this many bytes, then one line saying how many more were dropped. */
export const RUN_LOG_BOUNDS = {
  /** Lines kept per run (the drop line comes on top). */
  maxLines: 1_000,
  /** UTF-8 bytes of the messages and of the fields' JSON kept per run. */
  maxBytes: 256 * 1024,
} as const;

/** `Run.logs` page size when `first` is omitted or null. */
export const RUN_LOG_PAGE_SIZE = 100;

/** The bytes a line counts against `RUN_LOG_BOUNDS.maxBytes`: its message and its fields' JSON, in UTF-8. */
export function lineBytes(message: string, fieldsJson: string | null): number {
  return Buffer.byteLength(message) + (fieldsJson === null ? 0 : Buffer.byteLength(fieldsJson));
}

/** The text of the line that says how many lines a run did not keep. */
export function droppedMessage(dropped: number): string {
  return `${dropped} more log ${dropped === 1 ? 'line was' : 'lines were'} not kept (a run keeps at most ${RUN_LOG_BOUNDS.maxLines.toLocaleString('en-US')} lines / ${RUN_LOG_BOUNDS.maxBytes / 1024} KiB)`;
}
