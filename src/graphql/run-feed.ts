import type { RunEvents, RunChange } from '../runtime/run-events.js';
import { runMatches, type RunFilter } from '../services/run.service.js';
import type { RunRecord } from '../domain/run.js';

/**
 * Changes a subscription's feed may have waiting before its subscribers are dropped (4429). The
 * feed is read by the subscription's shared channel (shared-subscriptions.ts), which never stops
 * reading but delivers a burst in slices: the bound must hold the largest burst (every co-due
 * run created and started: two changes each) and still not let memory grow without end if
 * executing the selection cannot keep up. A reader that stops reading is bounded separately, by
 * its socket's backlog.
 */
export const MAX_BUFFERED_CHANGES = 50_000;

/**
 * The run changes matching `filter`, from now on, as an async iterator. Changes are queued in
 * the order `events` emitted them, which is the order they happened per run. Ends (completes)
 * when the consumer returns, or when more than `MAX_BUFFERED_CHANGES` pile up unread.
 *
 * `visible`, for a scoped caller, keeps the runs of its jobs (services/run.service.ts `visible`):
 * the changes waiting are checked together, in order, with the labels of their job versions,
 * which the service keeps once read — so a feed costs no query per change.
 */
export function runChangeFeed(
  events: RunEvents,
  filter: RunFilter | null | undefined,
  onOverflow?: () => void,
  visible?: (runs: RunRecord[]) => Promise<RunRecord[]>,
): AsyncIterableIterator<RunChange> {
  const queue: RunChange[] = [];
  /** Changes checked against `visible`, in order, to hand out. */
  const ready: RunChange[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const finish = () => {
    done = true;
    off();
    wake?.();
  };
  const off = events.on((change) => {
    if (done || !runMatches(change.run, filter)) return;
    if (queue.length >= MAX_BUFFERED_CHANGES) {
      queue.length = 0;
      onOverflow?.();
      finish();
      return;
    }
    queue.push(change);
    wake?.();
  });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<RunChange>> {
      for (;;) {
        const first = ready.shift();
        if (first) return { value: first, done: false };
        while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        if (queue.length === 0) return { value: undefined, done: true };
        const batch = queue.splice(0);
        if (!visible) {
          ready.push(...batch);
          continue;
        }
        const shown = new Set(await visible(batch.map((c) => c.run)));
        ready.push(...batch.filter((c) => shown.has(c.run)));
      }
    },
    async return(): Promise<IteratorResult<RunChange>> {
      queue.length = 0;
      ready.length = 0;
      finish();
      return { value: undefined, done: true };
    },
    async throw(err: unknown): Promise<IteratorResult<RunChange>> {
      queue.length = 0;
      ready.length = 0;
      finish();
      throw err;
    },
  };
}
