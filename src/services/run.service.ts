import { CronqlError } from '../errors.js';
import { auditActor } from './audit-actor.js';
import type { Pool } from '../db/pool.js';
import type { Tracing } from '../tracing/tracing.js';
import { Channel, notify } from '../db/notifier.js';
import { RunStatus, TriggerType } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import { countRuns, lastRunsOfJobs, pageRuns, runPagesOfJobs, type RunFilter as RunQuery } from '../db/run-queries.js';
import { parseLabelSelector, type LabelSelector } from '../domain/label-selector.js';
import { loadRuns, loadUpstreamRuns } from '../db/run-loading.js';
import type { RunStore } from '../db/run-store.js';
import { isUuid, type JobService } from './job.service.js';
import { validatePayload } from './job-rules.js';
import { checkText } from './stored-input.js';
import { decodeCursor, pageSize, toPage, type Page, type Position } from './pagination.js';
import type { RuntimePort } from './runtime-port.js';
import { EVERY_JOB, inScope, within, type Scope } from '../domain/scope.js';

/** A filter of runs as the API takes it (`RunFilter`): the label selector as text. */
export type RunFilter = Omit<RunQuery, 'selector'> & { labelSelector?: string | null };

export interface JobRunsRequest {
  jobId: string;
  first?: number | null;
  after?: string | null;
  status?: RunStatus[] | null;
}

export interface RunServiceDeps {
  pool: Pool;
  store: RunStore;
  jobs: JobService;
  maxPayloadBytes: number;
  runtime?: RuntimePort;
  /** With tracing on: the trace contexts of the runs created on request. */
  tracing?: Pick<Tracing, 'continueOrStart'>;
}

/** How a run is asked for, beyond its payload. */
export interface RunNowOptions {
  /**
   * The W3C `traceparent` of the caller's span (the GraphQL operation's): the run's span continues
   * it. Ignored while tracing is off; without it, with tracing on, the run starts its own trace.
   */
  traceparent?: string;
  /** Who asks (the principal's name): the run's `triggeredBy` and its audit entry's actor. */
  actor?: string | null;
  /** The caller's scope: a job outside it is NOT_FOUND (docs/teams.md). */
  scope?: Scope;
}

/**
 * The filter as the data layer takes it: its text checked; a job id that is not a uuid matches
 * nothing (the nil uuid) rather than failing; its selector narrowed to the caller's scope (the
 * runs of the scope's job versions only, in the same statement).
 */
function checkedFilter(filter: RunFilter, scope: Scope): RunQuery {
  checkText('filter.jobKey', filter.jobKey);
  checkText('filter.target', filter.target);
  const { labelSelector, ...rest } = filter;
  const query: RunQuery = { ...rest, selector: within(scope, selectorOf(filter)) };
  return filter.jobId && !isUuid(filter.jobId) ? { ...query, jobId: NIL_UUID } : query;
}

/** The filter's label selector, parsed (INVALID_SELECTOR); null when it has none. */
export const selectorOf = (filter: RunFilter | null | undefined): LabelSelector | null =>
  filter?.labelSelector == null ? null : parseLabelSelector(filter.labelSelector);

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * In-memory form of the same filter, for run events (subscriptions filter on the server), but for
 * the label selector: the run does not carry its job version's labels, graphql/run-feed.ts
 * matches them (`matchesSelector`).
 */
export function runMatches(run: RunRecord, f: RunFilter | null | undefined): boolean {
  if (!f) return true;
  if (f.jobId && run.jobId !== f.jobId) return false;
  if (f.jobKey && run.jobKey !== f.jobKey) return false;
  if (f.status?.length && !f.status.includes(run.status)) return false;
  if (f.target && run.target !== f.target) return false;
  if (f.triggerType?.length && !f.triggerType.includes(run.triggerType)) return false;
  if (f.scheduledAfter && !(run.scheduledAt > f.scheduledAfter)) return false;
  if (f.scheduledBefore && !(run.scheduledAt < f.scheduledBefore)) return false;
  return true;
}

/** Runs: run-now, cancel, and reads (newest scheduledAt first, keyset-paged). */
export class RunService {
  constructor(private readonly d: RunServiceDeps) {}

  /** A run by id; null when there is none, or when its job is outside `scope` (the same answer). */
  async get(id: string, scope: Scope = EVERY_JOB): Promise<RunRecord | null> {
    if (!isUuid(id)) return null;
    const run = await this.d.store.get(id);
    return run && (await this.visible([run], scope)).length > 0 ? run : null;
  }

  /** Batched lookup (GraphQL dataloaders): runs in the order of `ids`, null where missing or outside `scope`. */
  async getMany(ids: readonly string[], scope: Scope = EVERY_JOB): Promise<(RunRecord | null)[]> {
    const byId = new Map((await this.visible(await loadRuns(this.d.pool, ids.filter(isUuid)), scope)).map((run) => [run.id, run]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** The upstream runs of each run (`Run.upstreamRuns`; empty but for DEPENDENCY runs), batched, in the order of `ids`. */
  async upstreamsOf(ids: readonly string[]): Promise<RunRecord[][]> {
    const byRun = await loadUpstreamRuns(this.d.pool, ids.filter(isUuid));
    return ids.map((id) => byRun.get(id) ?? []);
  }

  /** @throws NOT_FOUND when there is no such run, or its job is outside `scope` (the same error). */
  async getOrThrow(id: string, scope: Scope = EVERY_JOB): Promise<RunRecord> {
    const run = await this.get(id, scope);
    if (!run) throw new CronqlError('NOT_FOUND', `no run with id ${id}`, { id });
    return run;
  }

  /**
   * The runs whose job version is in `scope` (docs/teams.md): a run is its job's. The labels of
   * job versions are kept once read (they never change), so a feed of run changes filters each
   * change without a query.
   */
  async visible(runs: readonly RunRecord[], scope: Scope): Promise<RunRecord[]> {
    if (scope === null || runs.length === 0) return [...runs];
    const labels = await this.d.jobs.labelsOf(runs.map((r) => r.jobId));
    return runs.filter((r) => labels.has(r.jobId) && inScope(scope, labels.get(r.jobId)));
  }

  async list(filter: RunFilter = {}, first?: number | null, after?: string | null, scope: Scope = EVERY_JOB): Promise<Page<RunRecord>> {
    const [page, totalCount] = await Promise.all([this.page(filter, first, after, scope), this.count(filter, scope)]);
    return { ...page, totalCount };
  }

  /** The runs matching `filter` (what `totalCount` says; counting a large history costs, so it is asked for apart). */
  async count(filter: RunFilter = {}, scope: Scope = EVERY_JOB): Promise<number> {
    return countRuns(this.d.pool, checkedFilter(filter, scope));
  }

  /**
   * One page of runs without counting the matches (`count` does). One job's runs (by key, over
   * all its versions) are read newest first per version and merged: a page reads at most a page
   * per version, however long the job's history is.
   */
  async page(filter: RunFilter = {}, first?: number | null, after?: string | null, scope: Scope = EVERY_JOB): Promise<Omit<Page<RunRecord>, 'totalCount'>> {
    const size = pageSize(first);
    const byKey = filter.jobKey && !filter.jobId ? filter.jobKey : undefined;
    const rows = await pageRuns(this.d.pool, checkedFilter(filter, scope), byKey, decodeCursor(after), size + 1);
    const { totalCount: _, ...page } = toPage(rows, size, (r) => ({ at: r.scheduledAt, id: r.id }), 0);
    return page;
  }

  /**
   * Runs the job now: MANUAL, or AD_HOC with the given payload. With a run of the job still
   * active the job's overlap policy decides, as for a scheduled slot: SKIPPED (OVERLAP),
   * buffered, started in place of the active run, or started beside it.
   */
  async runNow(jobId: string, payload?: unknown, options: RunNowOptions = {}): Promise<RunRecord> {
    if (payload !== undefined && payload !== null) validatePayload(payload, this.d.maxPayloadBytes);
    // Outside the caller's scope: NOT_FOUND before anything is written (a version's labels never change).
    if (options.scope) await this.d.jobs.getOrThrow(jobId, options.scope);
    const traceparent = this.d.tracing?.continueOrStart(options.traceparent) ?? null;
    const made = isUuid(jobId) ? await this.d.store.insertManual(jobId, payload === null ? undefined : payload, traceparent, { actor: auditActor(options.actor), action: 'runJobNow' }) : null;
    // Replaced runs running here stop now; those elsewhere were told by the store (NOTIFY).
    for (const old of made?.replaced ?? []) this.d.runtime?.abortRun(old.id, 'replaced by a run-now (overlap: CANCEL_PREVIOUS)');
    const run = made?.run;
    if (!run) {
      // Nothing inserted: the job is unknown or RETIRED; tell which.
      const job = await this.d.jobs.getOrThrow(jobId);
      throw new CronqlError('INVALID_STATE', `job ${job.jobKey} v${job.version} is ${job.status}`, { status: job.status });
    }
    if (run.status !== RunStatus.PENDING) return run;
    // A run of a concurrency pool may wait for a place (and the pool's older runs be won instead).
    const running = (await this.d.runtime?.claimAndExecute([run.id]))?.find((r) => r.id === run.id);
    // Answered as its handler was entered: the claim's instant is not when the run started (its row,
    // its RUNNING change and every figure say the entry's). One that ended never entered (a missing
    // secret): as it ended.
    if (running) return (await this.d.runtime!.whenEntered(running.id)) ?? (await this.d.store.get(running.id)) ?? running;
    // Claimed meanwhile another way — the pending-runs duty claims a run left PENDING a while
    // (MAINTENANCE.pendingAfterMs), as a stalled event loop between the insert and the claim above
    // allows: answer what it is now, not the insert's PENDING (a pooled run would read as waiting
    // for the place it holds itself).
    const current = this.d.runtime ? await this.d.store.get(run.id) : null;
    if (current && current.status !== RunStatus.PENDING) return current;
    // No runtime here (CRONQL_ROLE=api), or it is stopping: a scheduler instance claims it.
    await notify(this.d.pool, Channel.RUN_CREATED, run.id);
    return run;
  }

  /** PENDING|RUNNING → CANCELED; a handler in flight sees its AbortSignal fire. */
  async cancel(id: string, actor: string | null = null, scope: Scope = EVERY_JOB): Promise<RunRecord> {
    // Outside the caller's scope: NOT_FOUND before anything is written (a run's job never changes).
    if (scope) await this.getOrThrow(id, scope);
    const change = isUuid(id) ? await this.d.store.cancel(id, { actor: auditActor(actor), action: 'cancelRun' }) : null;
    if (!change) {
      const existing = await this.getOrThrow(id);
      throw new CronqlError('INVALID_STATE', `run ${id} is ${existing.status}; only PENDING or RUNNING runs can be canceled`, {
        status: existing.status,
      });
    }
    if (!this.d.runtime?.abortRun(id)) await notify(this.d.pool, Channel.RUN_CANCELED, id);
    return change.run;
  }

  /**
   * One page of runs for each of many jobs (GraphQL `Job.runs` under a list of jobs), batched:
   * requests that share their arguments cost two statements together (pages and counts), not
   * two per job.
   */
  async listByJobs(requests: readonly JobRunsRequest[]): Promise<Page<RunRecord>[]> {
    const groups = new Map<string, { first: number; after?: Position; status: RunStatus[] | null; at: number[] }>();
    requests.forEach((r, i) => {
      const key = JSON.stringify([r.first ?? null, r.after ?? null, r.status ?? null]);
      const group = groups.get(key) ?? { first: pageSize(r.first), after: decodeCursor(r.after), status: r.status?.length ? r.status : null, at: [] };
      group.at.push(i);
      groups.set(key, group);
    });
    const pages: Page<RunRecord>[] = new Array(requests.length);
    for (const group of groups.values()) {
      const jobIds = [...new Set(group.at.map((i) => requests[i].jobId).filter(isUuid))];
      const { runs, totals } = await runPagesOfJobs(this.d.pool, jobIds, group.status, group.after, group.first + 1);
      const byJob = new Map<string, RunRecord[]>();
      for (const run of runs) {
        byJob.set(run.jobId, [...(byJob.get(run.jobId) ?? []), run]);
      }
      for (const i of group.at) {
        const id = requests[i].jobId;
        pages[i] = toPage(byJob.get(id) ?? [], group.first, (r) => ({ at: r.scheduledAt, id: r.id }), totals.get(id) ?? 0);
      }
    }
    return pages;
  }

  /** Latest run per job (GraphQL `Job.lastRun`), batched: one query for many jobs. */
  async lastRuns(jobIds: readonly string[]): Promise<(RunRecord | null)[]> {
    const byJob = new Map((await lastRunsOfJobs(this.d.pool, jobIds.filter(isUuid))).map((run) => [run.jobId, run]));
    return jobIds.map((id) => byJob.get(id) ?? null);
  }
}
