import { useEffect, useRef, useState } from 'preact/hooks';
import { useResync } from './hooks.js';
import { Q, type LogLine, type RunLogsAnswer, type RunStatus } from './queries.js';
import { useSession } from './session-context.js';
import { ErrorBox, Time } from './ui.js';

const ACTIVE: RunStatus[] = ['PENDING', 'RUNNING'];

/**
 * A run's log (docs/run-logs.md): every line it kept, and, while the run is active, the lines
 * as they are written (runLogs, on the page's live connection), merged by sequence: none shown
 * twice, and a gap between what the pages had and where the stream started is read from the
 * pages. The stream completes when the run ends; the log is read once more then (the drop line,
 * `truncated`), and after a reconnection (lines may have been written meanwhile).
 */
export function RunLogs({ runId, status }: { runId: string; status: RunStatus }) {
  const { api, live } = useSession();
  const [lines, setLines] = useState<LogLine[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [following, setFollowing] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [loaded, setLoaded] = useState(false);
  const [tick, setTick] = useState(0);
  const list = useRef<HTMLOListElement>(null);
  /** Whether the list was scrolled to its end: new lines then keep it there. */
  const atEnd = useRef(true);
  /** The stream completed: the run has ended, nothing more to follow. */
  const ended = useRef(false);
  // Followed from the first render while the run is active; a run that ends completes the stream.
  const active = ACTIVE.includes(status);

  const merge = (more: readonly LogLine[]) =>
    setLines((current) => {
      const bySequence = new Map(current.map((l) => [l.sequence, l]));
      for (const line of more) bySequence.set(line.sequence, line);
      return [...bySequence.values()].sort((a, b) => a.sequence - b.sequence);
    });

  useEffect(() => {
    let gone = false;
    let stop = () => {};
    /** The highest sequence shown by this round (a page and the stream overlap). */
    let last = 0;
    // One step at a time, in order: the pages, each streamed line, the end.
    let steps: Promise<void> = Promise.resolve();
    const step = (work: () => Promise<void>) => {
      steps = steps.then(() => (gone ? undefined : work())).catch((err: unknown) => {
        if (!gone) setError(err);
      });
    };
    const show = (more: readonly LogLine[]) => {
      const fresh = more.filter((l) => l.sequence > last);
      if (fresh.length === 0) return;
      last = fresh[fresh.length - 1].sequence;
      merge(fresh);
    };
    /** Every line after the last shown, a page at a time. */
    const catchUp = async () => {
      for (;;) {
        const { run }: RunLogsAnswer = await api.request(Q.runLogs, { id: runId, after: last ? String(last) : null });
        if (gone || !run) break;
        show(run.logs.nodes);
        setTruncated(run.logs.truncated);
        if (!run.logs.pageInfo.hasNextPage) break;
      }
      if (!gone) setLoaded(true);
    };
    step(catchUp);
    if (active && !ended.current) {
      setFollowing(true);
      // The stream starts when the server has subscribed (not acknowledged): a line past the next
      // one expected means lines were written in between, read first; at the end, the pages once
      // more (the drop line, `truncated`).
      stop = live.followLogs(runId, {
        line: (line) =>
          step(async () => {
            if (line.sequence > last + 1) await catchUp();
            show([line]);
          }),
        done: (failed) =>
          step(async () => {
            if (!failed) ended.current = true;
            setFollowing(false);
            await catchUp();
          }),
      });
    }
    return () => {
      gone = true;
      stop();
    };
    // `active` only decides at the start: the stream itself says when the run ended.
  }, [api, live, runId, tick]);
  useResync(() => setTick((t) => t + 1));

  useEffect(() => {
    const el = list.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <section aria-labelledby="logs-title" class="run-logs" data-testid="run-logs" data-following={following ? 'true' : 'false'} data-lines={lines.length}>
      <h2 id="logs-title">
        Logs{' '}
        {following && (
          <span class="live live-live small" role="status">
            <span class="dot" aria-hidden="true" /> following
          </span>
        )}
      </h2>
      {error !== undefined && <ErrorBox error={error} />}
      {loaded && lines.length === 0 && <p class="muted">{following ? 'No line yet.' : 'The handler wrote no line with ctx.log.'}</p>}
      {lines.length > 0 && (
        <ol
          class="log"
          ref={list}
          aria-label="Log lines"
          onScroll={(e) => {
            const el = e.currentTarget;
            atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
          }}
        >
          {lines.map((line) => (
            <li key={line.sequence} data-sequence={line.sequence} data-level={line.level} class={`log-${line.level}`}>
              <span class="log-at">
                <Time iso={line.at} />
              </span>{' '}
              <span class="log-level">{line.level}</span> <span class="log-message">{line.message}</span>
              {line.fields != null && <code class="log-fields">{JSON.stringify(line.fields)}</code>}
            </li>
          ))}
        </ol>
      )}
      {truncated && <p class="muted small">Lines past the bound (1,000 lines / 256 KiB) were not kept: the last line says how many.</p>}
    </section>
  );
}
