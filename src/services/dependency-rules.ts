import { CronqlError } from '../errors.js';
import { AfterMode, DependencyOutcome, OverlapPolicy, ScheduleType } from '../domain/enums.js';
import type { Dependency } from '../domain/dependencies.js';
import type { DependenciesSetting, JobSettings } from '../domain/job-fields.js';

/**
 * The rules of AFTER jobs that a definition alone decides (docs/behaviour.md, "Jobs that follow
 * jobs"); whether each upstream exists and that no cycle forms is the database's to say at the
 * write, where it holds against concurrent writes (migration 20261128030000_dependencies).
 */

/** The key rule of services/job-rules.ts, for an upstream's key (a key that cannot exist is refused before any read). */
const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$/;

/**
 * An upstreams list: null or omitted is the empty list; each `{ jobKey, on }` (on: SUCCEEDED when
 * null or omitted), each key once, at most `spec.max`.
 */
export function validateDependencies(name: string, spec: DependenciesSetting, value: unknown): Dependency[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > spec.max) {
    throw new CronqlError(spec.code, `${name} must be a list of at most ${spec.max} upstreams ({ jobKey, on })`, { field: name, max: spec.max });
  }
  const seen = new Set<string>();
  return value.map((item: unknown, index) => {
    const { jobKey, on } = (item ?? {}) as { jobKey?: unknown; on?: unknown };
    if (typeof jobKey !== 'string' || !KEY_PATTERN.test(jobKey)) {
      throw new CronqlError(spec.code, `${name}[${index}].jobKey must be a job key`, { field: `${name}.jobKey`, index });
    }
    const outcome = on ?? DependencyOutcome.SUCCEEDED;
    if (!Object.values(DependencyOutcome).includes(outcome as DependencyOutcome)) {
      throw new CronqlError(spec.code, `${name}[${index}].on must be SUCCEEDED, FAILED or ANY`, { field: `${name}.on`, index });
    }
    if (seen.has(jobKey)) throw new CronqlError(spec.code, `${name} names "${jobKey}" twice`, { field: name, jobKey });
    seen.add(jobKey);
    return { jobKey, on: outcome as DependencyOutcome };
  });
}

/**
 * The settings an AFTER job must have (upstreams) and those it cannot: what bounds, excludes or
 * spreads slots (it has none; a calendar belongs on the upstream, whose excluded slot is SKIPPED
 * and so starts no dependent), and CANCEL_PREVIOUS (a dependent run is created in the statement
 * that ends its upstream's run, which cannot also end the dependent's active run). The other
 * types have no upstreams.
 */
export function validateAfterSettings(type: ScheduleType, s: JobSettings): void {
  const refuse = (field: string, message: string) => new CronqlError('BAD_USER_INPUT', message, { field });
  if (type !== ScheduleType.AFTER) {
    if (s.after.length > 0) throw refuse('after', 'after is for AFTER jobs (scheduleType: AFTER)');
    if (s.afterMode !== AfterMode.ANY) throw refuse('afterMode', 'afterMode is for AFTER jobs (scheduleType: AFTER)');
    return;
  }
  if (s.after.length === 0) throw refuse('after', 'an AFTER job needs at least one upstream in `after`');
  if (s.maxRuns !== null) throw refuse('maxRuns', 'maxRuns is for RECURRING and INTERVAL jobs; an AFTER job has no slots');
  if (s.calendars.length > 0) throw refuse('calendars', 'calendars are for RECURRING and INTERVAL jobs; put them on the upstream (its excluded slots start no dependent)');
  if (s.jitterSeconds !== 0) throw refuse('jitterSeconds', 'jitterSeconds is for RECURRING and INTERVAL jobs; an AFTER job starts when its upstreams end');
  if (s.overlap === OverlapPolicy.CANCEL_PREVIOUS) {
    throw new CronqlError('INVALID_POLICY', 'overlap CANCEL_PREVIOUS is not for AFTER jobs: use SKIP, BUFFER_ONE or ALLOW', { field: 'overlap' });
  }
}

/** A job that names itself as its upstream: the shortest cycle, refused before any write. */
export function assertNotOwnUpstream(key: string, after: readonly Dependency[]): void {
  if (after.some((d) => d.jobKey === key)) {
    throw new CronqlError('DEPENDENCY_CYCLE', `job "${key}" cannot run after itself`, { field: 'after', jobKey: key });
  }
}
