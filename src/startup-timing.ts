/**
 * How long each step of a start took, in ms, in the order they ran: what "cronql is listening"
 * logs (`startup`), so that a slow start says where its time went (see docs/operations.md).
 */
export class StartupTiming {
  readonly phases: Record<string, number> = {};
  private last = performance.now();
  private readonly waiting = new Map<string, () => void>();

  /** Counts the next step from `instant` (a `performance.now()`) instead: main.ts's steps come first. */
  continueFrom(instant: number): void {
    this.last = instant;
  }

  /** Records the time since the previous mark (or since the timing began) as `phase`; returns the instant. */
  mark(phase: string): number {
    const now = performance.now();
    this.phases[phase] = Math.round((this.phases[phase] ?? 0) + now - this.last);
    this.last = now;
    const then = this.waiting.get(phase);
    this.waiting.delete(phase);
    then?.();
    return now;
  }

  /** Calls `then` once `phase` is marked (main.ts starts loading the API there). */
  after(phase: string, then: () => void): void {
    this.waiting.set(phase, then);
  }
}
