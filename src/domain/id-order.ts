/**
 * Uuid order: the order of ids as their lowercase text, which is PostgreSQL's order of the uuids.
 * The fire statement takes its keys in (job, slot) order, and co-due slots are cut into ranges of
 * job ids (`db/runs/fire.ts`, `splitByJob`); the runtime arms its jobs in this order, so that their
 * slots come due in it and need no sorting at a fire (`runtime/runtime.ts`).
 */

const byId = <T>(idOf: (t: T) => string) => (a: T, b: T): number => {
  const x = idOf(a);
  const y = idOf(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** Whether the items are in id order. */
export function inIdOrder<T>(items: readonly T[], idOf: (t: T) => string): boolean {
  for (let i = 1; i < items.length; i++) if (idOf(items[i - 1]) > idOf(items[i])) return false;
  return true;
}

/** Items up to which an item's index fits beside its id's first 32 bits in a double. */
const INDEX_BITS = 21;
const INDEXES = 2 ** INDEX_BITS;

/** The first eight characters of an id as a number, if they are lowercase hex digits (a uuid's); else -1. */
function prefix32(id: string): number {
  let value = 0;
  for (let k = 0; k < 8; k++) {
    const c = id.charCodeAt(k); // NaN past the end: not a digit
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * A copy of the items in id order, stable (items of one id keep their order). A uuid's first
 * eight hex digits, as a number, order it as its text does: each item's number and index, packed
 * in one double, are sorted by the typed array's own numeric sort — no comparator called per
 * comparison, which for 10,000 co-due slots took 8–16 ms and for 50,000 77–113 ms at every fire
 * (3–11 and 23–47 ms this way), between the slot and the statements leaving (BENCHMARKS.md,
 * "2026-11-26 (s8, N)"). Ids alike in their first 32 bits are ordered by their text after; items
 * with an id that is not a lowercase uuid are sorted by text.
 */
export function sortedById<T>(items: readonly T[], idOf: (t: T) => string): T[] {
  const n = items.length;
  const keys = n <= INDEXES ? new Float64Array(n) : undefined;
  for (let i = 0; keys && i < n; i++) {
    const prefix = prefix32(idOf(items[i]));
    if (prefix < 0) return [...items].sort(byId(idOf));
    keys[i] = prefix * INDEXES + i;
  }
  if (!keys) return [...items].sort(byId(idOf));
  keys.sort();
  const out = new Array<T>(n);
  for (let i = 0; i < n; i++) out[i] = items[keys[i] % INDEXES];
  // Runs of ids alike in their first 32 bits (a few among 50,000 random ones): by their text.
  for (let i = 1; i < n; i++) {
    const prefix = Math.floor(keys[i - 1] / INDEXES);
    if (Math.floor(keys[i] / INDEXES) !== prefix) continue;
    let end = i + 1;
    while (end < n && Math.floor(keys[end] / INDEXES) === prefix) end++;
    const run = out.slice(i - 1, end).sort(byId(idOf));
    for (let k = 0; k < run.length; k++) out[i - 1 + k] = run[k];
    i = end;
  }
  return out;
}
