import { useMemo, useRef, useState } from 'preact/hooks';
import { useQuery } from './hooks.js';
import { usePaging } from './paging.js';
import { Q, type AuditRow } from './queries.js';
import { useSession } from './session-context.js';
import { ErrorBox, Pager, Time } from './ui.js';

/** What the audit log is filtered by (`AuditFilter`). */
interface AuditFilter {
  actor?: string;
  action?: string[];
  jobKey?: string;
  after?: string;
  before?: string;
}

/** `datetime-local` value (browser zone) → ISO instant, or undefined. */
const toInstant = (local: string) => {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

/**
 * The Audit page (ADMIN): every change, newest first (docs/operations.md, "Audit log"), filtered
 * by actor, actions (comma-separated mutation names), job key and a time window in the browser's
 * zone — "who paused billing's jobs on Tuesday?".
 */
export function AuditView() {
  const { role } = useSession();
  const [actor, setActor] = useState('');
  const [actions, setActions] = useState('');
  const [jobKey, setJobKey] = useState('');
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const [typed, setTyped] = useState({ actor: '', actions: '', jobKey: '' });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Text fields apply 300 ms after the last key, not at every one.
  const debounced = (set: (v: string) => void, field: keyof typeof typed) => (e: Event) => {
    const value = (e.target as HTMLInputElement).value;
    setTyped((t) => ({ ...t, [field]: value }));
    clearTimeout(timer.current);
    timer.current = setTimeout(() => set(value.trim()), 300);
  };
  const filter: AuditFilter = useMemo(() => {
    const f: AuditFilter = {};
    if (actor) f.actor = actor;
    const list = actions.split(/[\s,]+/).filter(Boolean);
    if (list.length) f.action = list;
    if (jobKey) f.jobKey = jobKey;
    const a = toInstant(after);
    const b = toInstant(before);
    if (a) f.after = a;
    if (b) f.before = b;
    return f;
  }, [actor, actions, jobKey, after, before]);
  if (role !== 'ADMIN') return <p role="alert">The audit log needs the ADMIN token.</p>;
  return (
    <section aria-labelledby="audit-title">
      <div class="view-head">
        <h1 id="audit-title">Audit</h1>
      </div>
      <p class="muted">Every change made through the API, newest first: who (the token's name), what (the mutation), which job, and what changed.</p>
      <form class="filters" role="search" aria-label="Filter the audit log" onSubmit={(e) => e.preventDefault()}>
        <label>
          Actor <input type="search" name="actor" value={typed.actor} placeholder="token name" onInput={debounced(setActor, 'actor')} />
        </label>
        <label>
          Actions <input type="search" name="action" value={typed.actions} placeholder="pauseJob, pauseJobs" onInput={debounced(setActions, 'actions')} />
        </label>
        <label>
          Job key <input type="search" name="jobKey" value={typed.jobKey} placeholder="exact key" onInput={debounced(setJobKey, 'jobKey')} />
        </label>
        <label>
          From <input type="datetime-local" step="1" name="after" value={after} onChange={(e) => setAfter((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          before <input type="datetime-local" step="1" name="before" value={before} onChange={(e) => setBefore((e.target as HTMLInputElement).value)} />
        </label>
      </form>
      <AuditTable filter={filter} label="Audit entries" showJob />
    </section>
  );
}

/** A job's History (ADMIN): its audit entries, newest first, over all its versions. */
export function JobHistory({ jobKey }: { jobKey: string }) {
  const { role } = useSession();
  if (role !== 'ADMIN') return null;
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">History</h2>
      <AuditTable filter={{ jobKey }} label="History" />
    </section>
  );
}

/** A page of audit entries matching `filter`, with the pager. */
function AuditTable({ filter, label, showJob = false }: { filter: AuditFilter; label: string; showJob?: boolean }) {
  const filterKey = JSON.stringify(filter);
  const paging = usePaging(filterKey, 25);
  const { data, error } = useQuery(Q.audit, { filter, first: paging.size, after: paging.after }, `${filterKey}|${paging.size}|${paging.after}`);
  const rows: AuditRow[] = data?.auditLog.nodes ?? [];
  return (
    <>
      <ErrorBox error={error} />
      <table class="grid" data-testid="audit-table" aria-label={label} aria-busy={!data}>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            {showJob && <th scope="col">Job</th>}
            <th scope="col">Subject</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr data-audit-id={e.id} data-action={e.action}>
              <td>
                <Time iso={e.at} />
              </td>
              <td class="mono">{e.actor}</td>
              <td class="mono">{e.action}</td>
              {showJob && <td class="mono">{e.jobKey ?? '—'}</td>}
              <td class="mono small">{e.subject ?? '—'}</td>
              <td class="small">{describeDetails(e.details)}</td>
            </tr>
          ))}
          {data && rows.length === 0 && (
            <tr>
              <td colSpan={showJob ? 6 : 5} class="empty">
                No changes recorded.
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager
        label={label}
        total={data?.auditLog.totalCount ?? 0}
        shown={rows.length}
        page={paging.page}
        pageInfo={data?.auditLog.pageInfo}
        pageSize={paging.size}
        onPageSize={paging.setSize}
        onPrevious={paging.previous}
        onNext={() => paging.next(data?.auditLog.pageInfo.endCursor)}
      />
    </>
  );
}

/** `reason: maintenance, until: …` — an entry's details on one line. */
function describeDetails(details: unknown): string {
  if (details === null || typeof details !== 'object') return details == null ? '' : String(details);
  return Object.entries(details as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}: ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}
