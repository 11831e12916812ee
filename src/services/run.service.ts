import { CronqlError } from '../errors.js';
import type { Pool } from '../db/pool.js';
import { Channel, notify } from '../db/notifier.js';
import { RunStatus, TriggerType } from '../domain/enums.js';
import type { RunRecord } from '../domain/run.js';
import { rowToRun } from '../db/runs/record.js';
import { RUN_COLUMNS } from '../db/runs/vocabulary.js';
import type { RunStore } from '../db/run-store.js';
import { isUuid, type JobService } from './job.service.js';
import { validatePayload } from './job-rules.js';
import { checkText } from './stored-input.js';
import { decodeCursor, pageSize, toPage, type Page, type Position } from './pagination.js';
import type { RuntimePort } from './runtime-port.js';

export interface RunFilter {
  jobId?: string | null;
  jobKey?: string | null;
  status?: RunStatus[] | null;
  target?: string | null;
  triggerType?: TriggerType[] | null;
  scheduledAfter?: Date | null;
  scheduledBefore?: Date | null;
}

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
}

/** Builds the WHERE clause of a run filter; shared by `list`, `countByJob` and subscriptions. */
export function runFilterSql(filter: RunFilter, params: unknown[]): string[] {
  const where: string[] = [];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    where.push(sql.replace('?', `$${params.length}`));
  };
  checkText('filter.jobKey', filter.jobKey);
  checkText('filter.target', filter.target);
  if (filter.jobId) add('job_definition_id = ?', isUuid(filter.jobId) ? filter.jobId : '00000000-0000-0000-0000-000000000000');
  // A run's key is its job version's: the versions' runs are found through the job index.
  if (filter.jobKey) add('job_definition_id IN (SELECT id FROM cron_job_definitions WHERE job_key = ?)', filter.jobKey);
  if (filter.status?.length) add('status = ANY(?::text[])', filter.status);
  // A run's target is its job version's: found through the jobs' target index (runs have none).
  if (filter.target) add('job_definition_id IN (SELECT id FROM cron_job_definitions WHERE target = ?)', filter.target);
  if (filter.triggerType?.length) add('trigger_type = ANY(?::text[])', filter.triggerType);
  if (filter.scheduledAfter) add('scheduled_at > ?', filter.scheduledAfter);
  if (filter.scheduledBefore) add('scheduled_at < ?', filter.scheduledBefore);
  return where;
}

/** In-memory form of the same filter, for run events (subscriptions filter on the server). */
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

  async get(id: string): Promise<RunRecord | null> {
    if (!isUuid(id)) return null;
    return this.d.store.get(id);
  }

  /** Batched lookup (GraphQL dataloaders): runs in the order of `ids`, null where missing. */
  async getMany(ids: readonly string[]): Promise<(RunRecord | null)[]> {
    const valid = ids.filter(isUuid);
    const res = valid.length ? await this.d.pool.query(`SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE id = ANY($1::uuid[])`, [valid]) : { rows: [] };
    const byId = new Map(res.rows.map((row) => [row.id as string, rowToRun(row)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  async getOrThrow(id: string): Promise<RunRecord> {
    const run = await this.get(id);
    if (!run) throw new CronqlError('NOT_FOUND', `no run with id ${id}`, { id });
    return run;
  }

  async list(filter: RunFilter = {}, first?: number | null, after?: string | null): Promise<Page<RunRecord>> {
    const [page, totalCount] = await Promise.all([this.page(filter, first, after), this.count(filter)]);
    return { ...page, totalCount };
  }

  /** The runs matching `filter` (what `totalCount` says; counting a large history costs, so it is asked for apart). */
  async count(filter: RunFilter = {}): Promise<number> {
    const params: unknown[] = [];
    const where = runFilterSql(filter, params);
    const res = await this.d.pool.query(`SELECT count(*)::int AS n FROM cron_job_runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, params);
    return res.rows[0].n;
  }

  /**
   * One page of runs without counting the matches (`count` does). One job's runs (by key, over
   * all its versions) are read newest first per version and merged: a page reads at most a page
   * per version, however long the job's history is.
   */
  async page(filter: RunFilter = {}, first?: number | null, after?: string | null): Promise<Omit<Page<RunRecord>, 'totalCount'>> {
    const size = pageSize(first);
    const params: unknown[] = [];
    const byKey = filter.jobKey && !filter.jobId ? filter.jobKey : undefined;
    if (byKey) checkText('filter.jobKey', byKey);
    const where = runFilterSql(byKey ? { ...filter, jobKey: undefined } : filter, params);
    const position = decodeCursor(after);
    if (position) {
      params.push(position.at, position.id);
      where.push(`(scheduled_at, id) < ($${params.length - 1}, $${params.length}::uuid)`);
    }
    params.push(size + 1);
    const limit = `$${params.length}`;
    let text: string;
    if (byKey) {
      params.push(byKey);
      text = `SELECT r.* FROM (SELECT id FROM cron_job_definitions WHERE job_key = $${params.length}) v
        CROSS JOIN LATERAL (SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE ${['job_definition_id = v.id', ...where].join(' AND ')}
          ORDER BY scheduled_at DESC, id DESC LIMIT ${limit}) r
        ORDER BY r.scheduled_at DESC, r.id DESC LIMIT ${limit}`;
    } else {
      text = `SELECT ${RUN_COLUMNS} FROM cron_job_runs${where.length ? ` WHERE ${where.join(' AND ')}` : ''}
       ORDER BY scheduled_at DESC, id DESC LIMIT ${limit}`;
    }
    const rows = await this.d.pool.query(text, params);
    const { totalCount: _, ...page } = toPage(rows.rows.map(rowToRun), size, (r) => ({ at: r.scheduledAt, id: r.id }), 0);
    return page;
  }

  /**
   * Runs the job now: MANUAL, or AD_HOC with the given payload. With a run of the job still
   * active the job's overlap policy decides, as for a scheduled slot: SKIPPED (OVERLAP),
   * buffered, started in place of the active run, or started beside it.
   */
  async runNow(jobId: string, payload?: unknown): Promise<RunRecord> {
    if (payload !== undefined && payload !== null) validatePayload(payload, this.d.maxPayloadBytes);
    const made = isUuid(jobId) ? await this.d.store.insertManual(jobId, payload === null ? undefined : payload) : null;
    // Replaced runs running here stop now; those elsewhere were told by the store (NOTIFY).
    for (const old of made?.replaced ?? []) this.d.runtime?.abortRun(old.id, 'replaced by a run-now (overlap: CANCEL_PREVIOUS)');
    const run = made?.run;
    if (!run) {
      // Nothing inserted: the job is unknown or RETIRED; tell which.
      const job = await this.d.jobs.getOrThrow(jobId);
      throw new CronqlError('INVALID_STATE', `job ${job.jobKey} v${job.version} is ${job.status}`, { status: job.status });
    }
    if (run.status !== RunStatus.PENDING) return run;
    const [running] = (await this.d.runtime?.claimAndExecute([run.id])) ?? [];
    if (running) return running;
    // No runtime here (CRONQL_ROLE=api), or it is stopping: a scheduler instance claims it.
    await notify(this.d.pool, Channel.RUN_CREATED, run.id);
    return run;
  }

  /** PENDING|RUNNING → CANCELED; a handler in flight sees its AbortSignal fire. */
  async cancel(id: string): Promise<RunRecord> {
    const change = isUuid(id) ? await this.d.store.cancel(id) : null;
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
      const params: unknown[] = [jobIds, group.status, group.first + 1];
      let keyset = '';
      if (group.after) {
        params.push(group.after.at, group.after.id);
        keyset = 'AND (scheduled_at, id) < ($4, $5::uuid)';
      }
      const [rows, counts] = jobIds.length
        ? await Promise.all([
            this.d.pool.query(
              `SELECT r.* FROM unnest($1::uuid[]) AS j(id)
               CROSS JOIN LATERAL (
                 SELECT ${RUN_COLUMNS} FROM cron_job_runs
                 WHERE job_definition_id = j.id AND ($2::text[] IS NULL OR status = ANY($2::text[])) ${keyset}
                 ORDER BY scheduled_at DESC, id DESC LIMIT $3) r`,
              params,
            ),
            this.d.pool.query(
              `SELECT job_definition_id AS id, count(*)::int AS n FROM cron_job_runs
               WHERE job_definition_id = ANY($1::uuid[]) AND ($2::text[] IS NULL OR status = ANY($2::text[]))
               GROUP BY job_definition_id`,
              [jobIds, group.status],
            ),
          ])
        : [{ rows: [] }, { rows: [] }];
      const byJob = new Map<string, RunRecord[]>();
      for (const row of rows.rows) {
        const run = rowToRun(row);
        byJob.set(run.jobId, [...(byJob.get(run.jobId) ?? []), run]);
      }
      const totals = new Map(counts.rows.map((c) => [c.id as string, c.n as number]));
      for (const i of group.at) {
        const id = requests[i].jobId;
        pages[i] = toPage(byJob.get(id) ?? [], group.first, (r) => ({ at: r.scheduledAt, id: r.id }), totals.get(id) ?? 0);
      }
    }
    return pages;
  }

  /** Latest run per job (GraphQL `Job.lastRun`), batched: one query for many jobs. */
  async lastRuns(jobIds: readonly string[]): Promise<(RunRecord | null)[]> {
    const ids = jobIds.filter(isUuid);
    const res = ids.length
      ? await this.d.pool.query(
          `SELECT r.* FROM unnest($1::uuid[]) AS j(id)
           CROSS JOIN LATERAL (
             SELECT ${RUN_COLUMNS} FROM cron_job_runs WHERE job_definition_id = j.id
             ORDER BY scheduled_at DESC, id DESC LIMIT 1) r`,
          [ids],
        )
      : { rows: [] };
    const byJob = new Map(res.rows.map((row) => [row.job_definition_id as string, rowToRun(row)]));
    return jobIds.map((id) => byJob.get(id) ?? null);
  }
}
