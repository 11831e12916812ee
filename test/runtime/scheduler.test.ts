import { describe, expect, it } from 'vitest';
import { CatchUpPolicy, JobStatus, MissedReason, OverlapPolicy, ScheduleType } from '../../src/domain/enums.js';
import { DEFAULT_SETTINGS, NO_SCHEDULE_EXTRAS, type JobSnapshot } from '../../src/domain/job.js';
import { createLogger } from '../../src/logger.js';
import { ManualClock, type Clock } from '../../src/runtime/clock.js';
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

describe('Scheduler.upsertAll: jobs read together are armed at one instant', () => {
  /**
   * A process slowed while it arms: each reading of the clock finds it a millisecond later, and
   * the batch starts 3 ms before a slot of the jobs' schedule. Alarms are only recorded.
   */
  const slowedClock = (start: string) => {
    let at = Date.parse(start);
    const alarms: Date[] = [];
    const clock: Clock = {
      now: () => new Date(at++),
      setAlarm: (when) => (alarms.push(when), { cancel() {} }),
      close() {},
      lateReason: () => MissedReason.STALL,
      later: (fn) => fn(),
    };
    return { clock, alarms };
  };

  it('a slot that comes due while they are armed is missed by none of them and next for each: one gap for all', () => {
    const { clock, alarms } = slowedClock('2026-06-01T00:00:09.997Z');
    const gaps: { jobKey: string; after: Date; until: Date }[] = [];
    const s = new Scheduler(clock, { fire() {}, late: (job, after, until) => gaps.push({ jobKey: job.jobKey, after, until }) }, createLogger(), new MisfireGrace(DEFAULTS.misfireGraceMs));
    s.start();
    // Three jobs every 2 s, last recorded at 00:00:00 (the process was down since).
    const jobs = ['a', 'b', 'c'].map((key, i) => ({
      job: { ...snapshot(JobStatus.ACTIVE, 1), id: `11111111-1111-4111-8111-11111111111${i}`, jobKey: key, cronExpression: '*/2 * * * * *' },
      ledger: new Date('2026-06-01T00:00:00Z'),
    }));
    s.upsertAll(jobs);
    // Each missed 00:00:02 … 00:00:08; 00:00:10, due as the arming went on, is each one's next slot.
    expect(gaps).toEqual(['a', 'b', 'c'].map((jobKey) => ({ jobKey, after: new Date('2026-06-01T00:00:00Z'), until: new Date('2026-06-01T00:00:08Z') })));
    expect(alarms).toEqual(Array(3).fill(new Date('2026-06-01T00:00:10Z')));
    expect(jobs.map(({ job }) => s.nextAt(job.id))).toEqual(Array(3).fill(new Date('2026-06-01T00:00:10Z')));
  });
});
