/**
 * The wake-ups of concurrency pools (a place freed, a limit raised: the POOL_FREED notification),
 * coalesced per pool: one admission at a time per pool on this instance, and one more after it
 * when woken meanwhile — a burst of ends in one pool is not a queue of admissions, and none is
 * lost. Every instance is woken; the pool's lock in the database decides who admits what.
 */
export class PoolWakes {
  /** Pools being admitted here, each with whether it was woken again meanwhile. */
  private readonly busy = new Map<string, boolean>();

  /** @param admit admits a pool's waiting runs here; never rejects (the fire path logs its failures) */
  constructor(private readonly admit: (name: string) => Promise<unknown>) {}

  wake(name: string): void {
    if (this.busy.has(name)) {
      this.busy.set(name, true);
      return;
    }
    this.busy.set(name, false);
    void this.run(name);
  }

  private async run(name: string): Promise<void> {
    try {
      do {
        this.busy.set(name, false);
        await this.admit(name);
      } while (this.busy.get(name));
    } finally {
      this.busy.delete(name);
    }
  }
}
