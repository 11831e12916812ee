import { CronqlError } from '../errors.js';
import { BackoffKind, JobStatus, ScheduleType } from '../domain/enums.js';
import { RETRY_DEFAULTS, type JobDefinitionFields, type RetryPolicy } from '../domain/job.js';
import { JOB_SETTINGS, settingEntries, type JobSettingName, type JobSettings, type NameSetting, type NamesSetting, type TextSetting } from '../domain/job-fields.js';
import { validateAfterSettings, validateDependencies } from './dependency-rules.js';
import { validateLabels } from '../domain/label-selector.js';
import { shortestIntervalSeconds } from '../schedule/jitter.js';
import { checkJson, checkText } from './stored-input.js';
import { canonicalTimezone, nextSlot as nextCronSlot, parseCronExpression } from '../schedule/index.js';
import { lastSlot, nextSlot, type JobSchedule } from '../schedule/job-schedule.js';
import { parseEvery } from '../schedule/interval.js';
import { jobScheduleOf } from '../domain/job-schedule.js';
import type { TargetRegistry } from '../runtime/targets/registry.js';

/**
 * The validation rules of a job definition, in one place: createJob and createJobVersion both
 * pass through `validateDefinition`, so the GraphQL layer and the library API cannot disagree.
 * The per-setting rules come from the settings table (domain/job-fields.ts); the ones that tie a
 * setting to the schedule or to the server's options are here.
 */
/** A setting as given: null or omitted means its default (the retry policy: its own input shape). */
export type SettingsInput = { [K in Exclude<JobSettingName, 'retry'>]?: JobSettings[K] | null } & { retry?: RetryPolicyInput | null };

export interface DefinitionInput extends SettingsInput {
  target: string;
  scheduleType: ScheduleType;
  cronExpression?: string | null;
  /** RECURRING: the whole list (its first is `cronExpression`); give one or the other. */
  cronExpressions?: string[] | null;
  runAt?: Date | null;
  timezone?: string | null;
  /** INTERVAL: "45m", "1h30m", "90s", "PT45M". */
  every?: string | null;
  /** INTERVAL: the first slot (default: now, on its second). */
  anchorAt?: Date | null;
  startAt?: Date | null;
  endAt?: Date | null;
}

/** The most expressions one job may have. */
export const MAX_CRON_EXPRESSIONS = 20;

/** A retry policy as given (defaults: EXPONENTIAL, 5 s, no cap, every retryable code). */
export interface RetryPolicyInput {
  maxAttempts: number;
  backoff?: BackoffKind | null;
  delaySeconds?: number | null;
  maxDelaySeconds?: number | null;
  retryOn?: string[] | null;
}

export interface ValidDefinition extends JobDefinitionFields {
  /** A RECURRING job's last slot ever (its expression has a year field), null when it has none. */
  finalSlotAt: Date | null;
}

export interface RuleOptions {
  targets: TargetRegistry;
  maxPayloadBytes: number;
  now: Date;
}

/** A one-time job may be created this long after its runAt; it then fires at once. */
export const RUN_AT_GRACE_MS = 5 * 60_000;
/** The settings' bounds (domain/job-fields.ts), beside the rules' own. */
export { MAX_CONCURRENT_RUNS, MAX_JITTER_SECONDS, MAX_PAUSE_AFTER_FAILURES, MAX_TIMEOUT_SECONDS } from '../domain/job-fields.js';
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

export function validateReason(reason: unknown, action = 'pausing a job'): string {
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw new CronqlError('REASON_REQUIRED', `${action} needs a non-blank reason`);
  }
  if (reason.length > 2_000) throw new CronqlError('BAD_USER_INPUT', 'reason must be at most 2000 characters');
  checkText('reason', reason);
  return reason.trim();
}

/**
 * What a resume does, by hand (resumeJob) or at the end of a pause (pauseJob's `until`): the job
 * is ACTIVE again, with no pause, and counts failures afresh (it may have been auto-paused).
 */
export const RESUMED = { status: JobStatus.ACTIVE, pauseReason: null, pausedUntil: null, consecutiveFailures: 0 } as const;

/** The end of a pause: none, or an instant after `now`. */
export function validatePauseEnd(until: unknown, now: Date): Date | null {
  if (until == null) return null;
  if (!(until instanceof Date) || Number.isNaN(until.getTime())) {
    throw new CronqlError('BAD_USER_INPUT', 'until must be an instant (ISO 8601)', { field: 'until' });
  }
  if (until.getTime() <= now.getTime()) {
    throw new CronqlError('BAD_USER_INPUT', `until must be in the future (it is ${until.toISOString()}; now is ${now.toISOString()})`, { field: 'until' });
  }
  return until;
}

/** The most slots one skipNextRuns may skip. */
export const MAX_SKIP_COUNT = 1_000;

/** How many next slots to skip: 0 (cancel an earlier request) to MAX_SKIP_COUNT. */
export function validateSkipCount(count: unknown): number {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_SKIP_COUNT) {
    throw new CronqlError('BAD_USER_INPUT', `count must be a whole number from 0 to ${MAX_SKIP_COUNT} (got ${String(count)})`, { field: 'count', max: MAX_SKIP_COUNT });
  }
  return count;
}

export function validateDefinition(input: DefinitionInput, o: RuleOptions): ValidDefinition {
  if (!Object.values(ScheduleType).includes(input.scheduleType)) {
    throw new CronqlError('BAD_USER_INPUT', `scheduleType must be ${oneOf(Object.values(ScheduleType))}`, { field: 'scheduleType' });
  }
  if (typeof input.target !== 'string' || !o.targets.has(input.target)) {
    throw new CronqlError('UNKNOWN_TARGET', `target "${String(input.target)}" is not in the registry`, {
      target: input.target,
      known: o.targets.list().map((t) => t.name),
    });
  }
  const timezone = canonicalTimezone(input.timezone ?? 'UTC');
  const schedule = validateSchedule(input, timezone, o.now);
  const settings = validateSettings(input);
  if (input.scheduleType === ScheduleType.ONE_TIME && settings.maxRuns !== null) {
    throw scheduleError('maxRuns', 'maxRuns is for RECURRING and INTERVAL jobs (a ONE_TIME job runs once)');
  }
  if (input.scheduleType === ScheduleType.ONE_TIME && settings.calendars.length > 0) {
    // A one-time job's one slot is its runAt: a calendar would only ever cancel it.
    throw new CronqlError('BAD_USER_INPUT', 'calendars are for RECURRING and INTERVAL jobs; a ONE_TIME job runs at its runAt', { field: 'calendars' });
  }
  validateAfterSettings(input.scheduleType, settings);
  const { schedule: math, bounds } = jobScheduleOf(schedule);
  return {
    target: input.target,
    ...schedule,
    finalSlotAt: input.scheduleType === ScheduleType.ONE_TIME || input.scheduleType === ScheduleType.AFTER ? null : lastSlot(math, bounds),
    ...settings,
    payload: validatePayload(settings.payload, o.maxPayloadBytes),
    jitterSeconds: validateJitter(settings.jitterSeconds, math, o.now),
  };
}

type ValidSchedule = Pick<ValidDefinition, 'scheduleType' | 'cronExpression' | 'cronExpressions' | 'runAt' | 'timezone' | 'everyMs' | 'anchorAt' | 'startAt' | 'endAt'>;

const scheduleError = (field: string, message: string, details: Record<string, unknown> = {}) =>
  new CronqlError('INVALID_SCHEDULE', message, { field, ...details });

/** A DateTime input: a valid Date, or null when omitted. */
function instantOf(field: string, value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw scheduleError(field, `${field} must be a valid DateTime`);
  return value;
}

/**
 * The schedule of a definition, by its type: the fields of the other types are refused rather than
 * ignored (a RECURRING job given `every` is a mistake to say, not to drop), bounds are for the
 * schedules that repeat, and a schedule with no slot ahead inside its bounds is refused (it could
 * never run).
 */
function validateSchedule(input: DefinitionInput, timezone: string, now: Date): ValidSchedule {
  const type = input.scheduleType;
  const given = (name: keyof DefinitionInput) => input[name] !== undefined && input[name] !== null;
  const startAt = instantOf('startAt', input.startAt);
  const endAt = instantOf('endAt', input.endAt);
  if (type === ScheduleType.ONE_TIME && (startAt || endAt)) {
    throw scheduleError(startAt ? 'startAt' : 'endAt', 'startAt and endAt are for RECURRING and INTERVAL jobs; a ONE_TIME job has its runAt');
  }
  if (type === ScheduleType.AFTER && (startAt || endAt)) {
    throw scheduleError(startAt ? 'startAt' : 'endAt', 'startAt and endAt are for RECURRING and INTERVAL jobs; an AFTER job runs when its upstreams end');
  }
  if (startAt && endAt && startAt.getTime() > endAt.getTime()) {
    throw scheduleError('endAt', `endAt ${endAt.toISOString()} is before startAt ${startAt.toISOString()}`);
  }
  if (type !== ScheduleType.INTERVAL) {
    for (const field of ['every', 'anchorAt'] as const) {
      if (given(field)) throw scheduleError(field, `${field} is for INTERVAL jobs`);
    }
  }
  if (type !== ScheduleType.RECURRING && given('cronExpressions')) {
    throw scheduleError('cronExpressions', 'cronExpressions is for RECURRING jobs');
  }
  const base = { scheduleType: type, timezone, startAt, endAt, cronExpression: null, cronExpressions: [], runAt: null, everyMs: null, anchorAt: null };
  let valid: ValidSchedule;
  if (type === ScheduleType.RECURRING) {
    if (input.runAt != null) {
      throw new CronqlError('BAD_USER_INPUT', 'runAt is for ONE_TIME jobs; a RECURRING job has a cronExpression', { field: 'runAt' });
    }
    const expressions = expressionsOf(input);
    const parsed = expressions.map((e) => parseCronExpression(e));
    // Only a year field can leave an expression without a slot ahead (`0 0 0 1 1 * 2020`): such a
    // job could never run, refused like an expression that can never fire (`0 0 30 2 *`).
    if (parsed.every((cron) => cron.years !== null && nextCronSlot(cron, timezone, now) === null)) {
      const expression = expressions.join(' | ');
      throw new CronqlError('INVALID_CRON_EXPRESSION', `Invalid cron expression "${expression}": its years are past, it has no slot after ${now.toISOString()}`, {
        expression,
      });
    }
    const sources = parsed.map((cron) => cron.source);
    valid = { ...base, cronExpression: sources[0], cronExpressions: sources };
  } else if (type === ScheduleType.INTERVAL) {
    if (given('cronExpression')) throw scheduleError('cronExpression', 'cronExpression is for RECURRING jobs; an INTERVAL job has `every`');
    if (given('runAt')) throw scheduleError('runAt', 'runAt is for ONE_TIME jobs; an INTERVAL job has `every`');
    if (!given('every')) throw scheduleError('every', 'an INTERVAL job needs `every` ("45m", "1h30m", "90s" or "PT45M")');
    const everyMs = parseEvery(input.every);
    const anchorAt = instantOf('anchorAt', input.anchorAt) ?? new Date(Math.floor(now.getTime() / 1000) * 1000);
    if (anchorAt.getTime() % 1000 !== 0) {
      throw scheduleError('anchorAt', `anchorAt ${anchorAt.toISOString()} must be on a whole second (slots are whole seconds)`);
    }
    valid = { ...base, everyMs, anchorAt };
  } else if (type === ScheduleType.AFTER) {
    // No clock: the fields of the clocked schedules are mistakes to say, not to drop.
    for (const field of ['cronExpression', 'runAt'] as const) {
      if (given(field)) throw scheduleError(field, `${field} is not for AFTER jobs: they run when their upstreams end (\`after\`)`);
    }
    return base;
  } else {
    if (input.cronExpression != null) {
      throw new CronqlError('BAD_USER_INPUT', 'cronExpression is for RECURRING jobs; a ONE_TIME job has a runAt', { field: 'cronExpression' });
    }
    if (!(input.runAt instanceof Date) || Number.isNaN(input.runAt.getTime())) {
      throw new CronqlError('INVALID_RUN_AT', 'a ONE_TIME job needs a valid runAt', { field: 'runAt' });
    }
    if (input.runAt.getTime() < now.getTime() - RUN_AT_GRACE_MS) {
      throw new CronqlError('INVALID_RUN_AT', `runAt ${input.runAt.toISOString()} is more than ${RUN_AT_GRACE_MS / 60_000} minutes in the past`, {
        field: 'runAt',
      });
    }
    return { ...base, runAt: input.runAt };
  }
  const { schedule, bounds } = jobScheduleOf(valid);
  if (nextSlot(schedule, bounds, now) === null) {
    throw scheduleError(endAt ? 'endAt' : 'startAt', `the schedule has no slot after ${now.toISOString()}${endAt ? ` up to endAt ${endAt.toISOString()}` : ''}: the job could never run`);
  }
  return valid;
}

/** A RECURRING definition's expressions: `cronExpressions`, or `cronExpression` alone; the first of the list is `cronExpression`. */
function expressionsOf(input: DefinitionInput): string[] {
  const one = input.cronExpression;
  const list = input.cronExpressions;
  if (list === undefined || list === null) {
    if (one == null || (typeof one === 'string' && one.trim() === '')) {
      throw new CronqlError('INVALID_CRON_EXPRESSION', 'a RECURRING job needs a cronExpression', { field: 'cronExpression' });
    }
    return [one];
  }
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_CRON_EXPRESSIONS) {
    throw scheduleError('cronExpressions', `cronExpressions must list 1 to ${MAX_CRON_EXPRESSIONS} expressions`);
  }
  if (one != null && one !== list[0]) {
    throw scheduleError('cronExpressions', `cronExpressions is the whole list and its first is cronExpression: "${String(one)}" is not "${String(list[0])}" (give one or the other)`);
  }
  if (new Set(list).size !== list.length) throw scheduleError('cronExpressions', 'cronExpressions lists an expression twice');
  return list;
}

/**
 * Every setting by its entry in the settings table (domain/job-fields.ts): an enum among its
 * values, an integer within its bounds, a setting tied to another one refused without it, null or
 * omitted as the default. The rules that need more than the value follow (retry, payload, jitter).
 */
export function validateSettings(input: SettingsInput): JobSettings {
  const valid: Record<string, unknown> = {};
  for (const [name, spec] of settingEntries()) {
    const value = (input as Record<string, unknown>)[name];
    if (spec.kind === 'retry') valid[name] = validateRetry(value as RetryPolicyInput | null | undefined);
    else if (spec.kind === 'names') valid[name] = validateNames(name, spec, value);
    else if (spec.kind === 'name') valid[name] = validateName(name, spec, value);
    else if (spec.kind === 'dependencies') valid[name] = validateDependencies(name, spec, value);
    else if (spec.kind === 'labels') valid[name] = value === undefined || value === null ? {} : validateLabels(value);
    else if (spec.kind === 'text') valid[name] = validateText(name, spec, value);
    else if (value === undefined || value === null) valid[name] = spec.default;
    else if (spec.kind === 'enum') {
      if (!Object.values(spec.values).includes(value as string)) {
        throw new CronqlError(spec.code, `${name} must be ${oneOf(Object.values(spec.values))}`, { field: name });
      }
      valid[name] = value;
    } else if (spec.kind === 'int') {
      if (!isInt(value, spec.min, spec.max)) {
        throw new CronqlError(spec.code, `${name} must be an integer from ${spec.min} to ${spec.max}${spec.nullable ? ', or null' : ''}`, { field: name });
      }
      valid[name] = value;
    } else valid[name] = value;
  }
  for (const [name, spec] of settingEntries()) {
    if (spec.kind !== 'int' || !spec.only || valid[name] === spec.default) continue;
    const { setting, value, why } = spec.only;
    if (valid[setting] !== value) {
      throw new CronqlError(spec.code, `${name} is for ${setting}: ${value}${why ? ` (${why})` : ''}`, { field: name });
    }
  }
  return valid as JobSettings;
}

/**
 * A list of names (calendars): null or omitted is the empty list; each name once, in the order
 * given. Whether each exists is checked at the write, by the database (`spec.unknownCode`).
 */
function validateNames(name: string, spec: NamesSetting, value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > spec.max || !value.every((v) => typeof v === 'string' && spec.pattern.test(v))) {
    throw new CronqlError(spec.code, `${name} must be a list of at most ${spec.max} ${spec.of} names (letters, digits and . _ -, at most 64 characters each)`, { field: name });
  }
  return [...new Set(value as string[])];
}

/** The name of one thing (a concurrency pool), or null. Whether it exists is checked at the write, by the database. */
function validateName(name: string, spec: NameSetting, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !spec.pattern.test(value)) {
    throw new CronqlError(spec.code, `${name} must be a ${spec.of} name (letters, digits and . _ -, at most 64 characters), or null`, { field: name });
  }
  return value;
}

/** A free text: null, omitted or blank is none; at most `spec.max` characters, storable (stored-input.ts). */
function validateText(name: string, spec: TextSetting, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new CronqlError(spec.code, `${name} must be a string`, { field: name });
  if (value.length > spec.max) throw new CronqlError(spec.code, `${name} is at most ${spec.max} characters (got ${value.length})`, { field: name, max: spec.max });
  checkText(name, value);
  return value.trim() === '' ? null : value;
}

const oneOf = (values: string[]) => `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;

/**
 * The settings of a new version: those given, the others copied from the version it replaces —
 * except a setting tied to another one (catchUpLimit to catchUp: ALL), which is dropped when that
 * one changes, unless given. For an enum setting null also means "keep".
 */
export function settingsOfNewVersion(input: SettingsInput, old: JobSettings): SettingsInput {
  const given = (name: JobSettingName) => {
    const value = (input as Record<string, unknown>)[name];
    return JOB_SETTINGS[name].kind === 'enum' ? value != null : value !== undefined;
  };
  const changed = (name: JobSettingName) => given(name) && (input as Record<string, unknown>)[name] !== old[name];
  const settings: Record<string, unknown> = {};
  for (const [name, spec] of settingEntries()) {
    if (given(name)) settings[name] = (input as Record<string, unknown>)[name];
    else if (spec.kind === 'int' && spec.only && changed(spec.only.setting)) settings[name] = null;
    else settings[name] = old[name];
  }
  return settings as SettingsInput;
}

export const MAX_ATTEMPTS = 10;
/** The longest delay and cap of a retry's backoff: a day. */
export const MAX_RETRY_DELAY_SECONDS = 86_400;
const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

const policyError = (field: string, message: string) => new CronqlError('INVALID_POLICY', message, { field });
const isInt = (v: unknown, min: number, max: number): v is number => typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

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

/**
 * The jitter window (within its bounds already): for a recurring or interval job at most its
 * shortest interval between two slots (a wider window would let a slot start after the next one).
 */
export function validateJitter(value: number, schedule: JobSchedule, now: Date): number {
  if (value > 0 && schedule.type !== 'ONE_TIME') {
    const shortest = shortestIntervalSeconds(schedule, now);
    if (shortest !== null && value > shortest) {
      throw new CronqlError('INVALID_POLICY', `jitterSeconds ${value} is longer than the schedule's shortest interval (${shortest} s)`, {
        field: 'jitterSeconds',
        shortestIntervalSeconds: shortest,
      });
    }
  }
  return value;
}

