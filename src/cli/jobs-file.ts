import { CliError } from './client.js';
import { RETRY_DEFAULTS } from '../domain/job.js';
import { SETTING_NAMES, settingEntries, type JobSettingName, type JobSettings } from '../domain/job-fields.js';
import { formatEvery, parseEvery } from '../schedule/interval.js';

/**
 * Jobs as code: a YAML (or JSON) file of job definitions, applied idempotently.
 *
 *   namespace: billing            # optional: keys start with "billing."; --prune is limited to them
 *   jobs:
 *     - key: billing.close-day
 *       target: http
 *       cron: "0 2 * * *"          # or a list: ["0 9 * * 1-5", "0 12 * * 0,6"]; or runAt: 2026-12-01T00:00:00Z;
 *                                  # or every: 45m (with anchorAt: 2026-12-01T00:00:00Z, default its creation)
 *       timezone: Europe/Paris
 *       startAt: 2026-12-01T00:00:00Z   # no slot before / after (endAt); maxRuns: 10 retires it after 10 runs
 *       misfireGraceSeconds: 120
 *       payload: { url: https://billing.example.com/close }
 *       timeoutSeconds: 600
 *       heartbeatTimeoutSeconds: 120 # fail a run whose handler is silent this long (HEARTBEAT_TIMEOUT)
 *       catchUp: LATEST            # NONE | LATEST | ALL (with catchUpLimit)
 *       pauseAfterFailures: 5
 *       retry: { maxAttempts: 3, backoff: EXPONENTIAL, delaySeconds: 30 }
 *       overlap: BUFFER_ONE        # SKIP | BUFFER_ONE | CANCEL_PREVIOUS | ALLOW (with maxConcurrentRuns)
 *       jitterSeconds: 60
 *       captureBytes: 16384        # http: bytes of the response body kept (default 4096)
 *       calendars: [us-holidays]   # exclusion calendars, by name
 *     - key: billing.report
 *       target: report
 *       after: [billing.close-day]  # an AFTER job: runs when its upstreams' runs end (instead of cron/every/runAt);
 *                                  # an entry is a key (on SUCCEEDED) or { jobKey, on: SUCCEEDED | FAILED | ANY }
 *       afterMode: ALL             # ANY (default) | ALL (with afterWindowSeconds)
 *   calendars:                     # optional: calendars set before the jobs (setCalendar: each whole)
 *     - name: us-holidays
 *       timezone: America/New_York
 *       dates: ["2026-11-26", "2026-12-25"]
 *       yearly: ["01-01"]
 *       dailyWindows: [{ start: "22:00", end: "06:00", reason: batch }]
 *       windows: [{ from: "2026-12-20T00:00:00Z", to: "2027-01-03T00:00:00Z", reason: freeze }]
 *
 * A file's calendars are applied before its jobs (a job may name one the file defines), created or
 * replaced when they differ from the server's; `--prune` never deletes a calendar. `export` writes
 * the calendars the exported jobs name. Jobs are applied upstreams first (`upstreamsFirst`).
 */
export type JobSpec = {
  key: string;
  target: string;
  /** One expression, or several (a slot of any is a slot). */
  cron?: string | string[];
  runAt?: string;
  every?: string;
  anchorAt?: string;
  timezone?: string;
  startAt?: string;
  endAt?: string;
} & Partial<SpecSettings>;

/** The settings (domain/job-fields.ts) as a file writes them: enums by name, the retry policy as a mapping. */
type SpecSettings = { [K in Exclude<JobSettingName, 'retry' | 'after'>]: Wire<JobSettings[K]> } & { retry: RetrySpec | null; after: DependencySpec[] };

/** An upstream as a file writes it: its key (on SUCCEEDED), or the key and the outcome. */
export type DependencySpec = string | { jobKey: string; on?: string | null };
type Wire<T> = T extends string ? string : T;

/** A retry policy as written in a file (the server fills the defaults and checks the values). */
export interface RetrySpec {
  maxAttempts: number;
  backoff?: string;
  delaySeconds?: number;
  maxDelaySeconds?: number | null;
  retryOn?: string[] | null;
}

/** A calendar as a file writes it (the CalendarInput's fields; instants as ISO 8601 text). */
export interface CalendarSpec {
  name: string;
  timezone?: string;
  description?: string | null;
  dates?: string[];
  yearly?: string[];
  dailyWindows?: { start: string; end: string; reason?: string | null }[];
  windows?: { from: string; to: string; reason?: string | null }[];
}

/** A concurrency pool of a jobs file: set before the jobs that name it (docs/behaviour.md, "Concurrency pools"). */
export interface PoolSpec {
  name: string;
  limit: number;
}

export interface JobsFile {
  namespace?: string;
  calendars?: CalendarSpec[];
  pools?: PoolSpec[];
  jobs: JobSpec[];
}

const CALENDAR_FIELDS = new Set(['name', 'timezone', 'description', 'dates', 'yearly', 'dailyWindows', 'windows']);

/** A calendar with every field, as the server answers it: a file's and the server's compare equal when `canonical` says so. */
export function calendarDefinition(c: CalendarSpec): Required<CalendarSpec> {
  return {
    name: c.name,
    timezone: c.timezone ?? 'UTC',
    description: c.description ?? null,
    dates: [...(c.dates ?? [])].map(String).sort(),
    yearly: [...(c.yearly ?? [])].map(String).sort(),
    dailyWindows: (c.dailyWindows ?? []).map((w) => ({ start: w.start, end: w.end, reason: w.reason ?? null })),
    windows: (c.windows ?? []).map((w) => ({ from: new Date(String(w.from)).toISOString(), to: new Date(String(w.to)).toISOString(), reason: w.reason ?? null })),
  };
}

/** A calendar as a file entry (export): empty lists and the defaults left out. */
export function calendarSpec(c: Required<CalendarSpec>): CalendarSpec {
  const spec: CalendarSpec = { name: c.name };
  if (c.timezone !== 'UTC') spec.timezone = c.timezone;
  if (c.description) spec.description = c.description;
  if (c.dates.length) spec.dates = c.dates;
  if (c.yearly.length) spec.yearly = c.yearly;
  const noNull = <T extends { reason?: string | null }>(w: T) => (w.reason == null ? (({ reason: _r, ...rest }) => rest)(w) : w);
  if (c.dailyWindows.length) spec.dailyWindows = c.dailyWindows.map(noNull);
  if (c.windows.length) spec.windows = c.windows.map(noNull);
  return spec;
}

/**
 * A problem with one job of a file found by the rules checked before apply or by the server during
 * apply, in the format parseJobsFile's own problems have: `file: job "key", field "f": message`,
 * on one line, with the problem's stable code. `field` is the file's spelling (see `fileField`).
 */
export function jobProblem(file: string, job: string | number, field: string | undefined, code: string, message: string): CliError {
  const at = typeof job === 'string' ? `job "${job}"` : `job #${job + 1}`;
  const line = `${file}: ${at}${field ? `, field "${field}"` : ''}: ${message}`.replace(/\s*\n\s*/g, ' ');
  return new CliError(code, line);
}

/** The file's name of a field the API names differently (its input says cronExpression). */
export function fileField(apiField: string | undefined): string | undefined {
  if (apiField === 'cronExpression' || apiField === 'cronExpressions') return 'cron';
  if (apiField === 'scheduleType') return 'cron';
  return apiField;
}

const FIELDS = new Set<string>(['key', 'target', 'cron', 'runAt', 'every', 'anchorAt', 'timezone', 'startAt', 'endAt', ...SETTING_NAMES]);
/** Fields holding an instant. */
const INSTANTS = ['runAt', 'anchorAt', 'startAt', 'endAt'] as const;
const RETRY_FIELDS = new Set(['maxAttempts', 'backoff', 'delaySeconds', 'maxDelaySeconds', 'retryOn']);

/**
 * Parses and checks a jobs file; every problem names the file, the job key and the field. The
 * YAML library is loaded here, not with the command line: it is most of what every other
 * command would load for nothing.
 */
export async function parseJobsFile(name: string, text: string): Promise<JobsFile> {
  const parseYaml = name.endsWith('.json') ? undefined : (await import('yaml')).parse;
  let doc: unknown;
  try {
    doc = parseYaml ? parseYaml(text) : JSON.parse(text);
  } catch (err) {
    throw new CliError('BAD_FILE', `${name}: not valid ${name.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message.split('\n')[0]}`);
  }
  const bad = (where: string, message: string) => new CliError('BAD_FILE', `${name}: ${where}: ${message}`);
  if (typeof doc !== 'object' || doc === null || !Array.isArray((doc as JobsFile).jobs)) throw bad('top level', 'expected a "jobs:" list');
  const file = doc as JobsFile;
  if (file.namespace !== undefined && (typeof file.namespace !== 'string' || file.namespace === '')) throw bad('namespace', 'must be a non-empty string');
  if (file.calendars !== undefined) {
    if (!Array.isArray(file.calendars)) throw bad('calendars', 'must be a list');
    const names = new Set<string>();
    for (const [i, cal] of file.calendars.entries()) {
      const at = `calendar ${typeof cal?.name === 'string' ? `"${cal.name}"` : `#${i + 1}`}`;
      if (typeof cal !== 'object' || cal === null || Array.isArray(cal)) throw bad(at, 'must be a mapping');
      for (const field of Object.keys(cal)) if (!CALENDAR_FIELDS.has(field)) throw bad(`${at}, field "${field}"`, `unknown field (known: ${[...CALENDAR_FIELDS].join(', ')})`);
      if (typeof cal.name !== 'string' || cal.name === '') throw bad(`${at}, field "name"`, 'required');
      if (names.has(cal.name)) throw bad(`${at}, field "name"`, 'listed twice');
      names.add(cal.name);
    }
  }
  if (file.pools !== undefined) {
    if (!Array.isArray(file.pools)) throw bad('pools', 'must be a list');
    const names = new Set<string>();
    for (const [i, pool] of file.pools.entries()) {
      const at = `pool ${typeof pool?.name === 'string' ? `"${pool.name}"` : `#${i + 1}`}`;
      if (typeof pool !== 'object' || pool === null || Array.isArray(pool)) throw bad(at, 'must be a mapping');
      for (const field of Object.keys(pool)) if (field !== 'name' && field !== 'limit') throw bad(`${at}, field "${field}"`, 'unknown field (known: name, limit)');
      if (typeof pool.name !== 'string' || pool.name === '') throw bad(`${at}, field "name"`, 'required');
      if (!Number.isInteger(pool.limit) || pool.limit < 1) throw bad(`${at}, field "limit"`, 'required: a whole number from 1');
      if (names.has(pool.name)) throw bad(`${at}, field "name"`, 'listed twice');
      names.add(pool.name);
    }
  }
  const seen = new Set<string>();
  for (const [i, job] of file.jobs.entries()) {
    const at = `job ${typeof job?.key === 'string' ? `"${job.key}"` : `#${i + 1}`}`;
    if (typeof job !== 'object' || job === null) throw bad(at, 'must be a mapping');
    for (const field of Object.keys(job)) if (!FIELDS.has(field)) throw bad(`${at}, field "${field}"`, `unknown field (known: ${[...FIELDS].join(', ')})`);
    if (typeof job.key !== 'string' || job.key === '') throw bad(`${at}, field "key"`, 'required');
    if (file.namespace && !job.key.startsWith(`${file.namespace}.`)) throw bad(`${at}, field "key"`, `must start with "${file.namespace}." (the file's namespace)`);
    if (seen.has(job.key)) throw bad(`${at}, field "key"`, 'listed twice');
    seen.add(job.key);
    if (typeof job.target !== 'string' || job.target === '') throw bad(`${at}, field "target"`, 'required');
    if ([job.cron, job.runAt, job.every, job.after].filter((v) => v !== undefined).length !== 1) {
      throw bad(`${at}, field "cron"`, 'give exactly one of cron (recurring: an expression or a list), every (an interval), runAt (one-time) or after (upstream jobs)');
    }
    if (job.after !== undefined && (!Array.isArray(job.after) || !job.after.every((d) => typeof d === 'string' || (typeof d === 'object' && d !== null && typeof d.jobKey === 'string')))) {
      throw bad(`${at}, field "after"`, 'a list of upstream job keys, or of { jobKey, on }');
    }
    if (Array.isArray(job.cron) && (job.cron.length === 0 || !job.cron.every((c) => typeof c === 'string'))) throw bad(`${at}, field "cron"`, 'a list of cron expressions (strings), at least one');
    for (const field of INSTANTS) {
      if (job[field] !== undefined && Number.isNaN(new Date(String(job[field])).getTime())) throw bad(`${at}, field "${field}"`, 'not a date-time');
    }
    if (job.anchorAt !== undefined && job.every === undefined) throw bad(`${at}, field "anchorAt"`, 'goes with every');
    if (job.retry !== undefined && job.retry !== null) {
      if (typeof job.retry !== 'object' || Array.isArray(job.retry)) throw bad(`${at}, field "retry"`, 'must be a mapping (maxAttempts, backoff, delaySeconds, maxDelaySeconds, retryOn)');
      for (const field of Object.keys(job.retry)) if (!RETRY_FIELDS.has(field)) throw bad(`${at}, field "retry.${field}"`, `unknown field (known: ${[...RETRY_FIELDS].join(', ')})`);
    }
  }
  return file;
}

/** The definition fields compared between a file and the server (what a new version would change). */
export type Definition = {
  target: string;
  scheduleType: 'RECURRING' | 'ONE_TIME' | 'INTERVAL' | 'AFTER';
  cronExpression: string | null;
  /** Several expressions (the first is cronExpression); null for one. */
  cronExpressions: string[] | null;
  runAt: string | null;
  /** As cronql writes it back ("1h30m"), so "90m" and the server's answer compare equal. */
  every: string | null;
  /** Null when the file does not say (the server anchors at the job's creation, and a new version keeps it). */
  anchorAt: string | null;
  timezone: string;
  startAt: string | null;
  endAt: string | null;
} & { [K in Exclude<JobSettingName, 'retry' | 'after'>]: Wire<JobSettings[K]> } & { retry: Required<RetrySpec> | null; after: { jobKey: string; on: string }[] };

/** The settings of a definition, from what a file or the server says (omitted: the default). */
export function settingsDefinition(given: Partial<Record<JobSettingName, unknown>>): Pick<Definition, JobSettingName> {
  const settings: Record<string, unknown> = {};
  for (const [name, spec] of settingEntries()) {
    settings[name] =
      spec.kind === 'retry'
        ? retryDefinition(given.retry as RetrySpec | null | undefined)
        : spec.kind === 'dependencies'
          ? dependenciesDefinition(given[name] as unknown[] | null | undefined)
          : (given[name] ?? spec.default);
  }
  return settings as Pick<Definition, JobSettingName>;
}

/**
 * Upstreams as `{ jobKey, on }` with the default outcome filled in, from a file's entries (a key,
 * or `{ jobKey, on }`) or the server's (`{ on, upstream { key } }`), so the two compare equal.
 */
export function dependenciesDefinition(list: readonly unknown[] | null | undefined): { jobKey: string; on: string }[] {
  return (list ?? []).map((d) => {
    if (typeof d === 'string') return { jobKey: d, on: 'SUCCEEDED' };
    const e = d as { jobKey?: string; on?: string | null; upstream?: { key: string } };
    return { jobKey: e.jobKey ?? e.upstream!.key, on: e.on ?? 'SUCCEEDED' };
  });
}

/**
 * The jobs of a file in an order where each comes after its upstreams among them (the file's order
 * otherwise), so that apply creates upstreams first. A cycle is left as it is, for the server to refuse.
 */
export function upstreamsFirst(jobs: readonly JobSpec[]): JobSpec[] {
  const byKey = new Map(jobs.map((j) => [j.key, j]));
  const out: JobSpec[] = [];
  const state = new Map<string, 'visiting' | 'placed'>();
  const place = (job: JobSpec) => {
    if (state.has(job.key)) return;
    state.set(job.key, 'visiting');
    for (const d of dependenciesDefinition(job.after)) {
      const upstream = byKey.get(d.jobKey);
      if (upstream) place(upstream);
    }
    state.set(job.key, 'placed');
    out.push(job);
  };
  for (const job of jobs) place(job);
  return out;
}

/** A retry policy with the server's defaults filled in, so a file and the server compare equal. */
export function retryDefinition(r: RetrySpec | null | undefined): Required<RetrySpec> | null {
  if (!r) return null;
  return {
    maxAttempts: r.maxAttempts,
    backoff: r.backoff ?? RETRY_DEFAULTS.backoff,
    delaySeconds: r.delaySeconds ?? RETRY_DEFAULTS.delaySeconds,
    maxDelaySeconds: r.maxDelaySeconds ?? null,
    retryOn: r.retryOn ?? null,
  };
}

const instant = (v: unknown): string | null => (v === undefined || v === null ? null : new Date(String(v)).toISOString());

/** `every` as cronql writes it, when it reads; else as given (the rules then say what is wrong). */
function everyDefinition(every: unknown): string | null {
  if (every === undefined || every === null) return null;
  try {
    return formatEvery(parseEvery(every));
  } catch {
    return String(every);
  }
}

/** Each file job's definition, made once: the rules, the comparison and the request all read it (a file's jobs are not changed once parsed). */
const definitions = new WeakMap<JobSpec, Definition>();

/** The definition a file's job says (omitted fields: their defaults), as the server would answer it. Made once per job; do not change it. */
export function specDefinition(spec: JobSpec): Definition {
  let definition = definitions.get(spec);
  if (!definition) definitions.set(spec, (definition = definitionOf(spec)));
  return definition;
}

function definitionOf(spec: JobSpec): Definition {
  const crons = spec.cron === undefined ? null : Array.isArray(spec.cron) ? spec.cron : [spec.cron];
  return {
    target: spec.target,
    scheduleType: crons ? 'RECURRING' : spec.every !== undefined ? 'INTERVAL' : spec.after !== undefined ? 'AFTER' : 'ONE_TIME',
    cronExpression: crons?.[0] ?? null,
    cronExpressions: crons && crons.length > 1 ? crons : null,
    runAt: instant(spec.runAt),
    every: everyDefinition(spec.every),
    anchorAt: instant(spec.anchorAt),
    timezone: spec.timezone ?? 'UTC',
    startAt: instant(spec.startAt),
    endAt: instant(spec.endAt),
    ...settingsDefinition(spec),
  };
}

/** Stable JSON (sorted keys): two definitions are the same when these strings are. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * Whether `canonical` would write `a` and `b` the same (keys in any order, undefined as null),
 * without writing either: `apply` compares every job of a file with the server's, most of them
 * equal.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a == null || b == null) return a == null && b == null;
  if (typeof a !== 'object' || typeof b !== 'object') return typeof a === 'number' && typeof b === 'number' ? canonical(a) === canonical(b) : false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => sameValue(v, b[i]));
  }
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** The fields whose values differ. */
export function changedFields(from: Definition, to: Definition): (keyof Definition)[] {
  return (Object.keys(to) as (keyof Definition)[]).filter((k) => !sameValue(from[k], to[k]));
}

/** A definition as a file entry (export). */
export function definitionSpec(key: string, d: Definition): JobSpec {
  const spec: JobSpec = { key, target: d.target };
  if (d.scheduleType === 'RECURRING') spec.cron = d.cronExpressions && d.cronExpressions.length > 1 ? d.cronExpressions : d.cronExpression!;
  else if (d.scheduleType === 'INTERVAL') {
    spec.every = d.every!;
    if (d.anchorAt) spec.anchorAt = d.anchorAt;
  } else if (d.scheduleType === 'ONE_TIME') spec.runAt = d.runAt!;
  if (d.timezone !== 'UTC') spec.timezone = d.timezone;
  if (d.startAt) spec.startAt = d.startAt;
  if (d.endAt) spec.endAt = d.endAt;
  // A setting at its default is left out; the retry policy without its unset parts.
  for (const [name, setting] of settingEntries()) {
    if (canonical(d[name]) === canonical(setting.default)) continue;
    if (name === 'retry') {
      const { maxAttempts, backoff, delaySeconds, maxDelaySeconds, retryOn } = d.retry!;
      spec.retry = { maxAttempts, backoff, delaySeconds, ...(maxDelaySeconds !== null ? { maxDelaySeconds } : {}), ...(retryOn !== null ? { retryOn } : {}) };
    } else if (name === 'after') {
      // A key alone means on SUCCEEDED.
      spec.after = d.after.map((u) => (u.on === 'SUCCEEDED' ? u.jobKey : u));
    } else (spec as Record<string, unknown>)[name] = d[name];
  }
  return spec;
}

export async function toYaml(file: JobsFile): Promise<string> {
  return (await import('yaml')).stringify(file);
}
