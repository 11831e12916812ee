import type { Logger } from '../logger.js';
import type { RunStore } from '../db/run-store.js';
import { backfillsInFlight } from '../db/backfill-store.js';
import type { Pool } from '../db/pool.js';

export interface BackfillsOptions {
  pool: Pool;
  store: RunStore;
  log: Logger;
  /** Claims the PENDING runs the steps created and runs those won here. */
  claimAndExecute(runIds: string[]): Promise<unknown>;
  /** Backfills stepped per round at most. */
  perRound: number;
}

/**
 * Moves backfills on (docs/behaviour.md, "Backfill"): each round settles the slots whose runs
 * ended and starts the next slot of every backfill in flight that has none in progress, then
 * claims and runs those runs here. A round runs when a backfill run ended on this instance (so
 * the next slot follows at once), when a backfill is created here, and on every pass of the
 * cluster's backfill duty (so a backfill whose runner crashed, or whose job's lanes were busy,
 * goes on). Rounds never overlap: one asked for during a round runs once it ends. The plan is in
 * the database and each step is one transaction under the backfill's row lock (db/runs/backfill.ts),
 * so rounds on several instances at once start each slot once.
 */
export class Backfills {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly o: BackfillsOptions) {}

  /** A round now, or after the one in progress; rejects with a round's failure. */
  advance(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        await this.round();
      } while (this.again);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  private async round(): Promise<void> {
    const { store, pool } = this.o;
    await store.settleBackfillSlots();
    const started: string[] = [];
    for (const id of await backfillsInFlight(pool, this.o.perRound)) {
      const step = await store.stepBackfill(id);
      if (step.kind === 'started') started.push(step.run.id);
    }
    if (started.length) await this.o.claimAndExecute(started);
  }

  /** `advance` for callers that must not wait or fail (a run's end). */
  nudge(): void {
    this.advance().catch((err) => this.o.log.warn({ err }, 'backfills: a round failed; the duty retries'));
  }
}
