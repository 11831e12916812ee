import type { MissedReason, RunStatus } from '../domain/enums.js';
import type { FireOutcome } from '../db/run-store.js';
import type { MaintenancePass } from '../maintenance/events.js';

/**
 * What the runtime of one process does, as typed events: the moments tests (and operators'
 * hooks) wait on instead of sleeping for a guessed time. Modelled on River's test signals and
 * graphile-worker's typed `events`. Emitted after the fact, synchronously; a listener that throws
 * is reported and never changes what the runtime does.
 */
export interface RuntimeEventMap {
  /** A due slot reached the database: `kind` is the store's answer (claimed, skipped, late, …). */
  slotRecorded: { jobId: string; jobKey: string; slot: Date; kind: FireOutcome['kind']; runId: string | null };
  /** Slots of one gap were accounted for: `missed` recorded SKIPPED/MISSED, `running` run now. */
  slotsMissed: { jobId: string; jobKey: string; reason: MissedReason; missed: number; running: number; afterExclusive: Date; untilInclusive: Date };
  /** A run executed here ended and its terminal state is recorded. */
  runEnded: { runId: string; jobId: string; status: RunStatus };
  /** This instance's share of the partitions changed. */
  rebalanced: { gained: number; lost: number; partitions: number; jobs: number };
  /** The fire path found the database unreachable: due slots are deferred to the ledger. */
  databaseUnreachable: { at: Date };
  /** The database answers again (the deferred slots are being accounted for). */
  databaseReachable: { at: Date };
  /** This instance ended a job's pause at its `until` (pauseJob until): the job is ACTIVE again. */
  pauseEnded: { jobId: string; jobKey: string; until: Date; at: Date };
  /** The runtime is armed: recovery done, this instance's share of the ACTIVE jobs armed. */
  armed: { jobs: number; partitions: number };
  /** One pass of a maintenance duty ran (src/maintenance/events.ts): which, where, how it went. */
  maintenancePass: MaintenancePass;
  /** The calendars of these names were (re-)read: slots due from now on are checked against them. */
  calendarsChanged: { names: string[] };
  /**
   * A slot its job's calendars exclude reached the database: `row` a SKIPPED/CALENDAR row of its
   * own, `summary` the row standing for the rest of the span, `summarised` no row (the summary
   * stands for it); `written` false when someone had recorded the slot already.
   */
  slotExcluded: { jobId: string; jobKey: string; slot: Date; calendar: string; rule: string; recorded: 'row' | 'summary' | 'summarised'; written: boolean };
}

export type RuntimeEventName = keyof RuntimeEventMap;
export type RuntimeListener<K extends RuntimeEventName> = (event: RuntimeEventMap[K]) => void;

export class RuntimeEvents {
  private readonly listeners = new Map<RuntimeEventName, Set<(event: never) => void>>();

  constructor(private readonly onListenerError: (err: unknown, name: RuntimeEventName) => void = () => {}) {}

  /** Calls `listener` on each `name` event from now on; returns the function that stops it. */
  on<K extends RuntimeEventName>(name: K, listener: RuntimeListener<K>): () => void {
    let set = this.listeners.get(name);
    if (!set) this.listeners.set(name, (set = new Set()));
    set.add(listener as (event: never) => void);
    return () => void set.delete(listener as (event: never) => void);
  }

  /**
   * The next `name` event that `matches` (the first, without a predicate). No deadline of its
   * own: the caller bounds the wait (tests: test/support/wait-for.ts).
   */
  next<K extends RuntimeEventName>(name: K, matches: (event: RuntimeEventMap[K]) => boolean = () => true): { promise: Promise<RuntimeEventMap[K]>; cancel: () => void } {
    let off = () => {};
    const promise = new Promise<RuntimeEventMap[K]>((resolve) => {
      off = this.on(name, (event) => {
        if (!matches(event)) return;
        off();
        resolve(event);
      });
    });
    return { promise, cancel: off };
  }

  /** Whether anyone listens to `name` (an event built per slot is not built for no one). */
  listening(name: RuntimeEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0;
  }

  emit<K extends RuntimeEventName>(name: K, event: RuntimeEventMap[K]): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        (listener as RuntimeListener<K>)(event);
      } catch (err) {
        this.onListenerError(err, name);
      }
    }
  }
}
