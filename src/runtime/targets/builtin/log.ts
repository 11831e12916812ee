import type { TargetContext, TargetDefinition } from '../target.js';

export interface LogOutput {
  /** The logged `payload.message`; `null` when the payload had none. */
  message: unknown;
}

/** The `log` built-in target: writes `payload.message` to the run's logger. */
export const logTarget: TargetDefinition = {
  description: 'Logs payload.message.',
  handler(ctx: TargetContext): LogOutput {
    const payload: unknown = ctx.payload;
    const message =
      typeof payload === 'object' && payload !== null ? (payload as { message?: unknown }).message ?? null : null;
    // A string is the log line itself; anything else goes in a field so it stays structured.
    if (typeof message === 'string') ctx.log.info(message);
    else ctx.log.info({ message }, 'log target');
    return { message };
  },
};
