import { useEffect, useState } from 'preact/hooks';
import { CancelRunButton } from './actions.js';
import { RunSlotAgain } from './BackfillPanel.js';
import { formatDuration } from './format.js';
import { useLiveRuns, useQuery, useResync, useThrottled } from './hooks.js';
import { Q, type RunDetail } from './queries.js';
import { RunLogs } from './RunLogs.js';
import { href } from './router.js';
import { ErrorBox, Json, Status, Time } from './ui.js';

/** One run: its timeline, the payload it ran with, its output or failure (code, message, details). */
export function RunDetailView({ id }: { id: string }) {
  const { data, error, reload } = useQuery(Q.run, { id }, id);
  const [run, setRun] = useState<RunDetail | null | undefined>(undefined);
  useEffect(() => setRun(data?.run), [data]);
  const reloadSoon = useThrottled(reload, 500);
  useLiveRuns((batch) => {
    const change = batch.find((r) => r.id === id);
    if (!change) return;
    // Status and times at once; output and failure details come with the reload.
    setRun((current) => (current ? { ...current, ...change } : current));
    reloadSoon();
  });
  useResync(reload);

  if (error && !run) return <ErrorBox error={error} />;
  if (run === undefined) return <p aria-busy="true">Loading…</p>;
  if (!run) return <p role="alert">No run with id {id}.</p>;
  return (
    <article aria-labelledby="run-title" class="detail" data-run-id={run.id} data-status={run.status}>
      <div class="view-head">
        <h1 id="run-title">
          Run of <a href={href.job(run.job.id)} class="mono">{run.jobKey}</a> <span class="muted">v{run.jobVersion}</span> <Status value={run.status} />
        </h1>
        <CancelRunButton run={run} onDone={(r) => setRun((current) => (current ? { ...current, ...r } : current))} />
        <RunSlotAgain run={run} />
      </div>
      <dl class="props">
        <dt>Trigger</dt>
        <dd>
          {run.triggerType}
          {run.triggeredBy && <span data-testid="triggered-by"> by {run.triggeredBy}</span>}
        </dd>
        <dt>Target</dt>
        <dd class="mono">{run.target}</dd>
        <dt>Scheduled at</dt>
        <dd>
          <Time iso={run.scheduledAt} />
        </dd>
        <dt>Started at</dt>
        <dd>
          <Time iso={run.startedAt} />
        </dd>
        <dt>Finished at</dt>
        <dd>
          <Time iso={run.finishedAt} />
        </dd>
        <dt>Duration</dt>
        <dd>{formatDuration(run.durationMs)}</dd>
        <dt>Attempt</dt>
        <dd data-testid="attempt">
          {run.attempt}
          {run.retryOf && (
            <>
              {' '}— retries <a href={href.run(run.retryOf.id)}>attempt {run.retryOf.attempt}</a>
            </>
          )}
          {run.nextAttemptAt && (
            <>
              {' '}— starts <Time iso={run.nextAttemptAt} />
            </>
          )}
        </dd>
        {run.upstreamRuns.length > 0 && (
          <>
            <dt>After</dt>
            <dd data-testid="upstream-runs">
              {run.upstreamRuns.map((u, i) => (
                <>
                  {i > 0 && ', '}
                  <a href={href.run(u.id)} class="mono">
                    {u.jobKey}
                  </a>{' '}
                  <Status value={u.status} /> <Time iso={u.finishedAt} />
                </>
              ))}
            </dd>
          </>
        )}
        {(run.progress != null || run.progressMessage != null) && (
          <>
            <dt>Progress</dt>
            <dd data-testid="progress">
              {run.progress != null && (
                <>
                  <progress max={100} value={run.progress} aria-label="Progress" /> {Math.round(run.progress * 10) / 10}%{' '}
                </>
              )}
              {run.progressMessage && <span class="muted">{run.progressMessage}</span>}
            </dd>
          </>
        )}
        {run.heartbeatAt && (
          <>
            <dt>Last heartbeat</dt>
            <dd>
              <Time iso={run.heartbeatAt} />
            </dd>
          </>
        )}
        <dt>Runner</dt>
        <dd class="mono">{run.runnerInstanceId ?? '—'}</dd>
        <dt>Run id</dt>
        <dd class="mono">{run.id}</dd>
      </dl>
      {(run.failureCode || run.failureMessage) && (
        <section aria-labelledby="failure-title" class="failure-box">
          <h2 id="failure-title">{run.status === 'SKIPPED' ? 'Why it was skipped' : 'Failure'}</h2>
          <p>
            <strong class="code" data-testid="failure-code">
              {run.failureCode ?? '—'}
            </strong>{' '}
            {run.failureMessage}
          </p>
          {run.failureDetails != null && <Json value={run.failureDetails} label="Failure details" />}
        </section>
      )}
      <div class="columns">
        <section aria-labelledby="payload-title">
          <h2 id="payload-title">Payload snapshot</h2>
          <Json value={run.payloadSnapshot} label="Payload snapshot" />
        </section>
        <section aria-labelledby="output-title">
          <h2 id="output-title">Output</h2>
          <Json value={run.output} label="Output" />
        </section>
      </div>
      <RunLogs key={run.id} runId={run.id} status={run.status} />
    </article>
  );
}
