import { useEffect, useRef, useState } from 'preact/hooks';
import { useResync } from './hooks.js';
import { Q, type LogLine, type RunLogsAnswer, type RunStatus } from './queries.js';
import { useSession } from './session-context.js';
import { ErrorBox, Time } from './ui.js';

const ACTIVE: RunStatus[] = ['PENDING', 'RUNNING'];

/**
 * A run's log (docs/run-logs.md): every line it kept, and, while the run is active, the lines
 * as they are written. The live subscription is opened first and the pages read after it, then
 * the two are merged by sequence: no line is missed between the read and the stream, none shown
 * twice. The subscription completes when the run ends; the log is read once more then (whether
 * lines were dropped), and after a reconnection (lines may have been written meanwhile).
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
    if (active && !ended.current) {
      setFollowing(true);
      stop = live.followLogs(runId, {
        line: (line) => !gone && merge([line]),
        done: () => {
          if (gone) return;
          ended.current = true;
          setFollowing(false);
          setTick((t) => t + 1); // read again: the drop line and `truncated` are final now
        },
      });
    }
    void (async () => {
      try {
        let after: string | null = null;
        for (;;) {
          const { run }: RunLogsAnswer = await api.request(Q.runLogs, { id: runId, after });
          if (gone || !run) break;
          merge(run.logs.nodes);
          setTruncated(run.logs.truncated);
          if (!run.logs.pageInfo.hasNextPage) break;
          after = run.logs.pageInfo.endCursor;
        }
        if (!gone) setLoaded(true);
      } catch (err) {
        if (!gone) setError(err);
      }
    })();
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
