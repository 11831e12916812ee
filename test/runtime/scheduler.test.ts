import { describe, expect, it } from 'vitest';
import { CatchUpPolicy, JobStatus, OverlapPolicy, ScheduleType } from '../../src/domain/enums.js';
import { DEFAULT_SETTINGS, NO_SCHEDULE_EXTRAS, type JobSnapshot } from '../../src/domain/job.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock } from '../../src/runtime/clock.js';
import { Scheduler } from '../../src/runtime/scheduler.js';
import { DEFAULTS } from '../../src/config.js';
import { MisfireGrace } from '../../src/runtime/misfire-grace.js';

const snapshot = (status: JobStatus, revision: number, updatedAt = '2026-06-01T00:00:00Z'): JobSnapshot => ({
  ...DEFAULT_SETTINGS,
  ...NO_SCHEDULE_EXTRAS,
  id: '11111111-1111-4111-8111-111111111111',
  jobKey: 'k',
  version: 1,
  target: 'log',
  payload: null,
  scheduleType: ScheduleType.RECURRING,
  retry: null,
  overlap: OverlapPolicy.SKIP,
  maxConcurrentRuns: 1,
  jitterSeconds: 0,
  captureBytes: 4096,
  cronExpression: '* * * * *',
  runAt: null,
  timezone: 'UTC',
  pausedUntil: null,
  timeoutSeconds: null,
  status,
  catchUp: CatchUpPolicy.NONE,
  catchUpLimit: null,
  revision,
  updatedAt: new Date(updatedAt),
});

describe('Scheduler.upsert with snapshots out of order', () => {
  const clock = new ManualClock('2026-06-01T00:00:00Z');
  const make = () => {
    const scheduler = new Scheduler(clock, { fire() {}, late() {} }, createLogger(), new MisfireGrace(DEFAULTS.misfireGraceMs));
    scheduler.start();
    return scheduler;
  };

  it('an older PAUSED snapshot does not disarm a newer ACTIVE job', () => {
    const s = make();
    s.upsert(snapshot(JobStatus.ACTIVE, 3)); // resumed
    s.upsert(snapshot(JobStatus.PAUSED, 2)); // the pause before, late
    expect(s.jobIds()).toHaveLength(1);
  });

  it('an older ACTIVE snapshot does not re-arm a newer PAUSED job', () => {
    const s = make();
    s.upsert(snapshot(JobStatus.PAUSED, 2));
    s.upsert(snapshot(JobStatus.ACTIVE, 1));
    expect(s.jobIds()).toEqual([]);
  });

  it('orders by revision, not by the clocks of the instances that made the changes', () => {
    const s = make();
    s.upsert(snapshot(JobStatus.ACTIVE, 1, '2026-06-01T00:00:00Z'));
    s.upsert(snapshot(JobStatus.PAUSED, 2, '2026-06-01T00:00:02Z')); // paused by a clock 2 s fast
    s.upsert(snapshot(JobStatus.ACTIVE, 3, '2026-06-01T00:00:01Z')); // resumed later, earlier clock
    expect(s.jobIds()).toHaveLength(1);
  });

  it('does nothing before start() and after stop(), and a stopped scheduler stays stopped', () => {
    const s = new Scheduler(clock, { fire() {}, late() {} }, createLogger(), new MisfireGrace(DEFAULTS.misfireGraceMs));
    s.upsert(snapshot(JobStatus.ACTIVE, 1));
    expect(s.jobIds()).toEqual([]);
    s.start();
    s.upsert(snapshot(JobStatus.ACTIVE, 1));
    expect(s.jobIds()).toHaveLength(1);
    s.stop();
    expect(s.jobIds()).toEqual([]);
    s.start();
    s.upsert(snapshot(JobStatus.ACTIVE, 2));
    expect(s.jobIds()).toEqual([]);
  });
});
