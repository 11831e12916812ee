import { useEffect, useRef, useState } from 'preact/hooks';
import { useLiveRuns, useQuery, useResync } from './hooks.js';
import { formatDuration } from './format.js';
import { usePaging } from './paging.js';
import { Q, type Connection, type RunFilter, type RunRow } from './queries.js';
import { href } from './router.js';
import { mergeRuns } from './run-filter.js';
import { CancelRunButton } from './actions.js';
import { ErrorBox, Pager, Status, Time } from './ui.js';

/**
 * Runs as a table (docs/product.md's Execution Jobs columns plus job key/version and trigger), paged,
 * kept live from the feed: new runs appear at the top of the first page and statuses change in
 * place, without reloading.
 */
export function RunsTable({ filter, label, showJob = true }: { filter: RunFilter; label: string; showJob?: boolean }) {
  const filterKey = JSON.stringify(filter);
  const paging = usePaging(filterKey);
  const { data, error, loading, reload } = useQuery(
    Q.runs,
    { filter, first: paging.size, after: paging.after },
    `${filterKey}|${paging.size}|${paging.after}`,
  );
  const [rows, setRows] = useState<RunRow[]>([]);
  const [total, setTotal] = useState(0);
  const known = useRef(new Set<string>());
  useEffect(() => {
    if (!data) return;
    setRows(data.runs.nodes);
    setTotal(data.runs.totalCount);
    known.current = new Set(data.runs.nodes.map((r) => r.id));
  }, [data]);

  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  useLiveRuns((batch) => {
    if (!data) return;
    const merged = mergeRuns(rowsRef.current, batch, filter, paging.page === 0, paging.size, known.current);
    if (merged.rows !== rowsRef.current) {
      rowsRef.current = merged.rows;
      setRows(merged.rows);
    }
    if (merged.added || merged.removed) setTotal((t) => Math.max(0, t + merged.added - merged.removed));
  });
  useResync(reload);

  return (
    <section class="runs" aria-label={label} aria-busy={loading}>
      <ErrorBox error={error} />
      <div class="table-wrap">
        <table class="grid" data-testid="runs-table">
          <thead>
            <tr>
              {showJob && <th scope="col">Job</th>}
              <th scope="col">Target</th>
              <th scope="col">Trigger</th>
              <th scope="col">Status</th>
              <th scope="col">Scheduled at</th>
              <th scope="col">Started at</th>
              <th scope="col">Finished at</th>
              <th scope="col">Duration</th>
              <th scope="col">Failure reason</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((run) => (
              <tr key={run.id} data-run-id={run.id} data-status={run.status} data-trigger={run.triggerType}>
                {showJob && (
                  <td>
                    <a href={href.run(run.id)} class="mono">
                      {run.jobKey}
                    </a>{' '}
                    <span class="muted">v{run.jobVersion}</span>
                  </td>
                )}
                <td class="mono">{run.target}</td>
                <td>{run.triggerType}</td>
                <td>
                  <Status value={run.status} />
                </td>
                <td>
                  <Time iso={run.scheduledAt} />
                </td>
                <td>
                  <Time iso={run.startedAt} />
                </td>
                <td>
                  <Time iso={run.finishedAt} />
                </td>
                <td class="num">{formatDuration(run.durationMs)}</td>
                <td class="failure" title={run.failureMessage ?? undefined}>
                  {run.failureCode ? <span class="code">{run.failureCode}</span> : null} {run.failureMessage ? <span class="muted">{truncate(run.failureMessage, 80)}</span> : null}
                </td>
                <td>
                  <div class="row-actions">
                    <a href={href.run(run.id)}>Details</a>
                    <CancelRunButton run={run} onDone={(r) => setRows((rs) => rs.map((x) => (x.id === r.id ? { ...x, ...r } : x)))} />
                  </div>
                </td>
              </tr>
            ))}
            {rows.length === 0 && !loading && (
              <tr>
                <td colSpan={showJob ? 10 : 9} class="empty">
                  No runs match.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        label={label}
        total={total}
        shown={rows.length}
        page={paging.page}
        pageInfo={data?.runs.pageInfo}
        pageSize={paging.size}
        onPageSize={paging.setSize}
        onPrevious={paging.previous}
        onNext={() => paging.next(data?.runs.pageInfo.endCursor)}
      />
    </section>
  );
}

const truncate = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
