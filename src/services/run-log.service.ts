import { CronqlError } from '../errors.js';
import type { Pool } from '../db/pool.js';
import { LAST_SEQUENCE, logPosition, pageLogsOfRuns, readRanges } from '../db/run-logs.js';
import { isTerminal } from '../domain/enums.js';
import { isUuid } from '../domain/ids.js';
import { RUN_LOG_PAGE_SIZE, type RunLogLine } from '../domain/run-log.js';
import type { RunLogEvents } from '../runtime/run-log-events.js';
import type { RunEvents } from '../runtime/run-events.js';
import { pageSize } from './pagination.js';
import { EVERY_JOB, type Scope } from '../domain/scope.js';
import type { RunRecord } from '../domain/run.js';

export interface RunLogsRequest {
  runId: string;
  first?: number | null;
  after?: string | null;
}

/** One page of a run's log (`Run.logs`). */
export interface RunLogPage {
  nodes: RunLogLine[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  /** Lines were dropped past the bound (the last line says how many). */
  truncated: boolean;
}

export interface RunLogServiceDeps {
  pool: Pool;
  /** Run state changes (a followed run's end completes its stream). */
  runEvents: RunEvents;
  /** Lines stored, by run (this instance's, and other instances' through the relay). */
  logEvents: RunLogEvents;
  /** Runs by id as a caller of a scope sees them (null outside it): services/run.service.ts. */
  runs?: { get(id: string, scope: Scope): Promise<RunRecord | null> };
}

/** `after` of `Run.logs`: the sequence of the last line read, as the API returned it. */
function decodeAfter(after: string | null | undefined): number {
  if (after == null || after === '') return 0;
  if (!/^\d{1,10}$/.test(after) || Number(after) > LAST_SEQUENCE) {
    throw new CronqlError('BAD_USER_INPUT', 'after is not a cursor returned by this API', { field: 'after' });
  }
  return Number(after);
}

/**
 * Run logs (docs/run-logs.md): pages of a run's lines, and a run's lines followed live. The
 * lines themselves are written by the runtime (runtime/run-log-writer.ts).
 */
export class RunLogService {
  constructor(private readonly d: RunLogServiceDeps) {}

  /**
   * A page of each run's log (GraphQL `Run.logs` under a page of runs), batched: requests that
   * share `first` and `after` cost one statement together.
   */
  async pages(requests: readonly RunLogsRequest[]): Promise<RunLogPage[]> {
    const groups = new Map<string, { size: number; after: number; at: number[] }>();
    requests.forEach((r, i) => {
      const key = JSON.stringify([r.first ?? null, r.after ?? null]);
      const group = groups.get(key) ?? { size: pageSize(r.first, RUN_LOG_PAGE_SIZE), after: decodeAfter(r.after), at: [] };
      group.at.push(i);
      groups.set(key, group);
    });
    const pages: RunLogPage[] = new Array(requests.length);
    for (const group of groups.values()) {
      const ids = [...new Set(group.at.map((i) => requests[i].runId).filter(isUuid))];
      const { lines, truncated } = await pageLogsOfRuns(this.d.pool, ids, group.after, group.size + 1);
      for (const i of group.at) {
        const id = requests[i].runId;
        const all = lines.get(id) ?? [];
        const nodes = all.slice(0, group.size);
        pages[i] = {
          nodes,
          pageInfo: { hasNextPage: all.length > group.size, endCursor: nodes.length ? String(nodes[nodes.length - 1].sequence) : null },
          truncated: truncated.has(id),
        };
      }
    }
    return pages;
  }

  /**
   * The run's lines from now on, in order, as they are stored (here or on another instance);
   * completes once the run has ended and every line is delivered. A run already ended completes
   * at once: its lines are read with `Run.logs`. A gap (a notification lost while the connection
   * that receives them was away) is filled from the table, and at the run's end whatever has not
   * arrived yet is read: the stream misses nothing written after it started. Bounded by
   * construction: a run keeps at most 1,001 lines, so the queue never holds more.
   * @throws NOT_FOUND when there is no such run, or it is outside `scope`
   */
  async follow(runId: string, scope: Scope = EVERY_JOB): Promise<AsyncIterableIterator<RunLogLine>> {
    if (!isUuid(runId)) throw new CronqlError('NOT_FOUND', `no run with id ${runId}`, { id: runId });
    // A run outside the caller's scope does not exist for it (a run's job never changes: checked once).
    if (scope && !(await this.d.runs?.get(runId, scope))) throw new CronqlError('NOT_FOUND', `no run with id ${runId}`, { id: runId });
    const { pool, runEvents, logEvents } = this.d;
    const queue: RunLogLine[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let failure: unknown;
    /** The next sequence to deliver; set by the first read. */
    let next = 1;
    // Every step in order: the first read, lines as they come, the end.
    let steps: Promise<void> = Promise.resolve();
    const step = (work: () => Promise<void>) => {
      steps = steps.then(() => (done ? undefined : work())).catch((err) => {
        failure = err;
        finish();
      });
    };
    const push = (lines: readonly RunLogLine[]) => {
      for (const line of lines) {
        if (line.sequence < next) continue; // delivered already (a read and a notification overlap)
        queue.push(line);
        next = line.sequence + 1;
      }
      wake?.();
    };
    const finish = () => {
      done = true;
      offLines();
      offRun();
      wake?.();
    };
    const offLines = logEvents.on(runId, (lines) =>
      step(async () => {
        if (lines[0].sequence > next) push(await readRanges(pool, [{ runId, from: next, to: lines[0].sequence - 1 }]));
        push(lines);
      }),
    );
    const offRun = runEvents.on((change) => {
      if (change.run.id !== runId || !isTerminal(change.run.status)) return;
      step(async () => {
        push(await readRanges(pool, [{ runId, from: next, to: LAST_SEQUENCE }]));
        finish();
      });
    });
    let found = true;
    step(async () => {
      const position = await logPosition(pool, runId);
      if (!position) found = false;
      if (!position || isTerminal(position.status)) return finish();
      next = position.last + 1;
    });
    await steps;
    if (!found) throw new CronqlError('NOT_FOUND', `no run with id ${runId}`, { id: runId });
    if (failure) throw failure;
    const feed: AsyncIterableIterator<RunLogLine> = {
      [Symbol.asyncIterator]() {
        return feed;
      },
      async next(): Promise<IteratorResult<RunLogLine>> {
        while (queue.length === 0 && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        const line = queue.shift();
        if (line) return { value: line, done: false };
        if (failure) {
          const err = failure;
          failure = undefined;
          throw err;
        }
        return { value: undefined, done: true };
      },
      async return(): Promise<IteratorResult<RunLogLine>> {
        queue.length = 0;
        finish();
        return { value: undefined, done: true };
      },
      async throw(err: unknown): Promise<IteratorResult<RunLogLine>> {
        queue.length = 0;
        finish();
        throw err;
      },
    };
    return feed;
  }
}
