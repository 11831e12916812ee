import type { Pool } from '../pool.js';
import type { RunChange, RunRecord } from '../../domain/run.js';
import type { RunIds } from './run-ids.js';
import type { SlotRaces } from './slot-races.js';

/** A statement on the pool or on one transaction's connection. */
export type Query = (text: string, params: unknown[]) => Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;

/** A run created waiting: a retry, due at the end of its backoff. */
export type WaitingRun = Pick<RunRecord, 'id' | 'dueAt'>;

/**
 * What every part of the run store shares: where it writes, who it is, the time, and where its
 * changes go. One per `RunStore`; the parts are functions of it, so that the store's state
 * (which fire statements are in flight, who is told of waiting runs) is in one place.
 */
export interface RunContext {
  readonly pool: Pool;
  /** Recorded as the runner of the runs this instance claims. */
  readonly instanceId: string;
  readonly now: () => Date;
  /** The one place run changes leave the store: told of every change each write made, in order, right after it returned. */
  readonly publish: (changes: RunChange[]) => void;
  /**
   * Told of the runs a claim made RUNNING here (`fired`: inserted by it, so created too): their
   * changes (`claimChanges`) published now, or held until the run's handler is entered
   * (`started.ts`), by the store's choice.
   */
  readonly claimed: (runs: readonly RunRecord[], fired: boolean) => void;
  /** Who starts the runs created waiting (retries): the runtime arms a timer for each. */
  readonly waiting: (runs: readonly WaitingRun[]) => void;
  /** Fire statements in flight: ends of runs wait for those (fires first: a slot is due now, a run's end can wait). */
  readonly firing: Set<Promise<unknown>>;
  /** Whether fire statements meet other instances' rows lately (which statement records slots). */
  readonly races: SlotRaces;
  /** The ids of the runs fire statements claim, made in the order the statements leave (run-ids.ts). */
  readonly runIds: RunIds;
}

/**
 * Resolves once no fire statement is in flight and the handlers of the runs they claimed have
 * started: those starts are microtasks behind a fire's answer, so a write that waited for the
 * fires resumes a turn of the event loop later rather than among them. Without that turn, the
 * ends of the first part's runs (a batch of thousands: its parameters built, its statement sent)
 * ran between the last part's commit and its handlers (50,000 co-due: ~2 s; BENCHMARKS.md).
 */
export async function afterFires(ctx: Pick<RunContext, 'firing'>): Promise<void> {
  while (ctx.firing.size > 0) {
    await Promise.allSettled([...ctx.firing]);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** Runs `work` in one transaction on one connection. */
export async function inTransaction<T>(pool: Pool, work: (q: Query) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A borrowed connection has no 'error' listener of the pool's: a backend ended between two
  // statements (a restart, 57P01) would be an uncaught 'error' event. Kept here, the connection
  // is dropped on release instead of lent again.
  let lost: Error | undefined;
  const onError = (err: Error) => {
    lost = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await work((text, params) => client.query(text, params));
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.off('error', onError);
    client.release(lost);
  }
}
