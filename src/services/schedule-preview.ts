import { CronqlError } from '../errors.js';
import type { JobSchedule } from '../schedule/job-schedule.js';
import { parseEvery } from '../schedule/interval.js';
import { canonicalTimezone, parseCronExpression } from '../schedule/index.js';
import { MAX_CRON_EXPRESSIONS } from './job-rules.js';

/** What `previewSchedule` is given: one expression, several, or an interval. */
export interface PreviewInput {
  cronExpression?: string | null;
  cronExpressions?: string[] | null;
  every?: string | null;
  anchorAt?: Date | null;
  timezone?: string | null;
}

/**
 * The schedule a preview shows, checked as a job's would be: exactly one of `cronExpression`,
 * `cronExpressions` (1–20, their union) or `every` (with `anchorAt`, default `now` on its second);
 * anything else is INVALID_SCHEDULE, a bad expression INVALID_CRON_EXPRESSION.
 */
export function previewedSchedule(input: PreviewInput, now: Date): JobSchedule {
  const given = (['cronExpression', 'cronExpressions', 'every'] as const).filter((k) => input[k] != null);
  if (given.length !== 1) {
    throw new CronqlError('INVALID_SCHEDULE', `give one of cronExpression, cronExpressions or every${given.length ? ` (got ${given.join(' and ')})` : ''}`, { field: given[1] ?? 'cronExpression' });
  }
  if (input.anchorAt != null && input.every == null) throw new CronqlError('INVALID_SCHEDULE', 'anchorAt goes with every', { field: 'anchorAt' });
  const timezone = canonicalTimezone(input.timezone ?? 'UTC');
  if (input.every != null) {
    const anchorAt = input.anchorAt ?? new Date(Math.floor(now.getTime() / 1000) * 1000);
    if (anchorAt.getTime() % 1000 !== 0) throw new CronqlError('INVALID_SCHEDULE', 'anchorAt must be on a whole second', { field: 'anchorAt' });
    return { type: 'INTERVAL', everyMs: parseEvery(input.every), anchorAt };
  }
  const list = input.cronExpressions ?? [input.cronExpression!];
  if (list.length === 0 || list.length > MAX_CRON_EXPRESSIONS) {
    throw new CronqlError('INVALID_SCHEDULE', `cronExpressions must list 1 to ${MAX_CRON_EXPRESSIONS} expressions`, { field: 'cronExpressions' });
  }
  return { type: 'RECURRING', expressions: list.map((e) => parseCronExpression(e).source), timezone };
}
