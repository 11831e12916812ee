import { useState } from 'preact/hooks';
import { ApiError, inputError } from './api.js';
import { useSubmit } from './hooks.js';
import { ACTIVE_RUN, Q, type JobRow, type RunRow, type TypedDocumentString } from './queries.js';
import { href } from './router.js';
import { mayOperate, useSession } from './session-context.js';
import { ConfirmDialog, Dialog, ErrorBox, FieldError } from './ui.js';

/**
 * The everyday actions: pause, resume, skip, run now for ADMIN and OPERATOR, new version and
 * retire for ADMIN only; nothing for a VIEWER (the API would refuse with FORBIDDEN anyway). Every rule — a pause needs a reason, a retired job
 * takes no action, a finished run cannot be canceled — is the API's; its error codes are shown
 * as they come.
 */
export function JobActions({ job, onChanged }: { job: Pick<JobRow, 'id' | 'key' | 'status'>; onChanged(): void }) {
  const { api, role } = useSession();
  const [dialog, setDialog] = useState<null | 'pause' | 'skip' | 'run' | 'retire'>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [started, setStarted] = useState<RunRow | null>(null);
  if (!mayOperate(role)) return null;

  const call = async <R, V>(query: TypedDocumentString<R, V>, variables: V) => {
    setBusy(true);
    setError(null);
    try {
      await api.request(query, variables);
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="actions" role="group" aria-label={`Actions on ${job.key}`}>
      {job.status === 'ACTIVE' && (
        <button type="button" onClick={() => setDialog('pause')}>
          Pause…
        </button>
      )}
      {job.status === 'PAUSED' && (
        <button type="button" disabled={busy} onClick={() => call(Q.resumeJob, { id: job.id })}>
          Resume
        </button>
      )}
      {job.status !== 'RETIRED' && (
        <>
          <button type="button" onClick={() => setDialog('skip')}>
            Skip next…
          </button>
          <button type="button" onClick={() => setDialog('run')}>
            Run now…
          </button>
          {role === 'ADMIN' && (
            <>
              <a class="button" href={href.newVersion(job.id)}>
                New version…
              </a>
              <button type="button" class="danger" onClick={() => setDialog('retire')}>
                Retire…
              </button>
            </>
          )}
        </>
      )}
      <ErrorBox error={error} />
      {started && (
        <span class="notice" role="status">
          {started.triggerType} run {started.status === 'SKIPPED' ? `skipped (${started.failureCode ?? 'SKIPPED'})` : 'requested'}:{' '}
          <a href={href.run(started.id)}>see the run</a>
        </span>
      )}
      {dialog === 'pause' && <PauseDialog jobId={job.id} jobKey={job.key} onClose={() => setDialog(null)} onDone={onChanged} />}
      {dialog === 'skip' && <SkipDialog jobId={job.id} jobKey={job.key} onClose={() => setDialog(null)} onDone={onChanged} />}
      {dialog === 'run' && (
        <RunNowDialog
          jobId={job.id}
          jobKey={job.key}
          onClose={() => setDialog(null)}
          onDone={(run) => {
            setStarted(run);
            onChanged();
          }}
        />
      )}
      {dialog === 'retire' && <RetireDialog jobId={job.id} jobKey={job.key} onClose={() => setDialog(null)} onDone={onChanged} />}
    </div>
  );
}

function PauseDialog({ jobId, jobKey, onClose, onDone }: { jobId: string; jobKey: string; onClose(): void; onDone(): void }) {
  const { api } = useSession();
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  // The reason is sent as typed, even empty: "a pause needs a reason" is the API's rule (REASON_REQUIRED).
  const { busy, error, submit } = useSubmit(async () => {
    // datetime-local is the browser's local time; the API takes an instant.
    await api.request(Q.pauseJob, { id: jobId, reason, until: until ? new Date(until).toISOString() : undefined });
    onClose();
    onDone();
  });
  const fieldError = error instanceof ApiError && (error.code === 'REASON_REQUIRED' || error.field === 'reason') ? error : undefined;
  return (
    <Dialog title={`Pause ${jobKey}`} onClose={onClose} testId="pause-dialog">
      <form onSubmit={submit}>
        <label for="pause-reason">Reason (kept on the job, shown to everyone)</label>
        <textarea id="pause-reason" name="reason" rows={3} value={reason} aria-describedby={fieldError ? 'pause-reason-error' : undefined} aria-invalid={!!fieldError} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
        <FieldError error={fieldError} id="pause-reason-error" />
        <label for="pause-until">Resume by itself at (your local time; empty: paused until resumed by hand)</label>
        <input id="pause-until" name="until" type="datetime-local" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
        {!fieldError && <ErrorBox error={error} />}
        <div class="dialog-buttons">
          <button type="submit" class="primary" disabled={busy}>
            Pause
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** skipNextRuns: the next N slots are recorded SKIPPED (SKIPPED_BY_ADMIN) with the reason; 0 cancels an earlier request. */
function SkipDialog({ jobId, jobKey, onClose, onDone }: { jobId: string; jobKey: string; onClose(): void; onDone(): void }) {
  const { api } = useSession();
  const [count, setCount] = useState('1');
  const [reason, setReason] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await api.request(Q.skipNextRuns, { id: jobId, count: Number(count), reason });
    onClose();
    onDone();
  });
  const reasonError = error instanceof ApiError && (error.code === 'REASON_REQUIRED' || error.field === 'reason') ? error : undefined;
  const countError = error instanceof ApiError && error.field === 'count' ? error : undefined;
  return (
    <Dialog title={`Skip the next runs of ${jobKey}`} onClose={onClose} testId="skip-dialog">
      <form onSubmit={submit}>
        <label for="skip-count">How many of its next slots (0 cancels an earlier request)</label>
        <input id="skip-count" name="count" type="number" min="0" max="1000" value={count} aria-invalid={!!countError} onInput={(e) => setCount((e.target as HTMLInputElement).value)} />
        <FieldError error={countError} id="skip-count-error" />
        <label for="skip-reason">Reason (each skipped slot's message)</label>
        <textarea id="skip-reason" name="reason" rows={2} value={reason} aria-invalid={!!reasonError} onInput={(e) => setReason((e.target as HTMLTextAreaElement).value)} />
        <FieldError error={reasonError} id="skip-reason-error" />
        {!reasonError && !countError && <ErrorBox error={error} />}
        <div class="dialog-buttons">
          <button type="submit" class="primary" disabled={busy}>
            Skip
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RunNowDialog({ jobId, jobKey, onClose, onDone }: { jobId: string; jobKey: string; onClose(): void; onDone(run: RunRow): void }) {
  const { api } = useSession();
  const [payload, setPayload] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    const variables: { id: string; payload?: unknown } = { id: jobId };
    if (payload.trim()) {
      try {
        variables.payload = JSON.parse(payload);
      } catch (err) {
        throw inputError(`not JSON: ${(err as Error).message}`, 'BAD_USER_INPUT', 'payload');
      }
    }
    const { runJobNow } = await api.request(Q.runJobNow, variables);
    onClose();
    onDone(runJobNow);
  });
  const fieldError = error instanceof ApiError && (error.field === 'payload' || error.code === 'PAYLOAD_TOO_LARGE') ? error : undefined;
  return (
    <Dialog title={`Run ${jobKey} now`} onClose={onClose} testId="run-now-dialog">
      <form onSubmit={submit}>
        <label for="run-payload">Payload (JSON; empty: the job's own payload, a MANUAL run; given: an AD_HOC run)</label>
        <textarea id="run-payload" name="payload" rows={5} class="mono" value={payload} aria-invalid={!!fieldError} onInput={(e) => setPayload((e.target as HTMLTextAreaElement).value)} />
        <FieldError error={fieldError} id="run-payload-error" />
        {!fieldError && <ErrorBox error={error} />}
        <div class="dialog-buttons">
          <button type="submit" class="primary" disabled={busy}>
            Run now
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function RetireDialog({ jobId, jobKey, onClose, onDone }: { jobId: string; jobKey: string; onClose(): void; onDone(): void }) {
  const { api } = useSession();
  const retire = async () => {
    await api.request(Q.retireJob, { id: jobId });
    onClose();
    onDone();
  };
  return (
    <ConfirmDialog title={`Retire ${jobKey}`} testId="retire-dialog" confirm="Retire" action={retire} onClose={onClose}>
      <p>A retired job never runs again and takes no further action; its runs stay. This cannot be undone (a new job needs a new key).</p>
    </ConfirmDialog>
  );
}

/** Cancel for a PENDING or RUNNING run (ADMIN only). */
export function CancelRunButton({ run, onDone }: { run: Pick<RunRow, 'id' | 'status' | 'jobKey'>; onDone(run: RunRow): void }) {
  const { api, role } = useSession();
  const { busy, error, submit } = useSubmit(async () => {
    const { cancelRun } = await api.request(Q.cancelRun, { id: run.id });
    onDone(cancelRun);
  });
  if (!mayOperate(role) || !ACTIVE_RUN.includes(run.status)) return error ? <ErrorBox error={error} /> : null;
  return (
    <>
      <button
        type="button"
        class="danger small"
        disabled={busy}
        aria-label={`Cancel run of ${run.jobKey}`}
        onClick={() => void submit()}
      >
        Cancel run
      </button>
      <ErrorBox error={error} />
    </>
  );
}
