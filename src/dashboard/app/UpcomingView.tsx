import { useState } from 'preact/hooks';
import { useQuery } from './hooks.js';
import { Q } from './queries.js';
import { href } from './router.js';
import { ErrorBox, Time } from './ui.js';

/** How far ahead the view looks, in hours (the choices offered). */
const WINDOWS = [1, 6, 12, 24, 72, 168];

/**
 * "What runs tonight?": every job's slots that will run in the next hours, in time order, as the
 * server's `upcoming` answers (bounds, calendars, pauses that end and skipped slots applied; the
 * start with the job's jitter). 50 at a time, "More" reads the next page by its cursor.
 */
export function UpcomingView() {
  const [hours, setHours] = useState(24);
  const [keyContains, setKeyContains] = useState('');
  const [pages, setPages] = useState<string[]>([]);
  // The window is fixed when it is chosen, so the pages read one after another agree.
  const [to, setTo] = useState(() => new Date(Date.now() + 24 * 3_600_000).toISOString());
  const choose = (h: number) => {
    setHours(h);
    setPages([]);
    setTo(new Date(Date.now() + h * 3_600_000).toISOString());
  };
  return (
    <section aria-labelledby="upcoming-title">
      <h1 id="upcoming-title">Upcoming</h1>
      <div class="filters">
        <label>
          Next{' '}
          <select name="window" value={String(hours)} onChange={(e) => choose(Number((e.target as HTMLSelectElement).value))}>
            {WINDOWS.map((h) => (
              <option value={String(h)}>{h < 48 ? `${h} h` : `${h / 24} days`}</option>
            ))}
          </select>
        </label>
        <label>
          Key contains{' '}
          <input
            name="keyContains"
            value={keyContains}
            onInput={(e) => {
              setKeyContains((e.target as HTMLInputElement).value);
              setPages([]);
            }}
          />
        </label>
      </div>
      <table data-testid="upcoming-table">
        <thead>
          <tr>
            <th scope="col">Slot</th>
            <th scope="col">Starts</th>
            <th scope="col">Job</th>
            <th scope="col">Target</th>
          </tr>
        </thead>
        {[null, ...pages].map((after) => (
          <UpcomingPage to={to} keyContains={keyContains} after={after} onMore={(cursor) => setPages((p) => (p.includes(cursor) ? p : [...p, cursor]))} last={after === (pages.at(-1) ?? null)} />
        ))}
      </table>
    </section>
  );
}

function UpcomingPage(props: { to: string; keyContains: string; after: string | null; last: boolean; onMore(cursor: string): void }) {
  const filter = props.keyContains.trim() ? { keyContains: props.keyContains.trim() } : undefined;
  const { data, error } = useQuery(Q.upcoming, { to: props.to, filter, first: 50, after: props.after }, `${props.to}|${props.keyContains}|${props.after}`);
  if (error) {
    return (
      <tbody>
        <tr>
          <td colSpan={4}>
            <ErrorBox error={error} />
          </td>
        </tr>
      </tbody>
    );
  }
  if (!data) {
    return (
      <tbody>
        <tr>
          <td colSpan={4} aria-busy="true">
            Loading…
          </td>
        </tr>
      </tbody>
    );
  }
  const { nodes, pageInfo } = data.upcoming;
  return (
    <tbody>
      {nodes.length === 0 && props.after === null && (
        <tr>
          <td colSpan={4}>Nothing runs in this window.</td>
        </tr>
      )}
      {nodes.map((n) => (
        <tr data-job-key={n.job.key}>
          <td>
            <Time iso={n.slot} />
          </td>
          <td>{n.dueAt === n.slot ? 'at the slot' : <Time iso={n.dueAt} />}</td>
          <td>
            <a href={href.job(n.job.id)}>{n.job.key}</a>
          </td>
          <td>{n.job.target}</td>
        </tr>
      ))}
      {props.last && pageInfo.hasNextPage && pageInfo.endCursor && (
        <tr>
          <td colSpan={4}>
            <button type="button" onClick={() => props.onMore(pageInfo.endCursor!)}>
              More
            </button>
          </td>
        </tr>
      )}
    </tbody>
  );
}
