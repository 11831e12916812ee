import { useState } from 'preact/hooks';
import { JobActions } from './actions.js';
import { JobHistory } from './AuditView.js';
import { BackfillPanel } from './BackfillPanel.js';
import { describeCron } from './describe.js';
import { formatTime } from './format.js';
import { useLiveRuns, useQuery, useResync, useThrottled } from './hooks.js';
import { Q, type JobDetail, type JobVersion, type PreviewedSlot } from './queries.js';
import { href } from './router.js';
import { RunsTable } from './RunsTable.js';
import { ErrorBox, Json, Labels, Status, Time } from './ui.js';

/**
 * A job's place among jobs that follow jobs: the upstreams it runs after (each at its current
 * version; RETIRED when gone) and the AFTER jobs that run after it.
 */
function Dependencies({ job }: { job: JobDetail }) {
  const { data } = useQuery(Q.dependents, {}, job.key);
  const dependents = (data?.jobs.nodes ?? []).filter((d) => d.after.some((u) => u.upstream.key === job.key));
  if (job.after.length === 0 && dependents.length === 0) return null;
  const outcome = (on: string) => (on === 'SUCCEEDED' ? 'when it succeeds' : on === 'FAILED' ? 'when it fails' : 'when it ends');
  return (
    <section aria-labelledby="deps-title" data-testid="dependencies">
      <h2 id="deps-title">Upstreams and dependents</h2>
      {job.after.length > 0 && (
        <>
          <h3>Runs after ({job.afterMode === 'ALL' ? 'all of them' : 'any of them'})</h3>
          <ul class="plain" data-testid="upstreams">
            {job.after.map((d) => (
              <li>
                <a href={href.job(d.upstream.id)} class="mono">
                  {d.upstream.key}
                </a>{' '}
                <Status value={d.upstream.status} /> <span class="muted">{outcome(d.on)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {dependents.length > 0 && (
        <>
          <h3>Followed by</h3>
          <ul class="plain" data-testid="dependents">
            {dependents.map((d) => (
              <li>
                <a href={href.job(d.id)} class="mono">
                  {d.key}
                </a>{' '}
                <Status value={d.status} /> <span class="muted">{outcome(d.after.find((u) => u.upstream.key === job.key)!.on)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

/** Job detail: the definition, the actions, every version, the next 10 slots, its history of changes (ADMIN) and the run history. */
export function JobDetailView({ id }: { id: string }) {
  const { data, error, reload } = useQuery(Q.job, { id }, id);
  const job = data?.job;
  const reloadSoon = useThrottled(reload, 1_000);
  useLiveRuns((batch) => {
    if (job && batch.some((r) => r.jobKey === job.key && r.jobVersion === job.version)) reloadSoon();
  });
  useResync(reload);

  if (error && !job) return <ErrorBox error={error} />;
  if (!data) return <p aria-busy="true">Loading…</p>;
  if (!job) return <p role="alert">No job with id {id}.</p>;
  const described = job.scheduleDescription ?? describeCron(job.cronExpression);
  return (
    <article aria-labelledby="job-title" class="detail" data-job-id={job.id} data-status={job.status}>
      <div class="view-head">
        <h1 id="job-title">
          <span class="mono">{job.key}</span> <span class="muted">v{job.version}</span> <Status value={job.status} />
        </h1>
        <JobActions job={job} onChanged={reload} />
      </div>
      {job.pauseReason && (
        <p class="pause-reason" data-testid="pause-reason">
          Paused: {job.pauseReason}
          {job.pausedUntil && (
            <>
              {' '}
              — resumes by itself at <Time iso={job.pausedUntil} />
            </>
          )}
        </p>
      )}
      {job.skipRemaining > 0 && (
        <p class="pause-reason" data-testid="skip-remaining">
          Its next {job.skipRemaining === 1 ? 'slot' : `${job.skipRemaining} slots`} will be skipped: {job.skipReason}
        </p>
      )}
      <div class="columns">
        <section aria-labelledby="def-title">
          <h2 id="def-title">Definition</h2>
          <dl class="props">
            <dt>Labels</dt>
            <dd data-testid="labels">
              <Labels value={job.labels} />
            </dd>
            {job.owner && (
              <>
                <dt>Owner</dt>
                <dd>{job.owner}</dd>
              </>
            )}
            {job.description && (
              <>
                <dt>Description</dt>
                <dd>{job.description}</dd>
              </>
            )}
            <dt>Target</dt>
            <dd class="mono">{job.target}</dd>
            <dt>Schedule</dt>
            <dd>
              {job.scheduleType === 'RECURRING' && (job.cronExpressions?.length ?? 0) > 1 ? (
                <ul class="plain" data-testid="schedules">
                  {job.cronExpressions!.map((expression, i) => (
                    <li>
                      <code>{expression}</code> {job.schedules[i] && <span class="muted">— {job.schedules[i]}</span>}
                    </li>
                  ))}
                </ul>
              ) : job.scheduleType === 'RECURRING' ? (
                <>
                  <code>{job.cronExpression}</code> {described && <span class="muted">— {described}</span>}
                </>
              ) : job.scheduleType === 'INTERVAL' ? (
                <>
                  <code>every {job.every}</code> <span class="muted">— {job.schedules[0]} (absolute time: no DST effect)</span>
                </>
              ) : job.scheduleType === 'AFTER' ? (
                <>
                  after {job.afterMode === 'ALL' ? 'all' : 'any'} of its upstreams
                  {job.afterMode === 'ALL' && job.afterWindowSeconds ? <span class="muted"> (within {job.afterWindowSeconds} s)</span> : null}
                </>
              ) : (
                <>
                  once, at <Time iso={job.runAt} />
                </>
              )}
            </dd>
            <dt>Time zone</dt>
            <dd>{job.timezone}</dd>
            {(job.startAt || job.endAt || job.maxRuns) && (
              <>
                <dt>Bounds</dt>
                <dd data-testid="bounds">
                  {job.startAt && (
                    <>
                      not before <Time iso={job.startAt} />{' '}
                    </>
                  )}
                  {job.endAt && (
                    <>
                      not after <Time iso={job.endAt} />{' '}
                    </>
                  )}
                  {job.maxRuns && <>at most {job.maxRuns} runs</>}
                  <span class="muted"> — then the job retires</span>
                </dd>
              </>
            )}
            {job.misfireGraceSeconds != null && (
              <>
                <dt>Misfire grace</dt>
                <dd>{job.misfireGraceSeconds} s</dd>
              </>
            )}
            <dt>Next run</dt>
            <dd>
              <Time iso={job.nextRunAt} />
            </dd>
            <dt>Last run</dt>
            <dd>
              {job.lastRun ? (
                <a href={href.run(job.lastRun.id)}>
                  <Status value={job.lastRun.status} /> <Time iso={job.lastRun.scheduledAt} />
                </a>
              ) : (
                'never'
              )}
            </dd>
            <dt>Failures in a row</dt>
            <dd>
              {job.consecutiveFailures}
              {job.pauseAfterFailures ? <span class="muted"> (pauses itself at {job.pauseAfterFailures})</span> : null}
            </dd>
            <dt>Last success / failure</dt>
            <dd>
              <Time iso={job.lastSuccessAt} /> / <Time iso={job.lastFailureAt} />
            </dd>
            <dt>Timeout</dt>
            <dd>{job.timeoutSeconds ? `${job.timeoutSeconds} s` : 'none'}</dd>
            <dt>Heartbeat timeout</dt>
            <dd>{job.heartbeatTimeoutSeconds ? `${job.heartbeatTimeoutSeconds} s without a beat` : 'none'}</dd>
            <dt>Missed slots</dt>
            <dd>
              catch-up {job.catchUp}
              {job.catchUpLimit ? ` (at most ${job.catchUpLimit})` : ''}
            </dd>
            <dt>Retries</dt>
            <dd data-testid="retry-policy">
              {job.retry
                ? `up to ${job.retry.maxAttempts} attempts, ${job.retry.backoff} backoff from ${job.retry.delaySeconds} s${job.retry.maxDelaySeconds !== null ? ` (at most ${job.retry.maxDelaySeconds} s)` : ''}${job.retry.retryOn ? ` on ${job.retry.retryOn.join(', ')}` : ''}`
                : 'none'}
            </dd>
            <dt>Overlap</dt>
            <dd data-testid="overlap-policy">
              {job.overlap}
              {job.overlap === 'ALLOW' ? ` (up to ${job.maxConcurrentRuns} at once)` : ''}
            </dd>
            <dt>Jitter</dt>
            <dd>{job.jitterSeconds ? `up to ${job.jitterSeconds} s after each slot` : 'none'}</dd>
            <dt>HTTP capture</dt>
            <dd>{job.captureBytes.toLocaleString('en')} bytes of the response body</dd>
            <dt>Calendars</dt>
            <dd data-testid="job-calendars">
              {job.calendars?.length
                ? job.calendars.map((name, i) => (
                    <>
                      {i > 0 && ', '}
                      <a href={href.calendars()}>{name}</a>
                    </>
                  ))
                : 'none'}
            </dd>
            <dt>Notifies</dt>
            <dd data-testid="job-notify">{job.notify?.length ? job.notify.join(', ') : 'the default channels'}</dd>
            <dt>Expect success within</dt>
            <dd>{job.expectSuccessWithinSeconds ? `${job.expectSuccessWithinSeconds.toLocaleString('en')} s of a slot (else JOB_LATE)` : 'no deadline'}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={job.createdAt} /> by {job.createdBy ?? '—'}
            </dd>
            <dt>Updated</dt>
            <dd>
              <Time iso={job.updatedAt} /> by {job.updatedBy ?? '—'}
            </dd>
          </dl>
          <h3>Payload</h3>
          <Json value={job.payload} label="Payload" />
        </section>
        <Dependencies job={job} />
        <section aria-labelledby="next-runs-title">
          <h2 id="next-runs-title">Next runs</h2>
          <p class="muted">The slots that will run: bounds, calendars, a pause that ends and skipped slots applied.</p>
          {job.nextRuns.length === 0 ? (
            <p>None: {job.status === 'ACTIVE' ? 'the schedule has no slot left' : `the job is ${job.status}`}.</p>
          ) : (
            <ol data-testid="next-runs">
              {job.nextRuns.map((at) => (
                <li>
                  <Time iso={at} />
                </li>
              ))}
            </ol>
          )}
        </section>
        <section aria-labelledby="preview-title">
          <h2 id="preview-title">Next slots of the expression</h2>
          <Preview job={job} />
        </section>
      </div>
      <Versions jobKey={job.key} currentId={job.id} />
      <BackfillPanel job={job} />
      <JobHistory jobKey={job.key} />
      <section aria-labelledby="history-title">
        <h2 id="history-title">Run history (all versions)</h2>
        <RunsTable filter={{ jobKey: job.key }} label="Run history" />
      </section>
    </article>
  );
}

/**
 * The next 10 slots from `previewScheduleSlots`, in the job's zone and in UTC, with the slots that
 * daylight-saving time moves (a gap) or makes ambiguous (a repeated hour) marked: of the job's
 * expression, or of the one chosen when it has several. An interval, a one-time job and an AFTER
 * job have no expression: a sentence says what they do instead (their slots are in "Next runs").
 */
function Preview({ job }: { job: JobDetail }) {
  const expressions = job.scheduleType === 'RECURRING' ? (job.cronExpressions?.length ? job.cronExpressions : job.cronExpression ? [job.cronExpression] : []) : [];
  const [chosen, setChosen] = useState(0);
  const expression = expressions[Math.min(chosen, expressions.length - 1)] as string | undefined;
  const [fromDate, setFromDate] = useState('');
  const from = /^\d{4}-\d{2}-\d{2}$/.test(fromDate) ? `${fromDate}T00:00:00Z` : undefined;
  const { data, error } = useQuery(
    Q.preview,
    expression ? { cronExpression: expression, timezone: job.timezone, count: 10, ...(from ? { from } : {}) } : null,
    `${expression}|${job.timezone}|${from}`,
  );
  if (!expression) {
    if (job.scheduleType === 'INTERVAL') {
      return (
        <p data-testid="preview-none">
          An interval: every {job.every} from <Time iso={job.anchorAt} />, in absolute time — daylight-saving time moves none of its slots. The
          slots that will run are under Next runs.
        </p>
      );
    }
    if (job.scheduleType === 'AFTER') return <p data-testid="preview-none">An AFTER job has no clock: it runs when its upstreams' runs end as it asks.</p>;
    return <p data-testid="preview-none">A one-time job: it runs once, at {formatTime(job.runAt, job.timezone, true)} ({job.timezone}).</p>;
  }
  return (
    <>
      {expressions.length > 1 && (
        <label class="preview-from">
          Expression{' '}
          <select name="previewExpression" value={String(chosen)} onChange={(e) => setChosen(Number((e.target as HTMLSelectElement).value))}>
            {expressions.map((e, i) => (
              <option value={String(i)}>{e}</option>
            ))}
          </select>
        </label>
      )}
      <label class="preview-from">
        From (UTC day; empty: now){' '}
        <input type="date" name="previewFrom" value={fromDate} onChange={(e) => setFromDate((e.target as HTMLInputElement).value)} />
      </label>
      <SlotTable
        slots={data?.previewScheduleSlots}
        error={error}
        timezone={job.timezone}
        note={job.status !== 'ACTIVE' ? `The job is ${job.status}: these are the slots it would have.` : undefined}
      />
    </>
  );
}

/**
 * Slots in the job's zone and in UTC, marked where daylight-saving time moved one (a gap) or
 * repeated its local time — as the server's schedule math says (`previewScheduleSlots`).
 */
export function SlotTable(props: { slots: PreviewedSlot[] | undefined; error: unknown; timezone: string; note?: string }) {
  if (props.error) return <ErrorBox error={props.error} />;
  if (!props.slots) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      {props.note && <p class="muted">{props.note}</p>}
      <table class="grid slots" data-testid="preview-table">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">{props.timezone}</th>
            <th scope="col">UTC</th>
            <th scope="col">DST</th>
          </tr>
        </thead>
        <tbody>
          {props.slots.map(({ at: slot, dstMark, dstNote }, i) => {
            const mark = dstMark?.toLowerCase();
            return (
              <tr data-slot={slot} data-mark={mark ?? ''} class={mark ? `mark-${mark}` : undefined}>
                <td class="num">{i + 1}</td>
                <td>{formatTime(slot, props.timezone, true)}</td>
                <td>{formatTime(slot, 'UTC')}</td>
                <td>
                  {mark && (
                    <span class={`dst dst-${mark}`} title={dstNote ?? undefined}>
                      {mark === 'shifted' ? 'shifted by DST gap' : 'repeated hour'}
                      <span class="small muted"> — {dstNote}</span>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** Every version of the key (the supersedes chain), newest first. */
function Versions({ jobKey, currentId }: { jobKey: string; currentId: string }) {
  const { data, error } = useQuery(Q.versions, { key: jobKey }, `${jobKey}|${currentId}`);
  const versions = (data?.jobs.nodes ?? []).slice().sort((a, b) => b.version - a.version);
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorBox error={error} />
      <table class="grid" data-testid="versions-table">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Status</th>
            <th scope="col">Schedule</th>
            <th scope="col">Target</th>
            <th scope="col">Supersedes</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((v) => (
            <tr aria-current={v.id === currentId ? 'page' : undefined}>
              <td>
                {v.id === currentId ? <strong>v{v.version}</strong> : <a href={href.job(v.id)}>v{v.version}</a>}
              </td>
              <td>
                <Status value={v.status} />
              </td>
              <td>
                {v.scheduleType === 'RECURRING' ? <code>{v.cronExpression}</code> : <Time iso={v.runAt} />} <span class="muted small">{v.timezone}</span>
              </td>
              <td class="mono">{v.target}</td>
              <td>{v.supersedes ? <a href={href.job(v.supersedes.id)}>v{v.supersedes.version}</a> : '—'}</td>
              <td>
                <Time iso={v.createdAt} /> <span class="muted small">{v.createdBy ?? ''}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
