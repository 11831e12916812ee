/**
 * Whether this instance's fire statements meet other writers of the same slots. A lone instance
 * (or one whose jobs no other instance arms) meets none, and records its slots with a statement
 * that fails on a conflict rather than skipping it (fire.ts, `claimRunning`): a fifth cheaper in
 * PostgreSQL's CPU. Instances arming the same jobs (`CRONQL_JOB_REPLICAS`) meet each other at
 * every slot; once one race is seen, the statement that skips conflicts is used for `QUIET_MS`
 * after the last one, rather than a failed statement per batch.
 */
export class SlotRaces {
  /** A conflict seen this long ago is forgotten: the next batch tries the cheaper statement again. */
  static readonly QUIET_MS = 10 * 60_000;
  private until = -Infinity;

  constructor(private readonly now: () => Date) {}

  /** Whether a batch should expect another writer's rows among its slots. */
  expected(): boolean {
    return this.now().getTime() < this.until;
  }

  /** A batch met a slot another writer recorded (or a lane taken since the batch's snapshot). */
  met(): void {
    this.until = this.now().getTime() + SlotRaces.QUIET_MS;
  }
}
