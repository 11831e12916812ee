/**
 * Marks on the slots `previewSchedule` returns, so an operator sees where daylight-saving time
 * bends a schedule. cronql's policy (docs/behaviour.md) decides the slots; this only explains
 * them, from two facts:
 *
 * - **repeated**: the slot's local time occurs twice that day (the hour repeated when clocks go
 *   back). A pure time-zone fact.
 * - **shifted**: the local time the expression asked for did not exist (clocks went forward
 *   over it), and the slot is that time moved forward by the gap. Known from the zone (the slot
 *   lies within one gap after a forward transition) and from the expression's second, minute and
 *   hour fields (they match the local time minus the gap, not the slot's own local time).
 *
 * Pure (no DOM): instants in, marks out; the node tests run it too.
 */
export type SlotMark = 'shifted' | 'repeated';

export interface SlotExplanation {
  mark: SlotMark;
  /** e.g. "02:30 does not exist on 2026-03-08 (clocks go forward); runs at 03:30" */
  note: string;
}

/** A zone's transitions are at least this far apart (real zones: months). */
const PROBE_MS = 3 * 3_600_000;

const dtfs = new Map<string, Intl.DateTimeFormat>();
function dtf(timeZone: string): Intl.DateTimeFormat {
  let f = dtfs.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      hourCycle: 'h23',
    });
    dtfs.set(timeZone, f);
  }
  return f;
}

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallAt(timeZone: string, t: number): Wall {
  const parts: Record<string, number> = {};
  for (const p of dtf(timeZone).formatToParts(new Date(t))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { year: parts.year!, month: parts.month!, day: parts.day!, hour: parts.hour! % 24, minute: parts.minute!, second: parts.second! };
}

/** Local wall-clock time minus UTC at instant `t`, in milliseconds. */
export function zoneOffsetMs(timeZone: string, t: number): number {
  const w = wallAt(timeZone, t);
  const whole = t - (((t % 1000) + 1000) % 1000);
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - whole;
}

type FieldSet = Set<number> | null; // null: the field could not be read

function parseField(text: string, min: number, max: number): FieldSet {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|\?|\d+)(?:-(\d+))?(?:\/(\d+))?$/.exec(part.trim());
    if (!m) return null;
    const star = m[1] === '*' || m[1] === '?';
    const from = star ? min : Number(m[1]);
    const to = m[2] !== undefined ? Number(m[2]) : star || m[3] !== undefined ? max : from;
    const step = m[3] !== undefined ? Number(m[3]) : 1;
    if (from < min || to > max || from > to || step < 1) return null;
    for (let v = from; v <= to; v += step) values.add(v);
  }
  return values;
}

interface TimeFields {
  second: FieldSet;
  minute: FieldSet;
  hour: FieldSet;
}

function timeFields(expression: string): TimeFields | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return null;
  const withSeconds = fields.length === 6;
  const second = withSeconds ? parseField(fields[0]!, 0, 59) : new Set([0]);
  const minute = parseField(fields[withSeconds ? 1 : 0]!, 0, 59);
  const hour = parseField(fields[withSeconds ? 2 : 1]!, 0, 23);
  if (!second || !minute || !hour) return null;
  return { second, minute, hour };
}

const matches = (f: TimeFields, w: Wall) => f.second!.has(w.second) && f.minute!.has(w.minute) && f.hour!.has(w.hour);

const hhmm = (w: Wall) =>
  `${String(w.hour).padStart(2, '0')}:${String(w.minute).padStart(2, '0')}${w.second ? `:${String(w.second).padStart(2, '0')}` : ''}`;
const ymd = (w: Wall) => `${w.year}-${String(w.month).padStart(2, '0')}-${String(w.day).padStart(2, '0')}`;

/** Why a slot is special in its zone, or null when it is an ordinary slot. */
export function explainSlot(expression: string, timeZone: string, slot: string): SlotExplanation | null {
  const t = Date.parse(slot);
  if (Number.isNaN(t)) return null;
  let offset: number;
  try {
    offset = zoneOffsetMs(timeZone, t);
  } catch {
    return null; // a zone this browser does not know
  }
  const before = zoneOffsetMs(timeZone, t - PROBE_MS);
  const after = zoneOffsetMs(timeZone, t + PROBE_MS);
  const wall = wallAt(timeZone, t);

  // Clocks go back after t: the same wall time comes again `fold` later.
  if (after < offset && zoneOffsetMs(timeZone, t + (offset - after)) === after) {
    return { mark: 'repeated', note: `${hhmm(wall)} occurs twice on ${ymd(wall)} (clocks go back); this is the first` };
  }
  // Clocks went back before t: the same wall time came `fold` earlier.
  if (before > offset && zoneOffsetMs(timeZone, t - (before - offset)) === before) {
    return { mark: 'repeated', note: `${hhmm(wall)} occurs twice on ${ymd(wall)} (clocks go back); this is the second` };
  }
  // Clocks went forward less than one gap before t: the wall time one gap earlier did not exist.
  if (before < offset) {
    const gap = offset - before;
    if (zoneOffsetMs(timeZone, t - gap) !== offset) {
      const fields = timeFields(expression);
      const asked = wallAt('UTC', t + before); // the wall time one gap earlier, as digits
      if (fields && !matches(fields, wall) && matches(fields, asked)) {
        return { mark: 'shifted', note: `${hhmm(asked)} does not exist on ${ymd(wall)} (clocks go forward); runs at ${hhmm(wall)}` };
      }
    }
  }
  return null;
}
