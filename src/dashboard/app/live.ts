import { createClient } from '../../client/create-client.js';
import { Q, type LogLine, type RunRow, type RunStatus } from './queries.js';

/**
 * The live feed: one graphql-ws subscription to `runChanged` for the whole page, whatever view
 * is open. Changes are not handed out one by one: they are collected and delivered once per
 * animation frame (or every 250 ms when the tab is hidden and frames stop), with only the latest
 * state of each run, so 100 runs a second cost a few renders a second, not hundreds.
 *
 * The socket reconnects by itself (with backoff); `state` says whether it is up, and every
 * reconnection after a loss is announced (`onResync`) so views reload what they may have missed.
 * It is `cronql/client`'s subscription (src/client), with graphql-ws options of its own.
 */
export type LiveState = 'connecting' | 'live' | 'lost';

export interface RunChange {
  run: RunRow;
  previousStatus: RunStatus | null;
  changedAt: string;
}

export interface LiveFeed {
  readonly state: LiveState;
  /** How many times the connection came back after a loss. */
  readonly reconnections: number;
  onState(listener: (state: LiveState) => void): () => void;
  /** Batches of run changes, at most one per frame; each run at most once (its latest state). */
  onChanges(listener: (runs: RunRow[]) => void): () => void;
  /** Called after a reconnection: what happened meanwhile was not delivered. */
  onResync(listener: () => void): () => void;
  /** Changes delivered since the page opened (for the header's counter). */
  readonly delivered: number;
  /**
   * A run's log lines as they are written, on the same connection (docs/run-logs.md): `done` once
   * the run has ended and every line was sent, or the subscription failed. Returns the unsubscribe.
   */
  followLogs(runId: string, on: { line(line: LogLine): void; done(failed: boolean): void }): () => void;
  dispose(): void;
}

/** How often the page pings the server: a dead connection is noticed within about this long. */
const KEEP_ALIVE_MS = 10_000;
const HIDDEN_FLUSH_MS = 250;

export function createLiveFeed(endpoint: string, token: string, onAuthFailure: (reason: string) => void): LiveFeed {
  let state: LiveState = 'connecting';
  let everConnected = false;
  let reconnections = 0;
  let delivered = 0;
  const stateListeners = new Set<(s: LiveState) => void>();
  const changeListeners = new Set<(runs: RunRow[]) => void>();
  const resyncListeners = new Set<() => void>();
  const setState = (next: LiveState) => {
    if (next === state) return;
    state = next;
    for (const l of stateListeners) l(next);
  };

  // Latest state per run id, in arrival order of first change within the batch.
  let pending = new Map<string, RunRow>();
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (frame) cancelAnimationFrame(frame);
    if (timer) clearTimeout(timer);
    frame = 0;
    timer = undefined;
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending = new Map();
    delivered += batch.length;
    for (const l of changeListeners) l(batch);
  };
  const enqueue = (run: RunRow) => {
    const before = pending.get(run.id);
    pending.set(run.id, before ? { ...before, ...run } : run);
    if (!frame && !timer) {
      frame = requestAnimationFrame(flush);
      timer = setTimeout(flush, HIDDEN_FLUSH_MS);
    }
  };

  const client = createClient({
    url: endpoint,
    token,
    ws: {
      lazy: false,
      keepAlive: KEEP_ALIVE_MS,
      retryAttempts: Number.POSITIVE_INFINITY,
      shouldRetry: () => true,
      retryWait: async (retries) => {
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 300 * 2 ** Math.min(retries, 5)) * (0.75 + Math.random() / 2)));
      },
      // A close the client deems final (e.g. 4429 "too slow") ends its own retry loop; the
      // subscription's error handler below subscribes again, which reconnects.
      onNonLazyError: () => {},
      on: {
        connecting: () => setState(everConnected ? 'lost' : 'connecting'),
        connected: () => {
          if (everConnected) {
            reconnections += 1;
            setState('live');
            for (const l of resyncListeners) l();
          } else {
            everConnected = true;
            setState('live');
          }
        },
        closed: (event) => {
          const code = (event as CloseEvent | undefined)?.code;
          // 4403/4401: the server refused the token; retrying would not help.
          if (code === 4403 || code === 4401) onAuthFailure('the live feed refused the token');
          if (everConnected || state !== 'connecting') setState('lost');
        },
      },
    },
  });

  // The client re-sends the subscription itself on every reconnection; an operation error (the
  // server refused or ended it, or one of its results failed, which ends it) is retried here, a
  // little later. While the socket stayed up no reconnection announces the gap: say it here.
  let disposed = false;
  let unsubscribe = () => {};
  const subscribe = () => {
    unsubscribe = client.subscribe(
      Q.runChanged,
      {},
      {
        next: ({ runChanged }) => enqueue(runChanged.run),
        error: (err) => {
          if (disposed) return;
          const socketUp = err.details?.closeCode === undefined && state === 'live';
          setTimeout(() => {
            if (disposed) return;
            subscribe();
            if (socketUp) for (const l of resyncListeners) l();
          }, 2_000);
        },
        complete: () => {
          if (!disposed) setTimeout(() => !disposed && subscribe(), 2_000);
        },
      },
    );
  };
  subscribe();

  return {
    get state() {
      return state;
    },
    get reconnections() {
      return reconnections;
    },
    get delivered() {
      return delivered;
    },
    onState(listener) {
      stateListeners.add(listener);
      return () => stateListeners.delete(listener);
    },
    onChanges(listener) {
      changeListeners.add(listener);
      return () => changeListeners.delete(listener);
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => resyncListeners.delete(listener);
    },
    followLogs(runId, on) {
      return client.subscribe(Q.runLogsLive, { runId }, {
        next: ({ runLogs }) => on.line(runLogs),
        error: () => on.done(true),
        complete: () => on.done(false),
      });
    },
    dispose() {
      disposed = true;
      unsubscribe();
      void client.dispose();
      flush();
    },
  };
}
