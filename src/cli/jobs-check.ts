import { CronqlError } from '../errors.js';
import type { TargetRegistry } from '../runtime/targets/registry.js';
import { validateDefinition, validateKey, type DefinitionInput } from '../services/job-rules.js';
import { CliError } from './client.js';
import { validateCalendarRules } from '../schedule/calendar.js';
import { calendarDefinition, fileField, jobProblem, specDefinition, type JobsFile, type JobSpec } from './jobs-file.js';

/**
 * Every job of a file checked against the server's own rules (services/job-rules.ts, the code
 * createJob and createJobVersion run) before anything is changed, so that one bad job of a file
 * leaves every job as it was. The targets are the server's (its `targets` query).
 *
 * Two rules depend on the server and are only checked there, during apply: the payload size
 * (CRONQL_MAX_PAYLOAD_BYTES is the server's setting) and a key created meanwhile by someone else.
 */
export function checkJobs(path: string, file: JobsFile, targetNames: readonly string[], now: Date): CliError[] {
  // The rules only ask the registry which names exist.
  const targets = {
    has: (name: string) => targetNames.includes(name),
    list: () => targetNames.map((name) => ({ name, description: null })),
  } as Pick<TargetRegistry, 'has' | 'list'> as TargetRegistry;
  const problems: CliError[] = [];
  for (const cal of file.calendars ?? []) {
    try {
      const d = calendarDefinition(cal);
      validateCalendarRules({ ...d, windows: d.windows.map((w) => ({ ...w, from: new Date(w.from), to: new Date(w.to) })) });
    } catch (err) {
      const field = err instanceof CronqlError && typeof err.details?.field === 'string' ? err.details.field : undefined;
      problems.push(new CliError(err instanceof CronqlError ? err.code : 'BAD_FILE', `${path}: calendar "${cal.name}"${field ? `, field "${field}"` : ''}: ${(err as Error).message}`));
    }
  }
  for (const spec of file.jobs) {
    try {
      validateKey(spec.key);
      validateDefinition(definitionInput(spec), { targets, maxPayloadBytes: Number.POSITIVE_INFINITY, now });
    } catch (err) {
      problems.push(jobError(path, spec.key, err));
    }
  }
  return problems;
}

/**
 * A job of a file as apply sends it (the createJob / createJobVersion input, without the key).
 * maxConcurrentRuns goes only with overlap ALLOW, where it means something.
 */
export function jobInput(spec: JobSpec) {
  // A definition's fields are the inputs' fields (domain/job-fields.ts for the settings).
  const d = specDefinition(spec);
  return { ...d, maxConcurrentRuns: d.overlap === 'ALLOW' ? d.maxConcurrentRuns : null };
}

/** What apply sends, as the rules take it (the API turns the instants into dates first). */
function definitionInput(spec: JobSpec): DefinitionInput {
  const input = jobInput(spec);
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return { ...input, runAt: date(input.runAt), anchorAt: date(input.anchorAt), startAt: date(input.startAt), endAt: date(input.endAt) } as DefinitionInput;
}

/** Codes whose errors carry no field, and the field they are about. */
const FIELD_OF_CODE: Record<string, string> = {
  INVALID_CRON_EXPRESSION: 'cron',
  INVALID_TIMEZONE: 'timezone',
  INVALID_RUN_AT: 'runAt',
  INVALID_SCHEDULE: 'cron',
  UNKNOWN_TARGET: 'target',
  PAYLOAD_TOO_LARGE: 'payload',
  UNKNOWN_SECRET: 'payload',
  KEY_EXISTS: 'key',
  UNKNOWN_JOB: 'after',
  DEPENDENCY_CYCLE: 'after',
};

/**
 * A rule's error (a CronqlError here, or the API's during apply: its code and message) as one line
 * naming the file, the job and the field.
 */
export function jobError(path: string, key: string, err: unknown): CliError {
  if (err instanceof CronqlError) {
    const field = fileField(typeof err.details?.field === 'string' ? err.details.field : undefined) ?? FIELD_OF_CODE[err.code];
    return jobProblem(path, key, field, err.code, err.message);
  }
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && typeof e.message === 'string') {
    // The API's input coercion says where: 'Variable "$input" got invalid value … at "input.catchUp"'.
    const coerced = /at "input\.([A-Za-z.]+)"/.exec(e.message)?.[1];
    return jobProblem(path, key, fileField(coerced) ?? FIELD_OF_CODE[e.code], e.code, e.message);
  }
  // A value of a type the rules do not expect (the API's input types refuse it as well).
  return jobProblem(path, key, undefined, 'BAD_FILE', `invalid value: ${err instanceof Error ? err.message : String(err)}`);
}
