import { useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { Q, type BackfillRow, type BackfillScope } from './queries.js';
import { mayOperate, useSession } from './session-context.js';
import { Dialog, ErrorBox, FieldError, Time } from './ui.js';

const SCOPES: { value: BackfillScope; label: string }[] = [
  { value: 'NOT_SUCCEEDED', label: 'not succeeded (no run, skipped, failed, canceled)' },
  { value: 'MISSING', label: 'missing (no run, or only skipped)' },
  { value: 'ALL', label: 'all (every slot again)' },
];

/** The instant an input holds, as the API takes it; the text itself when it is not one (the API says why). */
const instant = (text: string): string => {
  const at = new Date(text.trim());
  return Number.isNaN(at.getTime()) ? text : at.toISOString();
};

/** How many slots a plan shows before "… and N more". */
const SHOWN = 20;

/**
 * Backfill from a job's page (ADMIN only): the range and scope, then the plan — what would run and
 * how many slots were left out, from a dry run — before anything runs; "Run" starts it with the
 * same arguments, and the panel follows it (state, runs created) until it is DONE or canceled.
 * Every rule (the range, the 10,000-slot cap, the reason) is the API's; its codes are shown.
 */
export function BackfillPanel({ job }: { job: { id: string; key: string; status: string } }) {
  const { api, role } = useSession();
  const hour = 3_600_000;
  const until = new Date(Math.floor(Date.now() / hour) * hour);
  const [from, setFrom] = useState(new Date(until.getTime() - 24 * hour).toISOString());
  const [to, setTo] = useState(until.toISOString());
  const [scope, setScope] = useState<BackfillScope>('NOT_SUCCEEDED');
  const [reason, setReason] = useState('');
  const [plan, setPlan] = useState<BackfillRow | null>(null);
  const [started, setStarted] = useState<BackfillRow | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  if (!mayOperate(role) || job.status === 'RETIRED') return null;

  const ask = async (dryRun: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const { backfillJob } = await api.request(Q.backfillJob, { id: job.id, from: instant(from), to: instant(to), scope, dryRun, reason: dryRun && !reason.trim() ? 'plan' : reason });
      if (dryRun) setPlan(backfillJob);
      else {
        setPlan(null);
        setStarted(backfillJob);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const refresh = async () => {
    if (!started) return;
    try {
      const { backfill } = await api.request(Q.backfill, { id: started.id });
      if (backfill) setStarted(backfill);
    } catch (err) {
      setError(err);
    }
  };
  const cancel = async () => {
    if (!started) return;
    try {
      setStarted((await api.request(Q.cancelBackfill, { id: started.id })).cancelBackfill);
    } catch (err) {
      setError(err);
    }
  };
  const reasonError = error instanceof ApiError && error.code === 'REASON_REQUIRED' ? error : undefined;
  return (
    <section aria-labelledby="backfill-title" class="backfill" data-testid="backfill">
      <h2 id="backfill-title">Backfill</h2>
      <p class="muted">Run past slots of a range again, oldest first, one at a time. The plan is shown before anything runs.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void ask(true);
        }}
      >
        <div class="field-row">
          <div class="field">
            <label for="backfill-from">From (UTC, included)</label>
            <input id="backfill-from" class="mono" value={from} onInput={(e) => (setFrom((e.target as HTMLInputElement).value), setPlan(null))} />
          </div>
          <div class="field">
            <label for="backfill-to">To (UTC, included, not in the future)</label>
            <input id="backfill-to" class="mono" value={to} onInput={(e) => (setTo((e.target as HTMLInputElement).value), setPlan(null))} />
          </div>
          <div class="field">
            <label for="backfill-scope">Slots</label>
            <select id="backfill-scope" value={scope} onChange={(e) => (setScope((e.target as HTMLSelectElement).value as BackfillScope), setPlan(null))}>
              {SCOPES.map((s) => (
                <option value={s.value}>{s.label}</option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="backfill-reason">Reason (kept with the backfill)</label>
            <input id="backfill-reason" value={reason} aria-invalid={!!reasonError} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
          </div>
        </div>
        <FieldError error={reasonError} id="backfill-reason-error" />
        {!reasonError && <ErrorBox error={error} />}
        <div class="dialog-buttons">
          <button type="submit" disabled={busy}>
            Show the plan
          </button>
        </div>
      </form>
      {plan && (
        <div data-testid="backfill-plan" role="status">
          <p>
            Would run <strong>{plan.slots.length}</strong> slot(s) ({plan.scope}); {plan.skippedExisting} of the range left out.
          </p>
          <SlotList slots={plan.slots} />
          <button type="button" class="primary" disabled={busy || plan.slots.length === 0} onClick={() => void ask(false)}>
            Run {plan.slots.length} slot(s)
          </button>
        </div>
      )}
      {started && (
        <div data-testid="backfill-started" role="status" data-state={started.state}>
          <p>
            Backfill {started.state}: {started.created} of {started.slots.length} slot(s) started.{' '}
            <button type="button" class="small" onClick={() => void refresh()}>
              Refresh
            </button>{' '}
            {started.state === 'RUNNING' && (
              <button type="button" class="danger small" onClick={() => void cancel()}>
                Cancel backfill
              </button>
            )}
          </p>
        </div>
      )}
    </section>
  );
}

function SlotList({ slots }: { slots: readonly string[] }) {
  return (
    <ul class="plain" data-testid="backfill-slots">
      {slots.slice(0, SHOWN).map((at) => (
        <li>
          <Time iso={at} />
        </li>
      ))}
      {slots.length > SHOWN && <li class="muted">… and {slots.length - SHOWN} more</li>}
    </ul>
  );
}

/**
 * "Run this slot again" on a failed (or canceled) run of a slot (ADMIN only): a one-slot backfill
 * of the run's job and slot, after a reason.
 */
export function RunSlotAgain({ run }: { run: { job: { id: string }; jobKey: string; scheduledAt: string; status: string; triggerType: string } }) {
  const { api, role } = useSession();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('run this slot again');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<BackfillRow | null>(null);
  const [busy, setBusy] = useState(false);
  const ofSlot = run.triggerType === 'SCHEDULED' || run.triggerType === 'BACKFILL';
  if (!mayOperate(role) || !ofSlot || (run.status !== 'FAILED' && run.status !== 'CANCELED')) return null;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const { backfillJob } = await api.request(Q.backfillJob, { id: run.job.id, from: run.scheduledAt, to: run.scheduledAt, scope: 'ALL', dryRun: false, reason });
      setDone(backfillJob);
      setOpen(false);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Run this slot again…
      </button>
      {done && (
        <span class="notice" role="status" data-testid="slot-again">
          {done.slots.length === 1 ? 'Backfill started: the slot runs again (trigger BACKFILL).' : 'Nothing to run: another backfill runs this slot, or it is no slot of the job any more.'}
        </span>
      )}
      {open && (
        <Dialog title={`Run ${run.jobKey}'s slot again`} onClose={() => setOpen(false)} testId="slot-again-dialog">
          <form onSubmit={submit}>
            <p>
              A one-slot backfill of <Time iso={run.scheduledAt} />, with the job's live version.
            </p>
            <label for="slot-again-reason">Reason</label>
            <input id="slot-again-reason" value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
            <ErrorBox error={error} />
            <div class="dialog-buttons">
              <button type="submit" class="primary" disabled={busy}>
                Run it again
              </button>
              <button type="button" onClick={() => setOpen(false)}>
                Cancel
              </button>
            </div>
          </form>
        </Dialog>
      )}
    </>
  );
}
