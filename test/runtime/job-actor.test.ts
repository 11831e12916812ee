import { describe, expect, it } from 'vitest';
import { CatchUpPolicy, JobStatus, OverlapPolicy, ScheduleType } from '../../src/domain/enums.js';
import { DEFAULT_SETTINGS, NO_SCHEDULE_EXTRAS, type JobSnapshot } from '../../src/domain/job.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { JobActor } from '../../src/runtime/job-actor.js';
import { DEFAULTS } from '../../src/config.js';
import { MisfireGrace } from '../../src/runtime/misfire-grace.js';

const job: JobSnapshot = {
  ...DEFAULT_SETTINGS,
  ...NO_SCHEDULE_EXTRAS,
  id: '22222222-2222-4222-8222-222222222222', jobKey: 'actor', version: 1, target: 'log', payload: null,
  scheduleType: ScheduleType.RECURRING, cronExpression: '*/10 * * * * *', runAt: null, timezone: 'UTC', timeoutSeconds: null,
  status: JobStatus.ACTIVE, pausedUntil: null, catchUp: CatchUpPolicy.NONE, catchUpLimit: null, retry: null, overlap: OverlapPolicy.SKIP, maxConcurrentRuns: 1, jitterSeconds: 0, captureBytes: 4096, revision: 1, updatedAt: new Date('2026-06-01T12:00:00Z'),
};

describe('a job actor', () => {
  it('survives a slot whose hand-off throws: logs it and fires the next slot', () => {
    const clock = new ManualClock('2026-06-01T12:00:00.500Z');
    const fired: string[] = [];
    let throwOnce = true;
    const actor = new JobActor(job, clock, {
      fire: (_job, slot) => {
        if (throwOnce) {
          throwOnce = false;
          throw new Error('bug in the fire path');
        }
        fired.push(slot.toISOString().slice(11, 19));
      },
      late: () => {},
    }, createLogger(), { ledger: null, grace: new MisfireGrace(DEFAULTS.misfireGraceMs) });
    actor.start();
    clock.set('2026-06-01T12:00:10.000Z');
    expect(actor.nextAt?.toISOString()).toBe('2026-06-01T12:00:20.000Z');
    clock.set('2026-06-01T12:00:30.000Z');
    expect(fired).toEqual(['12:00:20', '12:00:30']);
    actor.stop();
  });
});
