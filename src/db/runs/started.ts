import { RunStatus } from '../../domain/enums.js';
import { created, moved, type RunChange, type RunRecord } from '../../domain/run.js';
import { instantArray, uuidArray } from '../array-literals.js';
import { afterFires, type RunContext } from './context.js';
import { asOf } from './record.js';
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

/**
 * A run claimed here whose announcement waits for its handler's entry. Its changes are built when
 * they are announced (after the handlers of its batch), not when the claim returns.
 */
interface Held {
  /** The run as the claim left it (RUNNING since the claim's instant). */
  run: RunRecord;
  /** Whether the claim inserted it: its creation is announced before its RUNNING. */
  fired: boolean;
  /** The run as its handler was entered (RUNNING since then), once it was. */
  entered?: RunRecord;
}

/**
 * The runs claimed here whose RUNNING change waits for their handler, and the entry instants not
 * yet written. One per run store.
 */
export class HeldStarts {
  private readonly held = new Map<string, Held>();
  /**
   * Claims held but not yet indexed by run: a claim's runs are indexed when the store next needs
   * them (an entry, a publish, a write), not between the claim's answer and its handlers.
   */
  private claims: { runs: readonly RunRecord[]; fired: boolean }[] = [];
  /** Entry instants waiting for the run's next write, by run id. */
  private readonly unwritten = new Map<string, Date>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: Pick<RunContext, 'pool' | 'instanceId' | 'firing'>,
    /** Where changes go once their order is settled. */
    private readonly emit: (changes: readonly RunChange[]) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Holds the announcement of claimed runs (`fired`: their creation too) until their handlers are entered. */
  hold(runs: readonly RunRecord[], fired: boolean): void {
    if (runs.length > 0) this.claims.push({ runs, fired });
  }

  /** The held claims, by run id (`claims` indexed). */
  private index(): Map<string, Held> {
    if (this.claims.length > 0) {
      for (const { runs, fired } of this.claims) for (const run of runs) this.held.set(run.id, { run, fired });
      this.claims = [];
    }
    return this.held;
  }

  /**
   * Publishes `changes` after the held announcement of each run they name: a run's RUNNING is
   * told before its end, a cancel, a lost-runner sweep, whatever came first.
   */
  publish(changes: readonly RunChange[]): void {
    if (this.index().size === 0) return this.emit(changes);
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

  /**
   * The handler of `runId` was entered at `at`: written with the run's next write. `run`: the run
   * as entered (RUNNING since `at`), if the caller has it already.
   */
  entered(runId: string, at: Date, run?: RunRecord): void {
    const h = this.index().get(runId);
    if (h) h.entered = run && run.startedAt === at ? run : { ...h.run, startedAt: at, updatedAt: at };
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
      [uuidArray(batch.map(([id]) => id)), instantArray(batch.map(([, at]) => at)), this.ctx.instanceId],
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
    this.index();
    for (const [id] of batch) {
      const h = this.held.get(id);
      if (!h) continue;
      this.held.delete(id);
      out.push(...announced(h));
    }
    if (out.length > 0) this.emit(out);
  }
}

/**
 * The changes of runs a claim made RUNNING: created PENDING first when the claim inserted them
 * (a fired slot), then RUNNING. Built when they are announced, not when the claim returns: the
 * fire path builds nothing per run before the handlers that it does not need there.
 */
export function claimChanges(runs: readonly RunRecord[], fired: boolean): RunChange[] {
  const changes: RunChange[] = [];
  for (const run of runs) {
    if (fired) changes.push(created(asPending(run)));
    changes.push(moved(run, RunStatus.PENDING));
  }
  return changes;
}

/** The run as it was, for an instant, before its claim: what the creation event announces. */
const asPending = (run: RunRecord): RunRecord => asOf(run, RunStatus.PENDING, run.createdAt);

/** A held announcement: its creation as of the claim (if fired), its RUNNING at the handler's entry once it was entered. */
function announced(h: Held): RunChange[] {
  const changes: RunChange[] = h.fired ? [created(asPending(h.run))] : [];
  changes.push(moved(h.entered ?? h.run, RunStatus.PENDING));
  return changes;
}
