/** How instants, durations and JSON are shown. Times are the browser's local time unless a zone is given. */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string | undefined, withZone: boolean): Intl.DateTimeFormat {
  const key = `${timeZone ?? ''}|${withZone}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
      ...(withZone ? { timeZoneName: 'shortOffset' as const } : {}),
    });
    formatters.set(key, f);
  }
  return f;
}

/** `2026-03-08 03:30:00` (ISO-like order), in `timeZone` or the browser's zone; `—` for null. */
export function formatTime(iso: string | null | undefined, timeZone?: string, withZone = false): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const parts = Object.fromEntries(formatter(timeZone, withZone).formatToParts(date).map((p) => [p.type, p.value]));
  const text = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
  return withZone && parts.timeZoneName ? `${text} ${parts.timeZoneName}` : text;
}

/** `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms == null) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** `in 5 s`, `3 min ago`: for "next run" and "last run" at a glance. */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return '';
  const delta = new Date(iso).getTime() - now;
  const abs = Math.abs(delta);
  const text =
    abs < 1000 ? 'now' : abs < 60_000 ? `${Math.round(abs / 1000)} s` : abs < 3_600_000 ? `${Math.round(abs / 60_000)} min` : abs < 86_400_000 ? `${Math.round(abs / 3_600_000)} h` : `${Math.round(abs / 86_400_000)} d`;
  if (text === 'now') return 'now';
  return delta > 0 ? `in ${text}` : `${text} ago`;
}

export function formatJson(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  return JSON.stringify(value, null, 2);
}
