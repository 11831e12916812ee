/**
 * A first-in, first-out queue whose `shift` costs the same however long the queue. An array's
 * `shift()` moves every element left once the array is large (V8 trims the front in place only
 * of small ones): a subscription's feed handed a co-due burst at once (10,000 runs created,
 * started and ended: 30,000 changes) and read change by change cost 74–205 ms of CPU, 50,000
 * changes 0.8–1.6 s; with this queue 28–39 ms and 41–66 ms (BENCHMARKS.md, "2026-11-26 (s8, N)").
 * The head is an index, and the taken front is cut off only once it is half the array.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, taken off the queue; undefined when it is empty. */
  shift(): T | undefined {
    if (this.head === this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined; // not kept alive by the queue
    if (this.head === this.items.length) this.clear();
    else if (this.head >= 1_024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}
