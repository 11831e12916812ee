import { DependencyOutcome, RunStatus } from './enums.js';

/**
 * An AFTER job's upstreams (docs/behaviour.md, "Jobs that follow jobs"): each names a job by its
 * key — not a version: a new version of the upstream keeps the link — and the end of its runs
 * that starts this job.
 */
export interface Dependency {
  jobKey: string;
  on: DependencyOutcome;
}

/** The most upstreams one AFTER job names. */
export const MAX_UPSTREAMS = 20;

/** The longest `afterWindowSeconds`: 31 days. */
export const MAX_AFTER_WINDOW_SECONDS = 31 * 86_400;

/**
 * The run statuses an outcome matches: the ends of a run that ran (CANCELED and SKIPPED runs never
 * start a dependent). What the end rules compare with, in SQL (db/runs/dependency-rules.ts).
 */
export const OUTCOME_STATUSES: Readonly<Record<DependencyOutcome, readonly RunStatus[]>> = {
  [DependencyOutcome.SUCCEEDED]: [RunStatus.SUCCEEDED],
  [DependencyOutcome.FAILED]: [RunStatus.FAILED],
  [DependencyOutcome.ANY]: [RunStatus.SUCCEEDED, RunStatus.FAILED],
};
