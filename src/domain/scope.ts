import { matchesSelector, parseLabelSelector, type LabelSelector, type Labels } from './label-selector.js';

/**
 * A caller's scope (docs/teams.md): the jobs a token may see and act on. A named token may carry a
 * label selector (OPERATOR and VIEWER tokens only); the jobs it does not match, and their runs,
 * backfills and logs, do not exist for that token — reads leave them out, counts do not count them,
 * and naming one by id answers NOT_FOUND with the message of an id that does not exist, so a
 * scoped token cannot tell another team's job from no job at all.
 *
 * This module is the rule, written once: `inScope` in memory, and `within` to narrow a filter's
 * selector so that the database applies the same rule (db/label-selector-sql.ts) in the same
 * statement as the filter. A version's labels never change (a new version is a new row), so a
 * version found in scope stays in scope: a check before a write cannot be overtaken.
 */

/** The jobs a caller reaches: those a selector matches; null for every job (unscoped callers, the library). */
export type Scope = LabelSelector | null;

/** Every job: the environment's tokens, unscoped named tokens, and the library's own calls. */
export const EVERY_JOB: Scope = null;

/** Parsed scopes by their text: a token's scope is parsed once, not per request. */
const parsed = new Map<string, LabelSelector>();
const MAX_PARSED = 1_000;

/**
 * The scope of a caller whose token carries `scope` (a selector checked when the token was made).
 * A selector with no terms matches every job: the same as no scope.
 */
export function scopeOf(caller: { scope: string | null }): Scope {
  if (caller.scope === null) return EVERY_JOB;
  let selector = parsed.get(caller.scope);
  if (!selector) {
    selector = parseLabelSelector(caller.scope);
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(caller.scope, selector);
  }
  return selector.terms.length === 0 ? EVERY_JOB : selector;
}

/** Whether a job version with these labels exists for a caller of `scope`. */
export function inScope(scope: Scope, labels: Readonly<Labels> | null | undefined): boolean {
  return scope === null || matchesSelector(scope, labels ?? {});
}

/**
 * A filter's selector narrowed to the scope: the jobs both match (a selector is a conjunction of
 * terms, so this is both lists of terms). Null when neither says anything.
 */
export function within(scope: Scope, selector: LabelSelector | null | undefined): LabelSelector | null {
  if (scope === null) return selector ?? null;
  if (!selector || selector.terms.length === 0) return scope;
  return { terms: [...scope.terms, ...selector.terms] };
}
