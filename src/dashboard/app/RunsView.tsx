import { useMemo, useRef, useState } from 'preact/hooks';
import { RUN_STATUSES, TRIGGER_TYPES, type RunFilter, type RunStatus, type TriggerType } from './queries.js';
import { RunsTable } from './RunsTable.js';
import { useSession } from './session-context.js';
import { CheckboxGroup } from './ui.js';

/** `datetime-local` value (browser zone) → ISO instant, or undefined. */
const toInstant = (local: string) => {
  if (!local) return undefined;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
};

/**
 * View B, Execution Jobs: every run, newest first, live. Filters: status, job key, target,
 * trigger, and a scheduled-at window (in the browser's time zone).
 */
export function RunsView() {
  const { targets } = useSession();
  const [status, setStatus] = useState<RunStatus[]>([]);
  const [trigger, setTrigger] = useState<TriggerType[]>([]);
  const [target, setTarget] = useState('');
  const [jobKeyInput, setJobKeyInput] = useState('');
  const [jobKey, setJobKey] = useState('');
  const [after, setAfter] = useState('');
  const [before, setBefore] = useState('');
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const filter: RunFilter = useMemo(() => {
    const f: RunFilter = {};
    if (status.length) f.status = status;
    if (trigger.length) f.triggerType = trigger;
    if (target) f.target = target;
    if (jobKey) f.jobKey = jobKey;
    const a = toInstant(after);
    const b = toInstant(before);
    if (a) f.scheduledAfter = a;
    if (b) f.scheduledBefore = b;
    return f;
  }, [status, trigger, target, jobKey, after, before]);

  return (
    <section aria-labelledby="runs-title">
      <div class="view-head">
        <h1 id="runs-title">Execution jobs</h1>
      </div>
      <form class="filters" role="search" aria-label="Filter runs" onSubmit={(e) => e.preventDefault()}>
        <CheckboxGroup legend="Status" name="run-status" options={RUN_STATUSES} value={status} onChange={setStatus} />
        <CheckboxGroup legend="Trigger" name="run-trigger" options={TRIGGER_TYPES} value={trigger} onChange={setTrigger} />
        <label>
          Job key{' '}
          <input
            type="search"
            name="jobKey"
            value={jobKeyInput}
            placeholder="exact key"
            onInput={(e) => {
              const value = (e.target as HTMLInputElement).value;
              setJobKeyInput(value);
              clearTimeout(timer.current);
              timer.current = setTimeout(() => setJobKey(value.trim()), 300);
            }}
          />
        </label>
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
          Scheduled after <input type="datetime-local" step="1" name="after" value={after} onChange={(e) => setAfter((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          before <input type="datetime-local" step="1" name="before" value={before} onChange={(e) => setBefore((e.target as HTMLInputElement).value)} />
        </label>
      </form>
      <RunsTable filter={filter} label="Runs" />
    </section>
  );
}
