import { CronqlError } from '../errors.js';
import { BackoffKind, CatchUpPolicy, OverlapPolicy, ScheduleType } from '../domain/enums.js';
import { DEFAULT_CAPTURE_BYTES, MAX_CAPTURE_BYTES, RETRY_DEFAULTS, type RetryPolicy } from '../domain/job.js';
import { shortestIntervalSeconds } from '../schedule/jitter.js';
import { MAX_CATCH_UP_LIMIT } from '../runtime/missed-slots.js';
import { checkJson, checkText } from './stored-input.js';
import { canonicalTimezone, lastSlot, nextSlot, parseCronExpression } from '../schedule/index.js';
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
  /** Null or omitted: no retry. */
  retry?: RetryPolicyInput | null;
  /** @default SKIP */
  overlap?: OverlapPolicy | null;
  /** ALLOW only. @default 1 */
  maxConcurrentRuns?: number | null;
  /** @default 0 */
  jitterSeconds?: number | null;
  /** `http` output: bytes of the response body kept. @default 4096 */
  captureBytes?: number | null;
}

/** A retry policy as given (defaults: EXPONENTIAL, 5 s, no cap, every retryable code). */
export interface RetryPolicyInput {
  maxAttempts: number;
  backoff?: BackoffKind | null;
  delaySeconds?: number | null;
  maxDelaySeconds?: number | null;
  retryOn?: string[] | null;
}

export interface ValidDefinition {
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string | null;
  runAt: Date | null;
  /** A RECURRING job's last slot ever (its expression has a year field), null when it has none. */
  finalSlotAt: Date | null;
  timezone: string;
  payload: unknown;
  timeoutSeconds: number | null;
  catchUp: CatchUpPolicy;
  catchUpLimit: number | null;
  pauseAfterFailures: number | null;
  retry: RetryPolicy | null;
  overlap: OverlapPolicy;
  maxConcurrentRuns: number;
  jitterSeconds: number;
  captureBytes: number;
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
  let finalSlotAt: Date | null = null;
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
    const cron = parseCronExpression(input.cronExpression);
    cronExpression = cron.source;
    // Only a year field can leave an expression without a slot ahead (`0 0 0 1 1 * 2020`): such a
    // job could never run, refused like an expression that can never fire (`0 0 30 2 *`).
    if (cron.years !== null && nextSlot(cron, timezone, o.now) === null) {
      throw new CronqlError('INVALID_CRON_EXPRESSION', `Invalid cron expression "${cronExpression}": its years are past, it has no slot after ${o.now.toISOString()}`, {
        expression: cronExpression,
      });
    }
    finalSlotAt = lastSlot(cron, timezone);
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
    finalSlotAt,
    timezone,
    payload: validatePayload(input.payload, o.maxPayloadBytes),
    timeoutSeconds,
    catchUp,
    catchUpLimit,
    pauseAfterFailures: validatePauseAfterFailures(input.pauseAfterFailures),
    retry: validateRetry(input.retry),
    ...validateOverlap(input.overlap, input.maxConcurrentRuns),
    jitterSeconds: validateJitter(input.jitterSeconds, cronExpression, timezone, o.now),
    captureBytes: validateCaptureBytes(input.captureBytes),
  };
}

export const MAX_ATTEMPTS = 10;
/** The longest delay and cap of a retry's backoff: a day. */
export const MAX_RETRY_DELAY_SECONDS = 86_400;
export const MAX_CONCURRENT_RUNS = 100;
/** The widest jitter window, whatever the schedule: a day. */
export const MAX_JITTER_SECONDS = 86_400;
const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

const policyError = (field: string, message: string) => new CronqlError('INVALID_POLICY', message, { field });
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** Bytes of an `http` response kept: 0 to 1 MiB (null or omitted: 4 KiB). */
export function validateCaptureBytes(value: unknown): number {
  if (value === undefined || value === null) return DEFAULT_CAPTURE_BYTES;
  if (!isInt(value, 0, MAX_CAPTURE_BYTES)) throw policyError('captureBytes', `captureBytes must be an integer from 0 to ${MAX_CAPTURE_BYTES}`);
  return value;
}

/** The retry policy: null (no retry), or attempts 1–10 with a backoff of whole seconds. */
export function validateRetry(input: RetryPolicyInput | null | undefined): RetryPolicy | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== 'object') throw policyError('retry', 'retry must be an object');
  const { maxAttempts, backoff, delaySeconds, maxDelaySeconds = null, retryOn = null } = input;
  if (!isInt(maxAttempts, 1, MAX_ATTEMPTS)) {
    throw policyError('retry.maxAttempts', `retry.maxAttempts must be an integer from 1 to ${MAX_ATTEMPTS} (the first attempt included)`);
  }
  const kind = backoff ?? RETRY_DEFAULTS.backoff;
  if (!Object.values(BackoffKind).includes(kind)) throw policyError('retry.backoff', 'retry.backoff must be FIXED, LINEAR or EXPONENTIAL');
  const delay = delaySeconds ?? RETRY_DEFAULTS.delaySeconds;
  if (!isInt(delay, 0, MAX_RETRY_DELAY_SECONDS)) {
    throw policyError('retry.delaySeconds', `retry.delaySeconds must be an integer from 0 to ${MAX_RETRY_DELAY_SECONDS}`);
  }
  if (maxDelaySeconds !== null && !isInt(maxDelaySeconds, 0, MAX_RETRY_DELAY_SECONDS)) {
    throw policyError('retry.maxDelaySeconds', `retry.maxDelaySeconds must be an integer from 0 to ${MAX_RETRY_DELAY_SECONDS}, or null`);
  }
  if (maxDelaySeconds !== null && maxDelaySeconds < delay) {
    throw policyError('retry.maxDelaySeconds', 'retry.maxDelaySeconds must not be below retry.delaySeconds');
  }
  let codes: string[] | null = null;
  if (retryOn !== null) {
    if (!Array.isArray(retryOn) || retryOn.length === 0 || retryOn.length > 50 || !retryOn.every((c) => typeof c === 'string' && FAILURE_CODE.test(c))) {
      throw policyError('retry.retryOn', 'retry.retryOn must be 1 to 50 failure codes (A-Z, 0-9, _; at most 64 characters each), or null');
    }
    codes = [...new Set(retryOn)];
  }
  return { maxAttempts, backoff: kind, delaySeconds: delay, maxDelaySeconds, retryOn: codes };
}

/** The overlap policy, and its concurrency (ALLOW only: 1–100; the others run one at a time). */
export function validateOverlap(policy: unknown, maxConcurrentRuns: unknown): { overlap: OverlapPolicy; maxConcurrentRuns: number } {
  const overlap = (policy ?? OverlapPolicy.SKIP) as OverlapPolicy;
  if (!Object.values(OverlapPolicy).includes(overlap)) {
    throw policyError('overlap', 'overlap must be SKIP, BUFFER_ONE, CANCEL_PREVIOUS or ALLOW');
  }
  if (maxConcurrentRuns === undefined || maxConcurrentRuns === null) return { overlap, maxConcurrentRuns: 1 };
  if (!isInt(maxConcurrentRuns, 1, MAX_CONCURRENT_RUNS)) {
    throw policyError('maxConcurrentRuns', `maxConcurrentRuns must be an integer from 1 to ${MAX_CONCURRENT_RUNS}`);
  }
  if (overlap !== OverlapPolicy.ALLOW && maxConcurrentRuns !== 1) {
    throw policyError('maxConcurrentRuns', 'maxConcurrentRuns is for overlap: ALLOW (the other policies run one at a time)');
  }
  return { overlap, maxConcurrentRuns };
}

/**
 * The jitter window: 0 to a day, and for a recurring job at most its shortest interval between
 * two slots (a wider window would let a slot start after the next one).
 */
export function validateJitter(value: unknown, cronExpression: string | null, timezone: string, now: Date): number {
  if (value === undefined || value === null) return 0;
  if (!isInt(value, 0, MAX_JITTER_SECONDS)) {
    throw policyError('jitterSeconds', `jitterSeconds must be an integer from 0 to ${MAX_JITTER_SECONDS}`);
  }
  if (value > 0 && cronExpression !== null) {
    const shortest = shortestIntervalSeconds(cronExpression, timezone, now);
    if (shortest !== null && value > shortest) {
      throw new CronqlError('INVALID_POLICY', `jitterSeconds ${value} is longer than the schedule's shortest interval (${shortest} s)`, {
        field: 'jitterSeconds',
        shortestIntervalSeconds: shortest,
      });
    }
  }
  return value;
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
