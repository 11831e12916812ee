import type { RunLogLine } from '../domain/run-log.js';

type Listener = (lines: readonly RunLogLine[]) => void;

/**
 * The in-process stream of run log lines, by run: the writer (run-log-writer.ts) publishes the
 * lines it stored, right after their statement returned; the relay (run-log-relay.ts) those
 * other instances stored. Listeners are kept per run id, so a line costs nothing when nobody
 * here follows its run, and the relay reads only the runs someone here follows.
 */
export class RunLogEvents {
  private readonly listeners = new Map<string, Set<Listener>>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  /** Calls `listener` with each batch of the run's lines from now on; returns the function that stops it. */
  on(runId: string, listener: Listener): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(runId) === set) this.listeners.delete(runId);
    };
  }

  /** Whether anyone here follows the run. */
  follows(runId: string): boolean {
    return this.listeners.has(runId);
  }

  /** Hands lines (of one or many runs, in order per run) to the listeners of their runs. */
  publish(lines: readonly RunLogLine[]): void {
    if (lines.length === 0 || this.listeners.size === 0) return;
    const byRun = new Map<string, RunLogLine[]>();
    for (const line of lines) {
      if (!this.listeners.has(line.runId)) continue;
      let list = byRun.get(line.runId);
      if (!list) byRun.set(line.runId, (list = []));
      list.push(line);
    }
    for (const [runId, list] of byRun) {
      for (const listener of [...(this.listeners.get(runId) ?? [])]) {
        try {
          listener(list);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
  }
}
