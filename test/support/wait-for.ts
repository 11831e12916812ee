import type { RuntimeEventMap, RuntimeEventName, RuntimeEvents } from '../../src/runtime/events.js';

/**
 * The next runtime event `name` that `matches`, within a generous deadline (a loaded machine is
 * slow, never wrong): what a test waits on instead of sleeping for a guessed time. Start waiting
 * before doing what causes the event.
 */
export function nextEvent<K extends RuntimeEventName>(
  events: RuntimeEvents,
  name: K,
  matches: (event: RuntimeEventMap[K]) => boolean = () => true,
  timeoutMs = 20_000,
): Promise<RuntimeEventMap[K]> {
  const { promise, cancel } = events.next(name, matches);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cancel();
      reject(new Error(`no ${name} event within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Collects every `name` event from now on (`stop()` ends it). */
export function collectEvents<K extends RuntimeEventName>(events: RuntimeEvents, name: K): RuntimeEventMap[K][] & { stop: () => void } {
  const seen = [] as unknown as RuntimeEventMap[K][] & { stop: () => void };
  seen.stop = events.on(name, (e) => seen.push(e));
  return seen;
}
