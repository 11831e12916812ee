import type { RunEvents, RunChange } from '../runtime/run-events.js';
import { runMatches, selectorOf, type RunFilter } from '../services/run.service.js';
import { matchesSelector, type Labels } from '../domain/label-selector.js';
import { EVERY_JOB, within, type Scope } from '../domain/scope.js';
import { Fifo } from './fifo.js';

/** The labels of job versions by id (a version's labels never change: a new version is a new id). */
export type LabelsOf = (jobIds: readonly string[]) => Promise<ReadonlyMap<string, Readonly<Labels>>>;

/** Job versions whose labels a feed remembers; past it, it forgets them all and reads again. */
const LABELS_REMEMBERED = 10_000;

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
 * when the consumer returns, or when more than `MAX_BUFFERED_CHANGES` pile up unread. With a
 * `scope` (the caller's token's selector), only the changes of the runs of its job versions:
 * the filter's selector narrowed to it, matched the same way.
 */
export function runChangeFeed(
  events: RunEvents,
  filter: RunFilter | null | undefined,
  onOverflow?: () => void,
  labelsOf?: LabelsOf,
  scope: Scope = EVERY_JOB,
): AsyncIterableIterator<RunChange> {
  // Parsed before anything is subscribed: a bad selector fails the subscription (INVALID_SELECTOR).
  const selector = within(scope, selectorOf(filter));
  // A scope without a way to read labels would show every run: refused, not ignored.
  if (scope !== null && labelsOf === undefined) throw new Error('runChangeFeed: a scoped feed needs labelsOf');
  const selecting = selector !== null && selector.terms.length > 0 && labelsOf !== undefined;
  const known = new Map<string, Readonly<Labels>>();
  // Whether a change's job version matches the selector: at once when its labels are known, else
  // once read (the queue keeps the order: the reader waits on the head).
  const selected = (change: RunChange): boolean | Promise<boolean> => {
    if (!selecting) return true;
    const labels = known.get(change.run.jobId);
    if (labels) return matchesSelector(selector, labels);
    return labelsOf([change.run.jobId]).then(
      (found) => {
        if (known.size >= LABELS_REMEMBERED) known.clear();
        const l = found.get(change.run.jobId);
        if (l) known.set(change.run.jobId, l);
        return l !== undefined && matchesSelector(selector, l);
      },
      () => false,
    );
  };
  // Not an array shifted: a burst fills it with thousands at once (fifo.ts).
  const queue = new Fifo<{ change: RunChange; selected: boolean | Promise<boolean> }>();
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
      queue.clear();
      onOverflow?.();
      finish();
      return;
    }
    queue.push({ change, selected: selected(change) });
    wake?.();
  });
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next(): Promise<IteratorResult<RunChange>> {
      for (;;) {
        while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        const head = queue.shift();
        if (!head) return { value: undefined, done: true };
        if (head.selected === true || (head.selected !== false && (await head.selected))) return { value: head.change, done: false };
      }
    },
    async return(): Promise<IteratorResult<RunChange>> {
      queue.clear();
      finish();
      return { value: undefined, done: true };
    },
    async throw(err: unknown): Promise<IteratorResult<RunChange>> {
      queue.clear();
      finish();
      throw err;
    },
  };
}
