import { EventEmitter } from 'node:events';
import type { RunChange } from '../domain/run.js';

export type { RunChange } from '../domain/run.js';

/**
 * The in-process stream of run state changes. Changes are published in one place: the run store
 * (`db/run-store.ts`) publishes the changes each of its writes made, right after the statement
 * returned, and the relay publishes those other instances made. So the changes of one run come
 * in order. Listeners must not throw (an error is reported, never propagated).
 */
export class RunEvents {
  private readonly emitter = new EventEmitter();

  /** @param onListenerError told of a listener's throw; the other listeners still get the change. */
  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {
    // Every GraphQL subscription adds a listener.
    this.emitter.setMaxListeners(0);
  }

  /** Hands each change, in order, to every listener. */
  publish(changes: readonly RunChange[]): void {
    if (changes.length === 0) return;
    const listeners = this.emitter.listeners('change') as ((c: RunChange) => void)[];
    for (const change of changes) {
      for (const listener of listeners) {
        try {
          listener(change);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
  }

  /** Publishes one change (the relay, tests). */
  emit(change: RunChange): void {
    this.publish([change]);
  }

  /** How many listeners there are (the relay skips reading changes nobody here listens to). */
  get listenerCount(): number {
    return this.emitter.listenerCount('change');
  }

  on(listener: (change: RunChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
