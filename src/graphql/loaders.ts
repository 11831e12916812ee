import DataLoader from 'dataloader';
import type { Cronql } from '../app.js';
import type { JobRecord } from '../domain/job.js';
import type { RunStatus } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import type { Page } from '../services/pagination.js';
import type { RunLogPage, RunLogsRequest } from '../services/run-log.service.js';
import type { PoolRow } from '../services/pool.service.js';
import { EVERY_JOB, inScope, type Scope } from '../domain/scope.js';

export interface JobRunsKey {
  jobId: string;
  first: number | null | undefined;
  after: string | null | undefined;
  status: RunStatus[] | null | undefined;
}

/**
 * Per-request batching, so a page of N runs asking for `job { lastRun }` costs one query per
 * relation rather than N: every `load` made while resolving one level of the response goes to
 * the database together. Never shared between requests (each caller sees fresh data). Jobs and
 * runs by id are those of the caller's scope: outside it a lookup answers null, as for an id that
 * does not exist (docs/teams.md), whichever field asked.
 */
export class Loaders {
  /** Job versions by id. */
  readonly job: DataLoader<string, JobRecord | null>;
  /** The version that replaced a job version, by the replaced version's id. */
  readonly successor: DataLoader<string, JobRecord | null>;
  /** The live, armed scheduler instances (one read per request, whatever the key). */
  readonly schedulers: DataLoader<string, string[]>;
  /** The newest version of a job key (an AFTER job's upstreams). */
  readonly jobByKey: DataLoader<string, JobRecord | null>;
  /** A DEPENDENCY run's upstream runs, by its id. */
  readonly upstreamRuns: DataLoader<string, RunRecord[]>;
  /** Runs by id. */
  readonly run: DataLoader<string, RunRecord | null>;
  /** The latest run (by scheduledAt) of a job version. */
  readonly lastRun: DataLoader<string, RunRecord | null>;
  /** `Job.runs` pages: a page of jobs each asking for its runs costs two queries in all. */
  readonly jobRuns: DataLoader<JobRunsKey, Page<RunRecord>, string>;
  /** `Run.logs` pages: a page of runs each asking for its logs costs one query in all. */
  readonly runLogs: DataLoader<RunLogsRequest, RunLogPage, string>;
  /** Concurrency pools by name (`Run.waitingFor`): a page of waiting runs costs one query in all. */
  readonly pool: DataLoader<string, PoolRow | null>;

  constructor(cronql: Cronql, scope: Scope = EVERY_JOB) {
    this.job = new DataLoader((ids) => cronql.jobs.getMany(ids, scope));
    this.successor = new DataLoader((ids) => cronql.jobs.getSuccessors(ids, scope));
    // An AFTER job's upstreams and a run's upstream runs: those outside the scope do not exist for the caller.
    this.jobByKey = new DataLoader(async (keys) => (await cronql.jobs.newestByKeys(keys)).map((job) => (job && inScope(scope, job.labels) ? job : null)));
    this.upstreamRuns = new DataLoader(async (ids) => {
      const lists = await cronql.runs.upstreamsOf(ids);
      if (scope === EVERY_JOB) return lists;
      return Promise.all(lists.map((runs) => cronql.runs.visible(runs, scope)));
    });
    // A job's runs are its own: the job was found in scope.
    this.lastRun = new DataLoader((ids) => cronql.runs.lastRuns(ids));
    this.run = new DataLoader((ids) => cronql.runs.getMany(ids, scope));
    this.schedulers = new DataLoader(async (keys) => {
      const members = await cronql.liveSchedulers();
      return keys.map(() => members);
    });
    this.jobRuns = new DataLoader((keys) => cronql.runs.listByJobs(keys), {
      cacheKeyFn: (k) => JSON.stringify([k.jobId, k.first, k.after, k.status]),
    });
    this.pool = new DataLoader(async (names) => {
      const rows = new Map((await cronql.pools.getMany(names)).map((p) => [p.name, p]));
      return names.map((n) => rows.get(n) ?? null);
    });
    this.runLogs = new DataLoader((keys) => cronql.runLogs.pages(keys), {
      cacheKeyFn: (k) => JSON.stringify([k.runId, k.first, k.after]),
    });
  }

  /** Remembers jobs read some other way (a list, a mutation) so `Run.job` does not re-read them. */
  primeJobs(jobs: readonly JobRecord[]): void {
    for (const job of jobs) this.job.clear(job.id).prime(job.id, job);
  }

  /** Forgets everything: a subscription resolves each event with fresh data. */
  clear(): void {
    this.job.clearAll();
    this.successor.clearAll();
    this.jobByKey.clearAll();
    this.upstreamRuns.clearAll();
    this.lastRun.clearAll();
    this.jobRuns.clearAll();
    this.runLogs.clearAll();
  }
}
