import { RunStatus } from '../../domain/enums.js';
import type { RunChange } from '../../domain/run.js';
import { afterFires, type RunContext } from './context.js';
import { S } from './vocabulary.js';

/**
 * `startedAt` is the instant the run's handler was entered (docs/glossary.md), not the instant it
 * was claimed: between the two lie building the run, the other handlers of a co-due batch and the
 * event loop — up to seconds at 50,000 co-due. The claim writes its own instant (the row must say
 * RUNNING, and since when, from the moment it commits: the lost-runner sweep and recovery read it);
 * the executor stamps the handler's entry on the runtime's clock, and that instant replaces the
 * claim's with the run's next write: the end of the run when it ends within `STARTED_WRITE_DELAY_MS`
 * of its entry (one write per run, as before), else one batched UPDATE for the runs still running.
 *
 * The run's RUNNING change (and, for a fired slot, its creation) is held until then and published
 * with the entry instant, right after the write that recorded it: every figure derived from
 * `startedAt` — the change subscribers see, the lateness histogram, `stats`, the relay's check
 * of a relayed change against the row — reads one value. A run whose handler is never entered
 * (its target is unknown, a secret is missing, it was canceled first) keeps the claim's instant,
 * announced before whatever change comes next, so a run's RUNNING always precedes its end.
 */

/** How long after its handler's entry a run still running gets a write of its own for `startedAt`. */
export const STARTED_WRITE_DELAY_MS = 50;

/** A run claimed here whose announcement waits for its handler's entry. */
interface Held {
  /** The changes the claim made, as of the claim (creation if fired, then RUNNING). */
  changes: RunChange[];
  /** When its handler was entered, once it was. */
  enteredAt?: Date;
}

/**
 * The runs claimed here whose RUNNING change waits for their handler, and the entry instants not
 * yet written. One per run store.
 */
export class HeldStarts {
  private readonly held = new Map<string, Held>();
  /** Entry instants waiting for the run's next write, by run id. */
  private readonly unwritten = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Pick<RunContext, 'pool' | 'instanceId' | 'firing'>,
    /** Where changes go once their order is settled. */
    private readonly emit: (changes: readonly RunChange[]) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Holds the changes of claims (creation, RUNNING) until their handlers are entered. */
  hold(changes: readonly RunChange[]): void {
    for (const c of changes) {
      const h = this.held.get(c.run.id);
      if (h) h.changes.push(c);
      else this.held.set(c.run.id, { changes: [c] });
    }
  }

  /**
   * Publishes `changes` after the held announcement of each run they name: a run's RUNNING is
   * told before its end, a cancel, a lost-runner sweep, whatever came first.
   */
  publish(changes: readonly RunChange[]): void {
    if (this.held.size === 0) return this.emit(changes);
    const out: RunChange[] = [];
    for (const c of changes) {
      const h = this.held.get(c.run.id);
      if (h) {
        this.held.delete(c.run.id);
        out.push(...announced(h));
      }
      out.push(c);
    }
    this.emit(out);
  }

  /** The handler of `runId` was entered at `at`: written with the run's next write. */
  entered(runId: string, at: Date): void {
    const h = this.held.get(runId);
    if (h) h.enteredAt = at;
    this.unwritten.set(runId, at);
    this.timer ??= setTimeout(() => void this.flush(), STARTED_WRITE_DELAY_MS).unref();
  }

  /** The entry instant of a run about to end, taken off the write queue: its end writes it. */
  take(runId: string): Date | undefined {
    const at = this.unwritten.get(runId);
    if (at) this.unwritten.delete(runId);
    return at;
  }

  /** Writes the entry instants of the runs still running, then announces them. */
  async flush(): Promise<void> {
    this.timer = undefined;
    if (this.unwritten.size === 0) return;
    const batch = [...this.unwritten];
    this.unwritten.clear();
    // Fires first: a slot is due now; this write can wait.
    await afterFires(this.ctx);
    const statement = this.ctx.pool.query(
      `UPDATE cron_job_runs r SET started_at = u.at, updated_at = greatest(r.updated_at, u.at)
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at)
         WHERE r.id = u.id AND r.status = ${S.RUNNING} AND r.runner_instance_id = $3`,
      [batch.map(([id]) => id), batch.map(([, at]) => at), this.ctx.instanceId],
    );
    // Ends of these runs wait for it (their RUNNING must be told first).
    this.ctx.firing.add(statement);
    try {
      await statement;
    } catch (err) {
      // The rows keep the claim's instant; the changes still say when the handlers were entered.
      this.onError(err);
    } finally {
      this.ctx.firing.delete(statement);
    }
    const out: RunChange[] = [];
    for (const [id] of batch) {
      const h = this.held.get(id);
      if (!h) continue;
      this.held.delete(id);
      out.push(...announced(h));
    }
    if (out.length > 0) this.emit(out);
  }
}

/** A held announcement, its RUNNING change at the handler's entry when it was entered. */
function announced(h: Held): RunChange[] {
  const at = h.enteredAt;
  if (!at) return h.changes;
  return h.changes.map((c) =>
    c.run.status === RunStatus.RUNNING ? { ...c, run: { ...c.run, startedAt: at, updatedAt: at }, changedAt: at } : c,
  );
}
