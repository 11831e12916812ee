import { CronqlError } from '../errors.js';
import { CatchUpPolicy, ScheduleType } from '../domain/enums.js';
import { MAX_CATCH_UP_LIMIT } from '../runtime/missed-slots.js';
import { checkJson, checkText } from './stored-input.js';
import { canonicalTimezone, parseCronExpression } from '../schedule/index.js';
import type { TargetRegistry } from '../runtime/targets/registry.js';

/**
 * The validation rules of a job definition, in one place: createJob and createJobVersion both
 * pass through `validateDefinition`, so the GraphQL layer and the library API cannot disagree.
 */
export interface DefinitionInput {
  target: string;
  scheduleType: ScheduleType;
  cronExpression?: string | null;
  runAt?: Date | null;
  timezone?: string | null;
  payload?: unknown;
  timeoutSeconds?: number | null;
  /** What becomes of missed slots. @default NONE */
  catchUp?: CatchUpPolicy | null;
  /** ALL only: how many missed slots of one gap run at most. @default 10 */
  catchUpLimit?: number | null;
  /** Pause the job after this many failed runs in a row (1–1000); null: never. */
  pauseAfterFailures?: number | null;
}

export interface ValidDefinition {
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: Date | null;
  timezone: string;
  payload: unknown;
  timeoutSeconds: number | null;
  catchUp: CatchUpPolicy;
  catchUpLimit: number | null;
  pauseAfterFailures: number | null;
}

export interface RuleOptions {
  targets: TargetRegistry;
  maxPayloadBytes: number;
  now: Date;
}

/** A one-time job may be created this long after its runAt; it then fires at once. */
export const RUN_AT_GRACE_MS = 5 * 60_000;
export const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

export function validateKey(key: unknown): string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new CronqlError(
      'BAD_USER_INPUT',
      'key must be 1–200 characters of letters, digits and . _ : / -, starting with a letter or digit',
      { field: 'key' },
    );
  }
  return key;
}

export function validatePayload(payload: unknown, maxBytes: number): unknown {
  if (payload === undefined || payload === null) return null;
  checkJson('payload', payload);
  const size = Buffer.byteLength(JSON.stringify(payload) ?? '', 'utf8');
  if (size > maxBytes) {
    throw new CronqlError('PAYLOAD_TOO_LARGE', `payload is ${size} bytes; the limit is ${maxBytes} bytes`, {
      size,
      limit: maxBytes,
    });
  }
  return payload;
}

export function validateReason(reason: unknown): string {
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw new CronqlError('REASON_REQUIRED', 'pausing a job needs a non-blank reason');
  }
  if (reason.length > 2_000) throw new CronqlError('BAD_USER_INPUT', 'reason must be at most 2000 characters');
  checkText('reason', reason);
  return reason.trim();
}

export function validateDefinition(input: DefinitionInput, o: RuleOptions): ValidDefinition {
  if (!Object.values(ScheduleType).includes(input.scheduleType)) {
    throw new CronqlError('BAD_USER_INPUT', 'scheduleType must be ONE_TIME or RECURRING', { field: 'scheduleType' });
  }
  if (typeof input.target !== 'string' || !o.targets.has(input.target)) {
    throw new CronqlError('UNKNOWN_TARGET', `target "${String(input.target)}" is not in the registry`, {
      target: input.target,
      known: o.targets.list().map((t) => t.name),
    });
  }
  const timezone = canonicalTimezone(input.timezone ?? 'UTC');
  let cronExpression: string | null = null;
  let runAt: Date | null = null;
  if (input.scheduleType === ScheduleType.RECURRING) {
    if (input.cronExpression == null || input.cronExpression.trim() === '') {
      throw new CronqlError('INVALID_CRON_EXPRESSION', 'a RECURRING job needs a cronExpression', {
        field: 'cronExpression',
      });
    }
    if (input.runAt != null) {
      throw new CronqlError('BAD_USER_INPUT', 'runAt is for ONE_TIME jobs; a RECURRING job has a cronExpression', {
        field: 'runAt',
      });
    }
    cronExpression = parseCronExpression(input.cronExpression).source;
  } else {
    if (input.cronExpression != null) {
      throw new CronqlError('BAD_USER_INPUT', 'cronExpression is for RECURRING jobs; a ONE_TIME job has a runAt', {
        field: 'cronExpression',
      });
    }
    if (!(input.runAt instanceof Date) || Number.isNaN(input.runAt.getTime())) {
      throw new CronqlError('INVALID_RUN_AT', 'a ONE_TIME job needs a valid runAt', { field: 'runAt' });
    }
    if (input.runAt.getTime() < o.now.getTime() - RUN_AT_GRACE_MS) {
      throw new CronqlError(
        'INVALID_RUN_AT',
        `runAt ${input.runAt.toISOString()} is more than ${RUN_AT_GRACE_MS / 60_000} minutes in the past`,
        { field: 'runAt' },
      );
    }
    runAt = input.runAt;
  }
  const timeoutSeconds = input.timeoutSeconds ?? null;
  if (timeoutSeconds !== null && (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > MAX_TIMEOUT_SECONDS)) {
    throw new CronqlError('BAD_USER_INPUT', `timeoutSeconds must be an integer from 1 to ${MAX_TIMEOUT_SECONDS}`, {
      field: 'timeoutSeconds',
    });
  }
  const { catchUp, catchUpLimit } = validateCatchUp(input.catchUp, input.catchUpLimit);
  return {
    target: input.target,
    scheduleType: input.scheduleType,
    cronExpression,
    runAt,
    timezone,
    payload: validatePayload(input.payload, o.maxPayloadBytes),
    timeoutSeconds,
    catchUp,
    catchUpLimit,
    pauseAfterFailures: validatePauseAfterFailures(input.pauseAfterFailures),
  };
}

/** The catch-up policy: NONE, LATEST, or ALL with an optional limit (1 to MAX_CATCH_UP_LIMIT). */
export function validateCatchUp(policy: unknown, limit: unknown): { catchUp: CatchUpPolicy; catchUpLimit: number | null } {
  const catchUp = (policy ?? CatchUpPolicy.NONE) as CatchUpPolicy;
  if (!Object.values(CatchUpPolicy).includes(catchUp)) {
    throw new CronqlError('BAD_USER_INPUT', 'catchUp must be NONE, LATEST or ALL', { field: 'catchUp' });
  }
  if (limit === undefined || limit === null) return { catchUp, catchUpLimit: null };
  if (catchUp !== CatchUpPolicy.ALL) {
    throw new CronqlError('BAD_USER_INPUT', 'catchUpLimit is for catchUp: ALL', { field: 'catchUpLimit' });
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_CATCH_UP_LIMIT) {
    throw new CronqlError('BAD_USER_INPUT', `catchUpLimit must be an integer from 1 to ${MAX_CATCH_UP_LIMIT}`, { field: 'catchUpLimit' });
  }
  return { catchUp, catchUpLimit: limit };
}

export const MAX_PAUSE_AFTER_FAILURES = 1_000;

/** Auto-pause threshold: null (never) or an integer from 1 to MAX_PAUSE_AFTER_FAILURES. */
export function validatePauseAfterFailures(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAUSE_AFTER_FAILURES) {
    throw new CronqlError('BAD_USER_INPUT', `pauseAfterFailures must be an integer from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`, {
      field: 'pauseAfterFailures',
    });
  }
  return value;
}
