import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from './api.js';
import { formatJson, formatTime } from './format.js';
import type { PageInfo } from './queries.js';
import { useSubmit } from './hooks.js';

/** A status as a coloured label (the colour is not the only cue: the text is the status). */
export function Status({ value }: { value: string | null | undefined }) {
  if (!value) return <span class="muted">—</span>;
  return <span class={`status status-${value.toLowerCase()}`}>{value}</span>;
}

/** An instant in the browser's zone; the exact UTC instant on hover. */
/** A job's labels as `key=value` tags (none: a dash). */
export function Labels({ value }: { value: unknown }) {
  const entries = Object.entries((value ?? {}) as Record<string, string>);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <>
      {entries.map(([k, v]) => (
        <span class="tag label mono" data-label={k}>
          {k}={v}
        </span>
      ))}
    </>
  );
}

export function Time({ iso, zone }: { iso: string | null | undefined; zone?: string }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(iso, zone)}
    </time>
  );
}

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <pre class="json" tabIndex={0} aria-label={label}>
      {formatJson(value)}
    </pre>
  );
}

/** An error from the API: its code first (what scripts and docs use), then its message. */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const code = error instanceof ApiError ? error.code : 'ERROR';
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="error" role="alert" data-code={code}>
      <strong class="code">{code}</strong> {message}
    </div>
  );
}

/** An API error shown next to the field it concerns. */
export function FieldError({ error, id }: { error: ApiError | undefined; id: string }) {
  if (!error) return null;
  return (
    <div class="field-error" id={id} role="alert" data-code={error.code}>
      <strong class="code">{error.code}</strong> {error.message}
    </div>
  );
}

/**
 * Cursor paging: the API pages forward (`after`); the pager keeps the cursors already passed,
 * so "Previous" goes back exactly.
 */
export function Pager(props: {
  label: string;
  total: number;
  shown: number;
  page: number;
  pageInfo: PageInfo | undefined;
  onPrevious(): void;
  onNext(): void;
  pageSize: number;
  onPageSize(size: number): void;
}) {
  const first = props.page * props.pageSize + (props.shown ? 1 : 0);
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <span class="pager-count" aria-live="polite">
        {first}–{props.page * props.pageSize + props.shown} of {props.total}
      </span>
      <button type="button" onClick={props.onPrevious} disabled={props.page === 0}>
        ‹ Previous
      </button>
      <button type="button" onClick={props.onNext} disabled={!props.pageInfo?.hasNextPage}>
        Next ›
      </button>
      <label>
        Rows{' '}
        <select value={String(props.pageSize)} onChange={(e) => props.onPageSize(Number((e.target as HTMLSelectElement).value))}>
          {[25, 50, 100, 200].map((n) => (
            <option value={String(n)}>{n}</option>
          ))}
        </select>
      </label>
    </nav>
  );
}

/**
 * A modal dialog (`<dialog>`): the browser keeps focus inside it and closes it on Escape.
 */
export function Dialog(props: { title: string; onClose(): void; children: ComponentChildren; testId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      props.onClose();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => dialog.removeEventListener('cancel', onCancel);
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-label={props.title} data-testid={props.testId}>
      <h2>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/**
 * A dangerous action confirmed in a dialog: what it does and that it cannot be undone (`children`),
 * the action's button (`confirm`) and "Keep it"; `action` runs on confirmation, its error shown.
 */
export function ConfirmDialog(props: {
  title: string;
  testId: string;
  confirm: string;
  action(): Promise<void>;
  onClose(): void;
  children: ComponentChildren;
}) {
  const { busy, error, submit } = useSubmit(props.action);
  return (
    <Dialog title={props.title} onClose={props.onClose} testId={props.testId}>
      <form onSubmit={submit}>
        {props.children}
        <ErrorBox error={error} />
        <div class="dialog-buttons">
          <button type="submit" class="danger" disabled={busy}>
            {props.confirm}
          </button>
          <button type="button" onClick={props.onClose}>
            Keep it
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** Multi-select as a row of checkboxes (keyboard: Tab and Space). */
export function CheckboxGroup<T extends string>(props: { legend: string; options: readonly T[]; value: T[]; onChange(value: T[]): void; name: string }) {
  return (
    <fieldset class="checks">
      <legend>{props.legend}</legend>
      {props.options.map((o) => (
        <label>
          <input
            type="checkbox"
            name={props.name}
            value={o}
            checked={props.value.includes(o)}
            onChange={(e) => {
              const on = (e.target as HTMLInputElement).checked;
              props.onChange(on ? [...props.value, o] : props.value.filter((v) => v !== o));
            }}
          />
          {o}
        </label>
      ))}
    </fieldset>
  );
}
