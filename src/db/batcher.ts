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

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxBatch);
    this.scheduled = false;
    if (this.queue.length > 0) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
    try {
      const results = await this.run(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i]));
    } catch (err) {
      for (const b of batch) b.reject(err);
    }
  }
}
