import { afterEach, describe, expect, it, vi } from 'vitest';
import { logTarget } from '../../src/runtime/targets/builtin/log.js';
import { sleepTarget } from '../../src/runtime/targets/builtin/sleep.js';
import { targetContext } from '../support/target-context.js';

const context = (payload: unknown, signal?: AbortSignal) => targetContext(payload, signal, 'builtins');

describe('log target', () => {
  it('logs a string message as the log line and returns it', async () => {
    const ctx = context({ message: 'hello' });
    const info = vi.spyOn(ctx.log, 'info');
    expect(await logTarget.handler(ctx)).toEqual({ message: 'hello' });
    expect(info).toHaveBeenCalledWith('hello');
  });

  it('logs a structured message as a field', async () => {
    const ctx = context({ message: { count: 3 } });
    const info = vi.spyOn(ctx.log, 'info');
    expect(await logTarget.handler(ctx)).toEqual({ message: { count: 3 } });
    expect(info).toHaveBeenCalledWith({ message: { count: 3 } }, 'log target');
  });

  it('returns a null message when the payload has none', async () => {
    expect(await logTarget.handler(context(null))).toEqual({ message: null });
    expect(await logTarget.handler(context({}))).toEqual({ message: null });
  });
});

describe('sleep target', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('resolves after payload.ms with the time slept', async () => {
    vi.useFakeTimers();
    let settled = false;
    const done = Promise.resolve(sleepTarget.handler(context({ ms: 5_000 }))).finally(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(done).resolves.toEqual({ sleptMs: 5_000 });
  });

  it('accepts 0', async () => {
    await expect(sleepTarget.handler(context({ ms: 0 }))).resolves.toEqual({ sleptMs: 0 });
  });

  it('rejects with the signal reason as soon as the run is aborted, leaving no timer', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const done = sleepTarget.handler(context({ ms: 60_000 }, controller.signal));
    const reason = new Error('cancelled by user');
    controller.abort(reason);
    await expect(done).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects at once with the reason of a signal that is already aborted', async () => {
    const reason = new Error('shutdown');
    await expect(sleepTarget.handler(context({ ms: 10 }, AbortSignal.abort(reason)))).rejects.toBe(reason);
  });

  it.each([[{}], [{ ms: -1 }], [{ ms: Number.NaN }], [{ ms: Infinity }], [{ ms: '5' }], [{ ms: 2 ** 31 }], [null]])(
    'rejects the payload %j with BAD_PAYLOAD',
    async (payload) => {
      await expect(sleepTarget.handler(context(payload))).rejects.toMatchObject({ code: 'BAD_PAYLOAD' });
    },
  );
});
