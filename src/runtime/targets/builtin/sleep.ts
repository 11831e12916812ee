import { TargetError, type TargetContext, type TargetDefinition } from '../target.js';

export interface SleepOutput {
  sleptMs: number;
}

/** Node's timers overflow past this and fire after 1 ms instead. */
const MAX_SLEEP_MS = 2_147_483_647;

/** The `sleep` built-in target: waits `payload.ms` milliseconds or until the run is aborted. */
export const sleepTarget: TargetDefinition = {
  description: 'Waits payload.ms milliseconds (honours the run signal).',
  async handler(ctx: TargetContext): Promise<SleepOutput> {
    const payload: unknown = ctx.payload;
    const ms = typeof payload === 'object' && payload !== null ? (payload as { ms?: unknown }).ms : undefined;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > MAX_SLEEP_MS) {
      throw new TargetError('BAD_PAYLOAD', `sleep: payload.ms must be a number in [0, ${MAX_SLEEP_MS}]`, { ms });
    }
    const { signal } = ctx;
    // Hand-rolled rather than timers/promises: that rejects with an AbortError wrapping the
    // reason, and the runtime needs the signal's own reason to classify the abort.
    if (signal.aborted) throw signal.reason;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve({ sleptMs: ms });
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
};
