import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { describeCron } from './describe.js';
import { formatRelative } from './format.js';
import { useLiveRuns, useNow, useQuery, useResync, useThrottled } from './hooks.js';
import { usePaging } from './paging.js';
import { JOB_STATUSES, Q, type Connection, type JobFilter, type JobRow, type JobStatus } from './queries.js';
import { href } from './router.js';
import { useSession } from './session-context.js';
import { CheckboxGroup, ErrorBox, Labels, Pager, Status, Time } from './ui.js';
import { BulkActions } from './BulkActions.js';

/** How often a page of jobs is reloaded at most while their runs change (next run, failures). */
const RELOAD_EVERY_MS = 2_000;

/**
 * View A, Scheduled Jobs: docs/product.md's columns (key, version, target, schedule type and
 * expression, status, last run status and time, next run) plus time zone, a description of the
 * expression, pause reason, consecutive failures and labels. Filters: status, target, key search,
 * label selector (with "Pause matching…" / "Resume matching…", BulkActions.tsx).
 * Live: a run change of a listed job updates its last run at once, and the page is reloaded (at
 * most every 2 s) so "next run" and the failure count follow.
 */
export function JobsView() {
  const { targets, role } = useSession();
  const [status, setStatus] = useState<JobStatus[]>(['ACTIVE', 'PAUSED']);
  const [target, setTarget] = useState('');
  const [search, setSearch] = useState('');
  const [keyContains, setKeyContains] = useState('');
  const [selectorText, setSelectorText] = useState('');
  const [labelSelector, setLabelSelector] = useState('');
  const searchTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const selectorTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const filter: JobFilter = useMemo(
    () => ({
      ...(status.length ? { status } : {}),
      ...(target ? { target } : {}),
      ...(keyContains ? { keyContains } : {}),
      ...(labelSelector ? { labelSelector } : {}),
    }),
    [status, target, keyContains, labelSelector],
  );
  const filterKey = JSON.stringify(filter);
  const paging = usePaging(filterKey);
  const { data, error, loading, reload } = useQuery(
    Q.jobs,
    { filter, first: paging.size, after: paging.after },
    `${filterKey}|${paging.size}|${paging.after}`,
  );
  const [patched, setPatched] = useState<Map<string, JobRow['lastRun']>>(new Map());
  // Fresh rows carry their own last run: live patches apply until the next reload.
  useEffect(() => setPatched(new Map()), [data]);
  const rows = data?.jobs.nodes ?? [];
  const byVersion = useMemo(() => new Map(rows.map((j) => [`${j.key}\u0000${j.version}`, j])), [rows]);
  const reloadSoon = useThrottled(reload, RELOAD_EVERY_MS);
  const now = useNow(1000);

  useLiveRuns((batch) => {
    let touched = false;
    let next: Map<string, JobRow['lastRun']> | null = null;
    for (const run of batch) {
      const job = byVersion.get(`${run.jobKey}\u0000${run.jobVersion}`);
      if (!job) continue;
      touched = true;
      const last = (next ?? patched).get(job.id) ?? job.lastRun;
      if (!last || last.id === run.id || run.scheduledAt >= last.scheduledAt) {
        next ??= new Map(patched);
        next.set(job.id, { id: run.id, status: run.status, scheduledAt: run.scheduledAt, finishedAt: run.finishedAt });
      }
    }
    if (next) setPatched(next);
    if (touched) reloadSoon();
  });
  useResync(reload);

  return (
    <section aria-labelledby="jobs-title">
      <div class="view-head">
        <h1 id="jobs-title">Scheduled jobs</h1>
        {role === 'ADMIN' && (
          <a class="button primary" href={href.newJob()}>
            New job…
          </a>
        )}
      </div>
      <form class="filters" role="search" aria-label="Filter jobs" onSubmit={(e) => e.preventDefault()}>
        <CheckboxGroup legend="Status" name="job-status" options={JOB_STATUSES} value={status} onChange={setStatus} />
        <label>
          Target{' '}
          <select value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
            <option value="">any</option>
            {targets.map((t) => (
              <option value={t.name}>{t.name}</option>
            ))}
          </select>
        </label>
        <label>
          Key contains{' '}
          <input
            type="search"
            name="key"
            value={search}
            placeholder="e.g. billing"
            onInput={(e) => {
              const value = (e.target as HTMLInputElement).value;
              setSearch(value);
              clearTimeout(searchTimer.current);
              searchTimer.current = setTimeout(() => setKeyContains(value.trim()), 250);
            }}
          />
        </label>
        <label>
          Labels{' '}
          <input
            type="search"
            name="labelSelector"
            class="mono"
            value={selectorText}
            placeholder="team=billing,env!=dev"
            onInput={(e) => {
              const value = (e.target as HTMLInputElement).value;
              setSelectorText(value);
              clearTimeout(selectorTimer.current);
              selectorTimer.current = setTimeout(() => setLabelSelector(value.trim()), 300);
            }}
          />
        </label>
      </form>
      {role !== 'VIEWER' && <BulkActions selector={labelSelector} onDone={reload} />}
      <ErrorBox error={error} />
      <div class="table-wrap">
        <table class="grid" data-testid="jobs-table" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col">Job key</th>
              <th scope="col">Version</th>
              <th scope="col">Target</th>
              <th scope="col">Labels</th>
              <th scope="col">Schedule</th>
              <th scope="col">Time zone</th>
              <th scope="col">Status</th>
              <th scope="col">Failures in a row</th>
              <th scope="col">Last run</th>
              <th scope="col">Next run</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((job) => {
              const lastRun = patched.get(job.id) ?? job.lastRun;
              const described = job.scheduleType === 'RECURRING' ? describeCron(job.cronExpression) : null;
              return (
                <tr key={job.id} data-job-id={job.id} data-job-key={job.key} data-status={job.status}>
                  <td>
                    <a href={href.job(job.id)} class="mono">
                      {job.key}
                    </a>
                  </td>
                  <td class="num">v{job.version}</td>
                  <td class="mono">{job.target}</td>
                  <td class="labels">
                    <Labels value={job.labels} />
                  </td>
                  <td>
                    {job.scheduleType === 'RECURRING' ? (
                      <>
                        <code>{job.cronExpression}</code>
                        {described && <div class="muted small">{described}</div>}
                      </>
                    ) : job.scheduleType === 'INTERVAL' ? (
                      <>
                        <span class="tag">INTERVAL</span> <code>every {job.every}</code>
                      </>
                    ) : job.scheduleType === 'AFTER' ? (
                      <>
                        <span class="tag">AFTER</span> <span class="mono">{job.after.map((d) => d.upstream.key).join(job.afterMode === 'ALL' ? ' + ' : ', ')}</span>
                      </>
                    ) : (
                      <>
                        <span class="tag">ONE_TIME</span> <Time iso={job.runAt} />
                      </>
                    )}
                  </td>
                  <td class="small">{job.timezone}</td>
                  <td>
                    <Status value={job.status} />
                    {job.pauseReason && <div class="muted small pause-reason">{job.pauseReason}</div>}
                  </td>
                  <td class={`num ${job.consecutiveFailures > 0 ? 'bad' : ''}`}>{job.consecutiveFailures}</td>
                  <td class="last-run">
                    {lastRun ? (
                      <>
                        <Status value={lastRun.status} /> <Time iso={lastRun.scheduledAt} />
                      </>
                    ) : (
                      <span class="muted">never</span>
                    )}
                  </td>
                  <td class="next-run">
                    <Time iso={job.nextRunAt} />
                    {job.nextRunAt && <div class="muted small">{formatRelative(job.nextRunAt, now)}</div>}
                  </td>
                </tr>
              );
            })}
            {rows.length === 0 && !loading && (
              <tr>
                <td colSpan={10} class="empty">
                  No jobs match.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <Pager
        label="Jobs"
        total={data?.jobs.totalCount ?? 0}
        shown={rows.length}
        page={paging.page}
        pageInfo={data?.jobs.pageInfo}
        pageSize={paging.size}
        onPageSize={paging.setSize}
        onPrevious={paging.previous}
        onNext={() => paging.next(data?.jobs.pageInfo.endCursor)}
      />
    </section>
  );
}
