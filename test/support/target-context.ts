import { createLogger } from '../../src/logger.js';
import { expect } from 'vitest';
import { TargetError, type TargetContext } from '../../src/runtime/targets/target.js';

/** A handler context as the executor builds it, for calling a target directly. */
export function targetContext(payload: unknown, signal = new AbortController().signal, jobKey = 'test'): TargetContext {
  return {
    payload,
    signal,
    run: {
      id: 'run-1',
      jobId: 'job-1',
      jobKey,
      jobVersion: 1,
      scheduledAt: new Date('2030-01-01T00:00:00Z'),
      triggerType: 'MANUAL',
      attempt: 1,
    },
    log: createLogger(),
    progress: () => {},
    heartbeat: () => {},
  };
}

/** The TargetError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function failure(promise: Promise<unknown>): Promise<TargetError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TargetError);
  return err as TargetError;
}
