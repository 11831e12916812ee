import { EventEmitter } from 'node:events';
import type { RunStatus } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';

/** One state change of a run; `previousStatus` is null when the run was created. */
export interface RunChange {
  run: RunRecord;
  previousStatus: RunStatus | null;
  changedAt: Date;
  /** Made by another instance and relayed here (metrics count only their own instance's). */
  remote?: true;
}

/**
 * The in-process stream of run state changes. Each change is emitted right after the statement
 * that made it returned, by the one component that owns the run at that moment, so the changes
 * of one run come in order. Listeners must not throw (an error is reported, never propagated).
 */
export class RunEvents {
  private readonly emitter = new EventEmitter();

  /** @param onListenerError told of a listener's throw; the other listeners still get the change. */
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {
    // Every GraphQL subscription adds a listener.
    this.emitter.setMaxListeners(0);
  }

  emit(change: RunChange): void {
    for (const listener of this.emitter.listeners('change') as ((c: RunChange) => void)[]) {
      try {
        listener(change);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  /** How many listeners there are (the relay skips reading changes nobody here listens to). */
  get listenerCount(): number {
    return this.emitter.listenerCount('change');
  }

  created(run: RunRecord): void {
    this.emit({ run, previousStatus: null, changedAt: run.createdAt });
  }

  changed(run: RunRecord, previousStatus: RunStatus): void {
    this.emit({ run, previousStatus, changedAt: run.updatedAt });
  }

  on(listener: (change: RunChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }

}
