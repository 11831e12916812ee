/**
 * Who is told of an item's result. One object may serve every item of a caller (the fire path's
 * does): no promise and no closure per item, which at 10,000 co-due slots is garbage collected
 * on the way to the handlers (BENCHMARKS.md, "Co-due: the Node CPU of the fire path").
 */
export interface BatchSink<I, O> {
  resolved(item: I, result: O): void;
  rejected(item: I, err: unknown): void;
}

interface Entry<I, O> {
  item: I;
  sink: BatchSink<I, O>;
}

const itemOf = <I>(entry: Entry<I, unknown>): I => entry.item;

/** Resolves after the ticks queued so far (`process.nextTick` is first in, first out). */
const nextTick = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));

/** A sink of its own for one item (`add`), settling its promise. */
class Deferred<I, O> implements BatchSink<I, O> {
  resolve: (o: O) => void = () => {};
  reject: (e: unknown) => void = () => {};

  resolved(_item: I, result: O): void {
    this.resolve(result);
  }

  rejected(_item: I, err: unknown): void {
    this.reject(err);
  }
}

/**
 * Collects the calls made in one turn of the event loop and hands them to `run` as one batch.
 * The fire path uses it so that co-due slots (and the runs that end together) cost one
 * statement rather than one each. `run` returns one result per item, in order.
 */
export class Batcher<I, O> {
  private queue: Entry<I, O>[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    /** Largest batch handed to `run`; the rest waits for the next batch. @default 5000 */
    private readonly maxBatch = 5_000,
    /**
     * Cuts a batch into parts handed to `run` at once (each part's callers are answered as soon
     * as its own `run` is): several statements on several connections, when that is faster.
     * Given the batch's entries and how to read an entry's item.
     */
    private readonly split?: <E>(entries: E[], itemOf: (entry: E) => I) => E[][],
  ) {}

  add(item: I): Promise<O> {
    const sink = new Deferred<I, O>();
    const answer = new Promise<O>((resolve, reject) => {
      sink.resolve = resolve;
      sink.reject = reject;
    });
    this.push(item, sink);
    return answer;
  }

  /** `add`, answered to `sink` (which never throws) rather than by a promise. */
  push(item: I, sink: BatchSink<I, O>): void {
    this.queue.push({ item, sink });
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /**
   * Every batch of the turn goes out in this turn (50,000 co-due slots: three statements sent at
   * once), before whatever the turn's callers deferred to the next one (actors re-arming).
   */
  private async flush(): Promise<void> {
    this.scheduled = false;
    const sent: Promise<void>[] = [];
    while (this.queue.length > 0) sent.push(this.send(this.queue.splice(0, this.maxBatch)));
    await Promise.all(sent);
  }

  private async send(batch: Entry<I, O>[]): Promise<void> {
    const parts = this.split?.(batch, itemOf);
    if (!parts || parts.length <= 1) return this.runPart(batch.map(itemOf), batch);
    const sent: Promise<void>[] = [];
    for (const part of parts) {
      // Each part's statement leaves before the next part is built: pg writes a statement on a
      // later tick (`process.nextTick`), which would otherwise wait for every part's parameters.
      if (sent.length > 0) await nextTick();
      sent.push(this.runPart(part.map(itemOf), part));
    }
    await Promise.all(sent);
  }

  private async runPart(items: I[], entries: Entry<I, O>[]): Promise<void> {
    let results: O[];
    try {
      results = await this.run(items);
    } catch (err) {
      for (const b of entries) b.sink.rejected(b.item, err);
      return;
    }
    for (let i = 0; i < entries.length; i++) entries[i].sink.resolved(entries[i].item, results[i]);
  }
}
