import { useState } from 'preact/hooks';
import { ApiError, inputError } from './api.js';
import { useQuery } from './hooks.js';
import { Q, type CalendarInput, type CalendarRow } from './queries.js';
import { href } from './router.js';
import { useSession } from './session-context.js';
import { ErrorBox, Time } from './ui.js';

/**
 * The exclusion calendars (docs/behaviour.md, "Calendars"): each with its rules, the jobs that
 * name it, and a warning when its dated exclusions run out within 60 days. ADMIN sets (creates or
 * replaces) and deletes them; a calendar a live job names cannot be deleted (CALENDAR_IN_USE).
 */
export function CalendarsView() {
  const { role } = useSession();
  const { data, error, reload } = useQuery(Q.calendars, {}, '');
  const [editing, setEditing] = useState<CalendarRow | 'new' | null>(null);
  if (error) return <ErrorBox error={error} />;
  return (
    <section aria-labelledby="calendars-title">
      <h1 id="calendars-title">Calendars</h1>
      <p class="muted">A slot a job's calendars exclude is not run: it is recorded SKIPPED with code CALENDAR, naming the calendar and the rule.</p>
      {role === 'ADMIN' && !editing && (
        <button type="button" class="primary" onClick={() => setEditing('new')}>
          New calendar
        </button>
      )}
      {editing && (
        <CalendarForm
          initial={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      {!data ? (
        <p aria-busy="true">Loading…</p>
      ) : data.calendars.length === 0 ? (
        <p>No calendars yet.</p>
      ) : (
        data.calendars.map((c) => <CalendarCard calendar={c} onEdit={role === 'ADMIN' ? () => setEditing(c) : undefined} onDeleted={reload} />)
      )}
    </section>
  );
}

function CalendarCard({ calendar: c, onEdit, onDeleted }: { calendar: CalendarRow; onEdit?: () => void; onDeleted(): void }) {
  const { api } = useSession();
  const [error, setError] = useState<unknown>(null);
  const remove = async () => {
    setError(null);
    try {
      await api.request(Q.deleteCalendar, { name: c.name });
      onDeleted();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <article class="calendar" data-calendar={c.name} aria-labelledby={`cal-${c.name}`}>
      <h2 id={`cal-${c.name}`}>{c.name}</h2>
      {c.runsOutSoon && (
        <p class="warning" role="status" data-testid="runs-out-soon">
          Its dated exclusions {c.lastDate ? `end on ${c.lastDate}` : 'have ended'}: add the next ones (less than 60 days left).
        </p>
      )}
      {c.description && <p>{c.description}</p>}
      <dl class="props">
        <dt>Zone</dt>
        <dd>{c.timezone}</dd>
        <dt>Days</dt>
        <dd data-testid="calendar-dates">{c.dates.length ? c.dates.join(', ') : '—'}</dd>
        <dt>Every year</dt>
        <dd>{c.yearly.length ? c.yearly.join(', ') : '—'}</dd>
        <dt>Every day</dt>
        <dd>{c.dailyWindows.length ? c.dailyWindows.map((w) => `${w.start}–${w.end}${w.reason ? ` (${w.reason})` : ''}`).join(', ') : '—'}</dd>
        <dt>Windows</dt>
        <dd>
          {c.windows.length
            ? c.windows.map((w) => (
                <div>
                  <Time iso={w.from} /> → <Time iso={w.to} />
                  {w.reason ? ` (${w.reason})` : ''}
                </div>
              ))
            : '—'}
        </dd>
        <dt>Last dated exclusion</dt>
        <dd data-testid="calendar-last-date">{c.lastDate ?? 'none (yearly and daily rules never run out)'}</dd>
        <dt>Used by</dt>
        <dd data-testid="calendar-used-by">
          {c.usedBy.length
            ? c.usedBy.map((j, i) => (
                <>
                  {i > 0 && ', '}
                  <a href={href.job(j.id)}>
                    {j.key} v{j.version}
                  </a>
                </>
              ))
            : 'no live job'}
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time iso={c.updatedAt} /> by {c.updatedBy ?? '—'}
        </dd>
      </dl>
      {onEdit && (
        <div class="form-buttons">
          <button type="button" onClick={onEdit}>
            Edit
          </button>
          <button type="button" onClick={remove}>
            Delete
          </button>
        </div>
      )}
      <ErrorBox error={error} />
    </article>
  );
}

const lines = (text: string) => text.split(/[\n,]+/).map((l) => l.trim()).filter(Boolean);

/**
 * The rules as text, one per line: days "2026-12-25", yearly "12-25", daily "22:00-06:00 reason",
 * windows "2026-12-20T00:00Z/2027-01-03T00:00Z reason". The API checks them and names the field.
 */
function CalendarForm({ initial, onDone }: { initial: CalendarRow | null; onDone(): void }) {
  const { api } = useSession();
  const [name, setName] = useState(initial?.name ?? '');
  const [timezone, setTimezone] = useState(initial?.timezone ?? 'UTC');
  const [description, setDescription] = useState(initial?.description ?? '');
  const [dates, setDates] = useState(initial?.dates.join('\n') ?? '');
  const [yearly, setYearly] = useState(initial?.yearly.join('\n') ?? '');
  const [daily, setDaily] = useState(initial?.dailyWindows.map((w) => `${w.start}-${w.end}${w.reason ? ` ${w.reason}` : ''}`).join('\n') ?? '');
  const [windows, setWindows] = useState(initial?.windows.map((w) => `${w.from}/${w.to}${w.reason ? ` ${w.reason}` : ''}`).join('\n') ?? '');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    const input: CalendarInput = { name: name.trim(), timezone: timezone.trim() || 'UTC', description: description.trim() || null, dates: lines(dates), yearly: lines(yearly) };
    try {
      input.dailyWindows = daily.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
        const m = /^(\S+?)\s*[-–]\s*(\S+)(?:\s+(.*))?$/.exec(l);
        if (!m) throw inputError(`"${l}": write a daily window as 22:00-06:00, then a reason if any`, 'BAD_USER_INPUT', 'dailyWindows');
        return { start: m[1], end: m[2], reason: m[3] ?? null };
      });
      input.windows = windows.split('\n').map((l) => l.trim()).filter(Boolean).map((l) => {
        const m = /^(\S+)\/(\S+)(?:\s+(.*))?$/.exec(l);
        if (!m) throw inputError(`"${l}": write a window as <from>/<to> (ISO 8601 with an offset), then a reason if any`, 'BAD_USER_INPUT', 'windows');
        return { from: m[1], to: m[2], reason: m[3] ?? null };
      });
    } catch (err) {
      setError(err);
      return;
    }
    setBusy(true);
    try {
      await api.request(Q.setCalendar, { input });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const field = error instanceof ApiError ? error.field?.replace(/^input\./, '').split(/[.[]/)[0] : undefined;
  const area = (id: string, label: string, value: string, set: (v: string) => void, hint: string) => (
    <div class={`field ${field === id ? 'invalid' : ''}`} data-field={id}>
      <label for={`c-${id}`}>{label}</label>
      <textarea id={`c-${id}`} name={id} rows={3} class="mono" value={value} onInput={(e) => set((e.target as HTMLTextAreaElement).value)} aria-invalid={field === id} />
      <div class="hint">{hint}</div>
    </div>
  );
  return (
    <form class="job-form calendar-form" onSubmit={submit} noValidate aria-label={initial ? `Edit ${initial.name}` : 'New calendar'}>
      <div class="field-row">
        <div class="field" data-field="name">
          <label for="c-name">Name</label>
          <input id="c-name" value={name} readOnly={!!initial} onInput={(e) => setName((e.target as HTMLInputElement).value)} autoComplete="off" />
        </div>
        <div class="field" data-field="timezone">
          <label for="c-timezone">Zone</label>
          <input id="c-timezone" value={timezone} onInput={(e) => setTimezone((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field" data-field="description">
          <label for="c-description">Description</label>
          <input id="c-description" value={description} onInput={(e) => setDescription((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      {area('dates', 'Days', dates, setDates, 'one a line: 2026-12-25')}
      {area('yearly', 'Every year', yearly, setYearly, 'one a line: 12-25')}
      {area('dailyWindows', 'Every day', daily, setDaily, 'one a line: 22:00-06:00 reason (may cross midnight)')}
      {area('windows', 'Windows', windows, setWindows, 'one a line: 2026-12-20T00:00:00Z/2027-01-03T00:00:00Z reason')}
      <ErrorBox error={error} />
      <div class="form-buttons">
        <button type="submit" class="primary" disabled={busy}>
          {initial ? 'Save calendar' : 'Create calendar'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
