import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, inputError } from './api.js';
import { describeCron } from './describe.js';
import { useQuery } from './hooks.js';
import { Q, type BackoffKind, type CatchUpPolicy, type CreateJobInput, type JobDetail, type NewJobVersionInput, type OverlapPolicy, type ScheduleType } from './queries.js';
import { href, navigate } from './router.js';
import { useSession } from './session-context.js';
import { SlotTable } from './JobDetailView.js';
import { ErrorBox, FieldError } from './ui.js';

/** The form's fields, as typed. Everything is checked by the API, which names the field it refuses. */
interface Values {
  key: string;
  target: string;
  scheduleType: ScheduleType;
  cronExpression: string;
  moreExpressions: string; // one expression a line, after the first
  runAt: string; // datetime-local, browser zone
  every: string;
  anchorAt: string; // datetime-local, browser zone; empty: the creation instant
  timezone: string;
  startAt: string; // datetime-local
  endAt: string; // datetime-local
  maxRuns: string;
  misfireGraceSeconds: string;
  payload: string; // JSON text
  timeoutSeconds: string;
  heartbeatTimeoutSeconds: string;
  catchUp: CatchUpPolicy;
  catchUpLimit: string;
  pauseAfterFailures: string;
  retryMaxAttempts: string; // empty: no retry
  retryBackoff: BackoffKind;
  retryDelaySeconds: string;
  retryMaxDelaySeconds: string;
  retryOn: string; // comma-separated codes
  overlap: OverlapPolicy;
  maxConcurrentRuns: string;
  jitterSeconds: string;
  captureBytes: string;
  calendars: string; // comma-separated names
  notify: string; // comma-separated channel names; empty: the default channels
  expectSuccessWithinSeconds: string;
  after: string; // AFTER: upstream keys, comma-separated; "key:FAILED" or "key:ANY" for another outcome
  afterMode: 'ANY' | 'ALL';
  afterWindowSeconds: string;
  labels: string; // key=value, comma- or line-separated
  description: string;
  owner: string;
}

type FieldName = keyof Values;

/** Codes whose field the API implies without naming it. */
const FIELD_OF_CODE: Record<string, FieldName> = {
  KEY_EXISTS: 'key',
  UNKNOWN_TARGET: 'target',
  INVALID_CRON_EXPRESSION: 'cronExpression',
  INVALID_TIMEZONE: 'timezone',
  INVALID_RUN_AT: 'runAt',
  INVALID_SCHEDULE: 'every',
  PAYLOAD_TOO_LARGE: 'payload',
  UNKNOWN_SECRET: 'payload',
  UNKNOWN_CALENDAR: 'calendars',
  UNKNOWN_CHANNEL: 'notify',
  UNKNOWN_JOB: 'after',
  DEPENDENCY_CYCLE: 'after',
  INVALID_LABELS: 'labels',
};

/** The API names a policy field (`retry.maxAttempts`); the form's own name for it. */
const POLICY_FIELDS: Record<string, FieldName> = {
  retry: 'retryMaxAttempts',
  'retry.maxAttempts': 'retryMaxAttempts',
  'retry.backoff': 'retryBackoff',
  'retry.delaySeconds': 'retryDelaySeconds',
  'retry.maxDelaySeconds': 'retryMaxDelaySeconds',
  'retry.retryOn': 'retryOn',
  cronExpressions: 'moreExpressions',
};

function fieldOf(error: unknown, values: Values): FieldName | null {
  if (!(error instanceof ApiError)) return null;
  const path = error.field?.replace(/^input\./, '');
  if (path && POLICY_FIELDS[path]) return POLICY_FIELDS[path];
  const named = path?.split(/[.[]/)[0];
  if (named && named in values) return named as FieldName;
  return FIELD_OF_CODE[error.code] ?? null;
}

const pad = (n: number) => String(n).padStart(2, '0');
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const EMPTY: Values = {
  key: '',
  target: '',
  scheduleType: 'RECURRING',
  cronExpression: '',
  moreExpressions: '',
  runAt: '',
  every: '',
  anchorAt: '',
  timezone: 'UTC',
  startAt: '',
  endAt: '',
  maxRuns: '',
  misfireGraceSeconds: '',
  payload: '',
  timeoutSeconds: '',
  heartbeatTimeoutSeconds: '',
  catchUp: 'NONE',
  catchUpLimit: '',
  pauseAfterFailures: '',
  retryMaxAttempts: '',
  retryBackoff: 'EXPONENTIAL',
  retryDelaySeconds: '5',
  retryMaxDelaySeconds: '',
  retryOn: '',
  overlap: 'SKIP',
  maxConcurrentRuns: '',
  jitterSeconds: '',
  captureBytes: '',
  calendars: '',
  notify: '',
  expectSuccessWithinSeconds: '',
  after: '',
  afterMode: 'ANY',
  afterWindowSeconds: '',
  labels: '',
  description: '',
  owner: '',
};

/** The upstreams as the form writes them: "key" (on SUCCEEDED) or "key:FAILED" / "key:ANY". */
const afterText = (after: JobDetail['after']) => after.map((d) => (d.on === 'SUCCEEDED' ? d.upstream.key : `${d.upstream.key}:${d.on}`)).join(', ');
const afterInput = (text: string) =>
  text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item) => {
      const at = item.lastIndexOf(':');
      const on = at > 0 ? item.slice(at + 1).toUpperCase() : '';
      return ['SUCCEEDED', 'FAILED', 'ANY'].includes(on) ? { jobKey: item.slice(0, at), on } : { jobKey: item };
    });
/** The schedules with a clock: bounds, maxRuns and the English parser are theirs. */
const clocked = (type: ScheduleType) => type === 'RECURRING' || type === 'INTERVAL';

function fromJob(job: JobDetail): Values {
  return {
    key: job.key,
    target: job.target,
    scheduleType: job.scheduleType,
    cronExpression: job.cronExpression ?? '',
    moreExpressions: (job.cronExpressions ?? []).slice(1).join('\n'),
    runAt: toLocalInput(job.runAt),
    every: job.every ?? '',
    anchorAt: toLocalInput(job.anchorAt),
    timezone: job.timezone,
    startAt: toLocalInput(job.startAt),
    endAt: toLocalInput(job.endAt),
    maxRuns: job.maxRuns?.toString() ?? '',
    misfireGraceSeconds: job.misfireGraceSeconds?.toString() ?? '',
    payload: job.payload === null || job.payload === undefined ? '' : JSON.stringify(job.payload, null, 2),
    timeoutSeconds: job.timeoutSeconds?.toString() ?? '',
    heartbeatTimeoutSeconds: job.heartbeatTimeoutSeconds?.toString() ?? '',
    catchUp: job.catchUp,
    catchUpLimit: job.catchUpLimit?.toString() ?? '',
    pauseAfterFailures: job.pauseAfterFailures?.toString() ?? '',
    retryMaxAttempts: job.retry?.maxAttempts.toString() ?? '',
    retryBackoff: job.retry?.backoff ?? 'EXPONENTIAL',
    retryDelaySeconds: job.retry?.delaySeconds.toString() ?? '5',
    retryMaxDelaySeconds: job.retry?.maxDelaySeconds?.toString() ?? '',
    retryOn: job.retry?.retryOn?.join(', ') ?? '',
    overlap: job.overlap,
    maxConcurrentRuns: job.overlap === 'ALLOW' ? job.maxConcurrentRuns.toString() : '',
    jitterSeconds: job.jitterSeconds ? job.jitterSeconds.toString() : '',
    captureBytes: job.captureBytes === 4096 ? '' : job.captureBytes.toString(),
    calendars: (job.calendars ?? []).join(', '),
    notify: (job.notify ?? []).join(', '),
    expectSuccessWithinSeconds: job.expectSuccessWithinSeconds?.toString() ?? '',
    after: afterText(job.after),
    afterMode: job.afterMode,
    afterWindowSeconds: job.afterWindowSeconds?.toString() ?? '',
    labels: Object.entries((job.labels ?? {}) as Record<string, string>).map(([k, v]) => `${k}=${v}`).join(', '),
    description: job.description ?? '',
    owner: job.owner ?? '',
  };
}

/** "team=billing, env=prod" as a labels object; a part without "=" is sent as is, for the API to refuse (INVALID_LABELS). */
function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(/[\n,]+/).map((p) => p.trim()).filter(Boolean)) {
    const at = part.indexOf('=');
    labels[at < 0 ? part : part.slice(0, at).trim()] = at < 0 ? (null as never) : part.slice(at + 1).trim();
  }
  return labels;
}

/** `createJob` (no `versionOf`) or `createJobVersion` of an existing job, prefilled from it. */
export function JobFormView({ versionOf }: { versionOf?: string }) {
  const { role } = useSession();
  const { data, error } = useQuery(Q.job, versionOf ? { id: versionOf } : null, versionOf ?? '');
  if (role !== 'ADMIN') return <p role="alert">Creating and changing jobs needs the ADMIN token.</p>;
  if (!versionOf) return <JobForm initial={EMPTY} />;
  if (error) return <ErrorBox error={error} />;
  if (!data) return <p aria-busy="true">Loading…</p>;
  if (!data.job) return <p role="alert">No job with id {versionOf}.</p>;
  return <JobForm initial={fromJob(data.job)} job={data.job} />;
}

function JobForm({ initial, job }: { initial: Values; job?: JobDetail }) {
  const { api, targets } = useSession();
  const [values, setValues] = useState<Values>(initial);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (name: FieldName) => (e: Event) => setValues((v) => ({ ...v, [name]: (e.target as HTMLInputElement).value }));
  const errorField = fieldOf(error, values);
  const errorFor = (name: FieldName) => (errorField === name ? (error as ApiError) : undefined);
  const zones = useMemo(() => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []), []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    // Built field by field from the form's text; the API checks it and names the field it refuses.
    const input: Record<string, unknown> = {
      target: values.target,
      scheduleType: values.scheduleType,
      timezone: values.timezone.trim() || 'UTC',
      catchUp: values.catchUp,
    };
    if (!job) input.key = values.key;
    const instant = (text: string) => (text ? new Date(text).toISOString() : null);
    if (values.scheduleType === 'RECURRING') {
      const more = values.moreExpressions.split('\n').map((e) => e.trim()).filter(Boolean);
      input.cronExpression = values.cronExpression;
      // The whole list when there are several; a cronExpression alone replaces a version's list.
      if (more.length) input.cronExpressions = [values.cronExpression, ...more];
    } else if (values.scheduleType === 'INTERVAL') {
      input.every = values.every;
      if (values.anchorAt) input.anchorAt = instant(values.anchorAt);
    } else if (values.scheduleType === 'ONE_TIME') input.runAt = instant(values.runAt);
    if (clocked(values.scheduleType)) {
      input.startAt = instant(values.startAt);
      input.endAt = instant(values.endAt);
    }
    if (job) {
      // A new version copies omitted fields: say explicitly what the other schedule types had.
      if (values.scheduleType !== 'ONE_TIME') input.runAt = null;
      if (values.scheduleType !== 'RECURRING') input.cronExpression = null;
    }
    const int = (name: FieldName, text: string) => {
      if (!text.trim()) return null;
      const n = Number(text);
      if (!Number.isInteger(n)) throw inputError(`${name} must be a whole number`, 'BAD_USER_INPUT', name);
      return n;
    };
    try {
      input.payload = values.payload.trim() ? JSON.parse(values.payload) : null;
    } catch (err) {
      setError(inputError(`not JSON: ${(err as Error).message}`, 'BAD_USER_INPUT', 'payload'));
      return;
    }
    try {
      input.timeoutSeconds = int('timeoutSeconds', values.timeoutSeconds);
      input.heartbeatTimeoutSeconds = int('heartbeatTimeoutSeconds', values.heartbeatTimeoutSeconds);
      input.catchUpLimit = int('catchUpLimit', values.catchUpLimit);
      input.pauseAfterFailures = int('pauseAfterFailures', values.pauseAfterFailures);
      input.misfireGraceSeconds = int('misfireGraceSeconds', values.misfireGraceSeconds);
      if (clocked(values.scheduleType)) input.maxRuns = int('maxRuns', values.maxRuns);
      if (values.scheduleType === 'AFTER') {
        input.after = afterInput(values.after);
        input.afterMode = values.afterMode;
        input.afterWindowSeconds = values.afterMode === 'ALL' ? int('afterWindowSeconds', values.afterWindowSeconds) : null;
      }
      const attempts = int('retryMaxAttempts', values.retryMaxAttempts);
      input.retry =
        attempts === null
          ? null
          : {
              maxAttempts: attempts,
              backoff: values.retryBackoff,
              delaySeconds: int('retryDelaySeconds', values.retryDelaySeconds) ?? 5,
              maxDelaySeconds: int('retryMaxDelaySeconds', values.retryMaxDelaySeconds),
              retryOn: values.retryOn.trim() ? values.retryOn.split(/[\s,]+/).filter(Boolean) : null,
            };
      input.overlap = values.overlap;
      input.maxConcurrentRuns = values.overlap === 'ALLOW' ? int('maxConcurrentRuns', values.maxConcurrentRuns) : null;
      input.jitterSeconds = int('jitterSeconds', values.jitterSeconds);
      input.captureBytes = int('captureBytes', values.captureBytes);
      input.calendars = values.calendars.split(/[\s,]+/).filter(Boolean);
      input.notify = values.notify.split(/[\s,]+/).filter(Boolean);
      input.expectSuccessWithinSeconds = int('expectSuccessWithinSeconds', values.expectSuccessWithinSeconds);
      input.labels = labelsOf(values.labels);
      input.description = values.description.trim() ? values.description : null;
      input.owner = values.owner.trim() ? values.owner : null;
    } catch (err) {
      setError(err);
      return;
    }
    setBusy(true);
    try {
      if (job) {
        const { createJobVersion } = await api.request(Q.createJobVersion, { id: job.id, input: input as NewJobVersionInput });
        navigate(href.job(createJobVersion.id));
      } else {
        const { createJob } = await api.request(Q.createJob, { input: input as CreateJobInput });
        navigate(href.job(createJob.id));
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const field = (name: FieldName, label: string, control: JSX.Element, hint?: ComponentChildren) => {
    const err = errorFor(name);
    return (
      <div class={`field ${err ? 'invalid' : ''}`} data-field={name}>
        <label for={`f-${name}`}>{label}</label>
        {control}
        {hint && <div class="hint">{hint}</div>}
        <FieldError error={err} id={`f-${name}-error`} />
      </div>
    );
  };
  const aria = (name: FieldName) => ({ id: `f-${name}`, name, 'aria-invalid': errorField === name, 'aria-describedby': errorField === name ? `f-${name}-error` : undefined });

  return (
    <section aria-labelledby="form-title">
      <h1 id="form-title">{job ? `New version of ${job.key} (now v${job.version})` : 'New job'}</h1>
      {job && <p class="muted">The new version replaces v{job.version}, which is retired; fields left as they are carry over.</p>}
      <form class="job-form" onSubmit={submit} noValidate>
        {field('key', 'Key', <input {...aria('key')} value={values.key} onInput={set('key')} readOnly={!!job} autoComplete="off" />, 'a stable name, e.g. billing.close-day')}
        {field(
          'target',
          'Target',
          <select {...aria('target')} value={values.target} onChange={set('target')}>
            <option value="">choose…</option>
            {targets.map((t) => (
              <option value={t.name}>
                {t.name}
                {t.description ? ` — ${t.description}` : ''}
              </option>
            ))}
            {values.target && !targets.some((t) => t.name === values.target) && <option value={values.target}>{values.target}</option>}
          </select>,
        )}
        <fieldset class="field">
          <legend>Schedule</legend>
          <label>
            <input type="radio" name="scheduleType" value="RECURRING" checked={values.scheduleType === 'RECURRING'} onChange={() => setValues((v) => ({ ...v, scheduleType: 'RECURRING' }))} /> Recurring (cron)
          </label>
          <label>
            <input type="radio" name="scheduleType" value="INTERVAL" checked={values.scheduleType === 'INTERVAL'} onChange={() => setValues((v) => ({ ...v, scheduleType: 'INTERVAL' }))} /> Every (interval)
          </label>
          <label>
            <input type="radio" name="scheduleType" value="ONE_TIME" checked={values.scheduleType === 'ONE_TIME'} onChange={() => setValues((v) => ({ ...v, scheduleType: 'ONE_TIME' }))} /> Once
          </label>
          <label>
            <input type="radio" name="scheduleType" value="AFTER" checked={values.scheduleType === 'AFTER'} onChange={() => setValues((v) => ({ ...v, scheduleType: 'AFTER' }))} /> After other jobs
          </label>
        </fieldset>
        {values.scheduleType === 'AFTER' && (
          <div class="field-row">
            {field(
              'after',
              'After (upstream job keys)',
              <input {...aria('after')} class="mono" value={values.after} onInput={set('after')} autoComplete="off" placeholder="billing.export, billing.import:FAILED" />,
              'runs when their runs end: on SUCCEEDED, or "key:FAILED" / "key:ANY"',
            )}
            {field(
              'afterMode',
              'With several upstreams',
              <select {...aria('afterMode')} value={values.afterMode} onChange={set('afterMode')}>
                <option value="ANY">ANY — after each one</option>
                <option value="ALL">ALL — once all have ended</option>
              </select>,
            )}
            {values.afterMode === 'ALL' &&
              field('afterWindowSeconds', 'Within (s, optional)', <input {...aria('afterWindowSeconds')} inputMode="numeric" placeholder="since the last run" value={values.afterWindowSeconds} onInput={set('afterWindowSeconds')} />, 'the ends count within this many seconds of the last one')}
          </div>
        )}
        {values.scheduleType === 'RECURRING' && (
          <>
            {field(
              'cronExpression',
              'Cron expression',
              <input {...aria('cronExpression')} class="mono" value={values.cronExpression} onInput={set('cronExpression')} autoComplete="off" placeholder="0 9 * * 1-5" />,
              <>5 fields, 6 with seconds first, or 7 with the year last. {describeCron(values.cronExpression) && <strong>{describeCron(values.cronExpression)}</strong>}</>,
            )}
            {field(
              'moreExpressions',
              'More expressions (optional, one a line)',
              <textarea {...aria('moreExpressions')} class="mono" rows={2} value={values.moreExpressions} onInput={set('moreExpressions')} placeholder="0 12 * * 0,6" />,
              'a slot of any expression is a slot; an instant two of them name runs once',
            )}
          </>
        )}
        {values.scheduleType === 'INTERVAL' && (
          <div class="field-row">
            {field('every', 'Every', <input {...aria('every')} class="mono" value={values.every} onInput={set('every')} autoComplete="off" placeholder="45m" />, '"45m", "1h30m", "90s" or "PT45M"; absolute time, no DST effect')}
            {field('anchorAt', 'First slot (your time zone, optional)', <input {...aria('anchorAt')} type="datetime-local" step="1" value={values.anchorAt} onInput={set('anchorAt')} />, 'default: when the job is created')}
          </div>
        )}
        {values.scheduleType === 'ONE_TIME' && field('runAt', 'Run at (your time zone)', <input {...aria('runAt')} type="datetime-local" step="1" value={values.runAt} onInput={set('runAt')} />)}
        {clocked(values.scheduleType) && (
          <div class="field-row">
            {field('startAt', 'Not before (optional)', <input {...aria('startAt')} type="datetime-local" step="1" value={values.startAt} onInput={set('startAt')} />)}
            {field('endAt', 'Not after (optional)', <input {...aria('endAt')} type="datetime-local" step="1" value={values.endAt} onInput={set('endAt')} />, 'the job retires after its last slot')}
            {field('maxRuns', 'At most this many runs', <input {...aria('maxRuns')} inputMode="numeric" placeholder="no limit" value={values.maxRuns} onInput={set('maxRuns')} />, 'skipped slots do not count')}
          </div>
        )}
        {field(
          'timezone',
          'Time zone (IANA)',
          <>
            <input {...aria('timezone')} list="zones" value={values.timezone} onInput={set('timezone')} autoComplete="off" />
            <datalist id="zones">
              {zones.map((z) => (
                <option value={z} />
              ))}
            </datalist>
          </>,
        )}
        {clocked(values.scheduleType) && (
          <InEnglish
            timezone={values.timezone}
            onParsed={(parsed) =>
              setValues((v) =>
                parsed.every
                  ? { ...v, scheduleType: 'INTERVAL', every: parsed.every }
                  : { ...v, scheduleType: 'RECURRING', cronExpression: parsed.cronExpression ?? '', timezone: parsed.timezone },
              )
            }
          />
        )}
        {values.scheduleType === 'RECURRING' && <FormPreview expression={values.cronExpression} timezone={values.timezone} />}
        {field('payload', 'Payload (JSON, optional)', <textarea {...aria('payload')} class="mono" rows={5} value={values.payload} onInput={set('payload')} />, 'handed to the target as ctx.payload; may hold ${secrets.NAME} where supported')}
        <div class="field-row">
          {field('timeoutSeconds', 'Timeout (s)', <input {...aria('timeoutSeconds')} inputMode="numeric" value={values.timeoutSeconds} onInput={set('timeoutSeconds')} />)}
          {field(
            'heartbeatTimeoutSeconds',
            'Heartbeat timeout (s)',
            <input {...aria('heartbeatTimeoutSeconds')} inputMode="numeric" value={values.heartbeatTimeoutSeconds} onInput={set('heartbeatTimeoutSeconds')} />,
            'a run whose handler is silent this long fails HEARTBEAT_TIMEOUT',
          )}
          {field(
            'catchUp',
            'Missed slots',
            <select {...aria('catchUp')} value={values.catchUp} onChange={set('catchUp')}>
              <option value="NONE">NONE — record them</option>
              <option value="LATEST">LATEST — run the latest</option>
              <option value="ALL">ALL — run them, up to a limit</option>
            </select>,
          )}
          {field('catchUpLimit', 'Catch-up limit', <input {...aria('catchUpLimit')} inputMode="numeric" value={values.catchUpLimit} onInput={set('catchUpLimit')} />)}
          {field('pauseAfterFailures', 'Pause after failures in a row', <input {...aria('pauseAfterFailures')} inputMode="numeric" value={values.pauseAfterFailures} onInput={set('pauseAfterFailures')} />)}
          {field('misfireGraceSeconds', 'Misfire grace (s)', <input {...aria('misfireGraceSeconds')} inputMode="numeric" placeholder="server default" value={values.misfireGraceSeconds} onInput={set('misfireGraceSeconds')} />, 'how late a slot may still start')}
        </div>
        <fieldset class="field policies">
          <legend>Policies</legend>
          <div class="field-row">
            {field('retryMaxAttempts', 'Attempts per slot (retries)', <input {...aria('retryMaxAttempts')} inputMode="numeric" placeholder="1 (no retry)" value={values.retryMaxAttempts} onInput={set('retryMaxAttempts')} />, '1–10, the first included')}
            {field(
              'retryBackoff',
              'Backoff',
              <select {...aria('retryBackoff')} value={values.retryBackoff} onChange={set('retryBackoff')}>
                <option value="EXPONENTIAL">EXPONENTIAL — d·2ⁿ⁻¹</option>
                <option value="LINEAR">LINEAR — d·n</option>
                <option value="FIXED">FIXED — d</option>
              </select>,
            )}
            {field('retryDelaySeconds', 'Base delay d (s)', <input {...aria('retryDelaySeconds')} inputMode="numeric" value={values.retryDelaySeconds} onInput={set('retryDelaySeconds')} />)}
            {field('retryMaxDelaySeconds', 'Longest delay (s)', <input {...aria('retryMaxDelaySeconds')} inputMode="numeric" value={values.retryMaxDelaySeconds} onInput={set('retryMaxDelaySeconds')} />)}
            {field('retryOn', 'Retry only on codes', <input {...aria('retryOn')} class="mono" placeholder="all retryable" value={values.retryOn} onInput={set('retryOn')} />)}
          </div>
          <div class="field-row">
            {field(
              'overlap',
              'When a run is still active',
              <select {...aria('overlap')} value={values.overlap} onChange={set('overlap')}>
                <option value="SKIP">SKIP — record the slot skipped</option>
                <option value="BUFFER_ONE">BUFFER_ONE — one waits, then runs</option>
                <option value="CANCEL_PREVIOUS">CANCEL_PREVIOUS — cancel it, run the new one</option>
                <option value="ALLOW">ALLOW — run side by side</option>
              </select>,
            )}
            {values.overlap === 'ALLOW' &&
              field('maxConcurrentRuns', 'At most at once', <input {...aria('maxConcurrentRuns')} inputMode="numeric" placeholder="1" value={values.maxConcurrentRuns} onInput={set('maxConcurrentRuns')} />)}
            {field('jitterSeconds', 'Jitter (s)', <input {...aria('jitterSeconds')} inputMode="numeric" placeholder="0" value={values.jitterSeconds} onInput={set('jitterSeconds')} />, 'spread starts over this window after each slot')}
            {field('captureBytes', 'HTTP capture (bytes)', <input {...aria('captureBytes')} inputMode="numeric" placeholder="4096" value={values.captureBytes} onInput={set('captureBytes')} />)}
          </div>
          <div class="field-row">
            {field(
              'calendars',
              'Calendars',
              <input {...aria('calendars')} class="mono" placeholder="none" value={values.calendars} onInput={set('calendars')} />,
              <>
                names, comma-separated; slots they exclude are skipped (<a href={href.calendars()}>calendars</a>)
              </>,
            )}
            {field(
              'notify',
              'Notify channels',
              <input {...aria('notify')} class="mono" placeholder="the default channels" value={values.notify} onInput={set('notify')} />,
              'notification channel names, comma-separated',
            )}
            {field(
              'expectSuccessWithinSeconds',
              'Expect success within (s)',
              <input {...aria('expectSuccessWithinSeconds')} inputMode="numeric" placeholder="no deadline" value={values.expectSuccessWithinSeconds} onInput={set('expectSuccessWithinSeconds')} />,
              'no SUCCEEDED run this long after a slot alerts JOB_LATE',
            )}
          </div>
          <div class="field-row">
            {field(
              'labels',
              'Labels',
              <input {...aria('labels')} class="mono" placeholder="team=billing, env=prod" value={values.labels} onInput={set('labels')} />,
              'key=value pairs, comma-separated: what label selectors match',
            )}
            {field('owner', 'Owner', <input {...aria('owner')} placeholder="a team, a person, an address" value={values.owner} onInput={set('owner')} />)}
            {field('description', 'Description', <input {...aria('description')} placeholder="what the job is for" value={values.description} onInput={set('description')} />)}
          </div>
        </fieldset>
        {error && !errorField && <ErrorBox error={error} />}
        <div class="form-buttons">
          <button type="submit" class="primary" disabled={busy}>
            {job ? 'Create version' : 'Create job'}
          </button>
          <a class="button" href={job ? href.job(job.id) : href.jobs()}>
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}

/** What a phrase says: an expression (and the zone, when the text names one), or an interval. */
interface Parsed {
  cronExpression: string | null;
  every: string | null;
  timezone: string;
}

/** "every weekday at 9am" → the expression, "every 45 minutes" → the interval, from the API. */
function InEnglish({ timezone, onParsed }: { timezone: string; onParsed: (parsed: Parsed) => void }) {
  const { api } = useSession();
  const [text, setText] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [said, setSaid] = useState<string | null>(null);
  const use = async () => {
    setError(null);
    setSaid(null);
    try {
      const { parseSchedule } = await api.request(Q.parseSchedule, {
        text,
        timezone: timezone.trim() || 'UTC',
      });
      onParsed({ cronExpression: parseSchedule.cronExpression ?? null, every: parseSchedule.every ?? null, timezone: parseSchedule.timezone });
      setSaid(parseSchedule.description);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <div class="field" data-field="english">
      <label for="f-english">Or say it in English</label>
      <div class="inline">
        <input id="f-english" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} placeholder="every weekday at 9am" autoComplete="off" />
        <button type="button" onClick={() => void use()} disabled={!text.trim()}>
          Use
        </button>
      </div>
      {said && <div class="hint">{said}</div>}
      <FieldError error={error instanceof ApiError ? error : undefined} id="f-english-error" />
    </div>
  );
}

/** The next 5 slots of the expression being typed, from the API (which also says when it is invalid). */
function FormPreview({ expression, timezone }: { expression: string; timezone: string }) {
  const [debounced, setDebounced] = useState({ expression, timezone });
  useEffect(() => {
    const timer = setTimeout(() => setDebounced({ expression: expression.trim(), timezone: timezone.trim() || 'UTC' }), 400);
    return () => clearTimeout(timer);
  }, [expression, timezone]);
  const ready = debounced.expression.length > 0;
  const { data, error } = useQuery(
    Q.preview,
    ready ? { cronExpression: debounced.expression, timezone: debounced.timezone, count: 5 } : null,
    `${debounced.expression}|${debounced.timezone}`,
  );
  if (!ready) return null;
  return (
    <div class="form-preview" aria-live="polite">
      <h2 class="small-heading">Next slots</h2>
      <SlotTable slots={data?.previewScheduleSlots} error={error} timezone={debounced.timezone} />
    </div>
  );
}
