/**
 * Collects the calls made in one turn of the event loop and hands them to `run` as one batch.
 * The fire path uses it so that co-due slots (and the runs that end together) cost one
 * statement rather than one each. `run` returns one result per item, in order.
 */
export class Batcher<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    /** Largest batch handed to `run`; the rest waits for the next batch. @default 5000 */
    private readonly maxBatch = 5_000,
    /**
     * Cuts a batch into parts handed to `run` at once (each part's callers are answered as soon
     * as its own `run` is): several statements on several connections, when that is faster.
     */
    private readonly split?: (items: I[]) => I[][],
  ) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
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

  private async send(batch: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[]): Promise<void> {
    const items = batch.map((b) => b.item);
    const parts = this.split?.(items);
    if (!parts || parts.length <= 1) return this.runPart(items, batch);
    const entry = new Map(batch.map((b) => [b.item, b]));
    await Promise.all(parts.map((part) => this.runPart(part, part.map((item) => entry.get(item)!))));
  }

  private async runPart(items: I[], entries: { resolve: (o: O) => void; reject: (e: unknown) => void }[]): Promise<void> {
    try {
      const results = await this.run(items);
      entries.forEach((b, i) => b.resolve(results[i]));
    } catch (err) {
      for (const b of entries) b.reject(err);
    }
  }
}
