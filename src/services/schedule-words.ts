import { ScheduleType } from '../domain/enums.js';
import type { ScheduledJob } from '../domain/job-schedule.js';
import { describeSchedule } from '../schedule/describe.js';
import { describeEvery } from '../schedule/interval.js';

/**
 * A job's schedule in words, one sentence per expression (several expressions: each its own), or
 * the interval with its anchor; empty for a one-time job. What `Job.schedules` and
 * `scheduleDescription` say, the CLI and the dashboard show.
 */
export function describeJobSchedules(job: ScheduledJob, now: Date): string[] {
  switch (job.scheduleType) {
    case ScheduleType.ONE_TIME:
    case ScheduleType.AFTER:
      return [];
    case ScheduleType.INTERVAL:
      return job.everyMs == null ? [] : [`${capitalised(describeEvery(job.everyMs))}, from ${job.anchorAt?.toISOString() ?? 'its creation'}`];
    default: {
      const expressions = job.cronExpressions.length > 0 ? job.cronExpressions : job.cronExpression ? [job.cronExpression] : [];
      const out: string[] = [];
      for (const expression of expressions) {
        try {
          out.push(describeSchedule(expression, job.timezone, now));
        } catch {
          // a definition that no longer parses (a zone gone from tzdata) still lists
        }
      }
      return out;
    }
  }
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
