/**
 * How long each step of a start took, in ms, in the order they ran: what "cronql is listening"
 * logs (`startup`), so that a slow start says where its time went (see docs/operations.md).
 */
export class StartupTiming {
  readonly phases: Record<string, number> = {};
  private last = performance.now();

  /** Records the time since the previous mark (or since the timing began) as `phase`. */
  mark(phase: string): void {
    const now = performance.now();
    this.phases[phase] = Math.round((this.phases[phase] ?? 0) + now - this.last);
    this.last = now;
  }
}
