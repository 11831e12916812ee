import { ScheduleType } from './enums.js';
import type { JobSnapshot } from './job.js';
import type { JobSchedule, ScheduleBounds } from '../schedule/job-schedule.js';

/** The fields of a job that say when its slots are. */
export type ScheduledJob = Pick<JobSnapshot, 'scheduleType' | 'cronExpression' | 'cronExpressions' | 'runAt' | 'timezone' | 'everyMs' | 'anchorAt' | 'startAt' | 'endAt'>;

/**
 * A job's schedule and bounds for the slot math (schedule/job-schedule.ts): the one place a job
 * record becomes slots — the actor, the ledger, the job's next runs and every other reader of a
 * job's slots start here, so a new kind of schedule or bound is added once.
 */
export function jobScheduleOf(job: ScheduledJob): { schedule: JobSchedule; bounds: ScheduleBounds } {
  const bounds: ScheduleBounds = { startAt: job.startAt ?? null, endAt: job.endAt ?? null };
  switch (job.scheduleType) {
    case ScheduleType.ONE_TIME:
      return { schedule: { type: 'ONE_TIME', runAt: job.runAt! }, bounds: { startAt: null, endAt: null } };
    case ScheduleType.AFTER:
      return { schedule: { type: 'AFTER' }, bounds: { startAt: null, endAt: null } };
    case ScheduleType.INTERVAL:
      return { schedule: { type: 'INTERVAL', everyMs: job.everyMs!, anchorAt: job.anchorAt! }, bounds };
    default: {
      const expressions = job.cronExpressions?.length ? job.cronExpressions : [job.cronExpression!];
      return { schedule: { type: 'RECURRING', expressions, timezone: job.timezone }, bounds };
    }
  }
}
