/**
 * Group commit: concurrent writes of one kind share a statement and its commit. A write that
 * arrives while none is in flight goes out at the end of the event loop's turn (with whatever
 * else the turn added: no timer, so a lone caller waits for nothing); writes that arrive while
 * one is in flight queue, and all of them (up to `maxBatch`) go out together as soon as it ends.
 *
 * Why: every commit waits for its own WAL flush and holds one of the pool's few connections, so
 * 50 callers committing one row each are bounded by the pool, not by PostgreSQL; one statement
 * for what queued meanwhile costs about one commit (BENCHMARKS.md, "Job writes").
 *
 * `run` answers every item of a batch on its own — a value or an error each, in order — so that
 * one caller's refusal is never another's: it decides what a batch's failure means for its items.
 */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown };

export class GroupCommit<I, O> {
  private queue: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  private inFlight = false;
  private scheduled = false;

  constructor(
    private readonly run: (items: I[]) => Promise<Outcome<O>[]>,
    /** Largest batch handed to `run`; the rest waits for the next one. */
    private readonly maxBatch = 500,
  ) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.inFlight && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          void this.next();
        });
      }
    });
  }

  /** Sends what queued, one batch at a time, until nothing is left. */
  private async next(): Promise<void> {
    if (this.inFlight) return;
    this.inFlight = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        let outcomes: Outcome<O>[];
        try {
          outcomes = await this.run(batch.map((b) => b.item));
        } catch (error) {
          // `run` answers its items itself; a throw is a bug in it, and still answers every caller.
          outcomes = batch.map(() => ({ ok: false, error }));
        }
        batch.forEach((b, i) => {
          const o = outcomes[i];
          if (o?.ok) b.resolve(o.value);
          else b.reject(o ? o.error : new Error('group commit: no outcome for an item'));
        });
      }
    } finally {
      this.inFlight = false;
    }
  }
}
