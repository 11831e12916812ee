import { useEffect, useState } from 'preact/hooks';
import { Q } from './queries.js';
import { useSession } from './session-context.js';
import { Dialog, ErrorBox } from './ui.js';

type Action = 'pause' | 'resume';

/**
 * "Pause matching…" / "Resume matching…" for the jobs list's label selector: the dialog first
 * counts the jobs the action would change (ACTIVE ones to pause, PAUSED ones to resume) and names
 * the count in its confirmation; the action is one `pauseJobs` / `resumeJobs` call, whose answer
 * (how many changed) is shown after. Not offered without a selector: the API refuses an empty one.
 */
export function BulkActions({ selector, onDone }: { selector: string; onDone(): void }) {
  const [action, setAction] = useState<Action | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  if (!selector.trim()) return null;
  return (
    <div class="actions" data-testid="bulk-actions">
      <button type="button" onClick={() => (setNotice(null), setAction('pause'))}>
        Pause matching…
      </button>
      <button type="button" onClick={() => (setNotice(null), setAction('resume'))}>
        Resume matching…
      </button>
      {notice && (
        <span class="notice" role="status" data-testid="bulk-notice">
          {notice}
        </span>
      )}
      {action && (
        <BulkDialog
          action={action}
          selector={selector}
          onClose={() => setAction(null)}
          onDone={(n) => {
            setAction(null);
            setNotice(`${action === 'pause' ? 'Paused' : 'Resumed'} ${n} job${n === 1 ? '' : 's'}.`);
            onDone();
          }}
        />
      )}
    </div>
  );
}

function BulkDialog({ action, selector, onClose, onDone }: { action: Action; selector: string; onClose(): void; onDone(n: number): void }) {
  const { api } = useSession();
  const [count, setCount] = useState<number | null>(null);
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    api
      .request(Q.jobCount, { filter: { labelSelector: selector, status: [action === 'pause' ? 'ACTIVE' : 'PAUSED'] } })
      .then((d) => setCount(d.jobs.totalCount), setError);
  }, [api, action, selector]);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const n =
        action === 'pause'
          ? (await api.request(Q.pauseJobs, { labelSelector: selector, reason, until: until ? new Date(until).toISOString() : undefined })).pauseJobs
          : (await api.request(Q.resumeJobs, { labelSelector: selector })).resumeJobs;
      onDone(n);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const verb = action === 'pause' ? 'Pause' : 'Resume';
  const state = action === 'pause' ? 'ACTIVE' : 'PAUSED';
  return (
    <Dialog title={`${verb} matching jobs`} onClose={onClose} testId="bulk-dialog">
      <form onSubmit={submit}>
        <p data-testid="bulk-count" data-count={count ?? ''}>
          {count === null ? 'Counting…' : `${verb} ${count} ${state} job${count === 1 ? '' : 's'} matching `}
          {count !== null && <code>{selector}</code>}
          {count !== null && '?'}
        </p>
        {action === 'pause' && (
          <>
            <label for="bulk-reason">Reason (kept on each job)</label>
            <textarea id="bulk-reason" name="reason" rows={2} value={reason} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
            <label for="bulk-until">Resume by itself at (your local time; empty: until resumed by hand)</label>
            <input id="bulk-until" name="until" type="datetime-local" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
          </>
        )}
        <ErrorBox error={error} />
        <div class="dialog-buttons">
          <button type="submit" class="primary" disabled={busy || count === null}>
            {verb} {count ?? ''} job{count === 1 ? '' : 's'}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
