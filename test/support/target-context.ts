import { createLogger } from '../../src/logger.js';
import type { TargetContext } from '../../src/runtime/targets/target.js';

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
    },
    log: createLogger(),
  };
}
