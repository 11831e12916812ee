import type { RunFilter, RunRow } from './queries.js';

/**
 * Whether a run belongs in a list shown with `filter`: the predicate of the server's `runs` and
 * `runChanged` filters (plain equality and bounds), applied to live changes so a list keeps
 * showing what its filter asks for.
 */
export function runMatches(run: RunRow, f: RunFilter): boolean {
  if (f.jobKey && run.jobKey !== f.jobKey) return false;
  if (f.status?.length && !f.status.includes(run.status)) return false;
  if (f.target && run.target !== f.target) return false;
  if (f.triggerType?.length && !f.triggerType.includes(run.triggerType)) return false;
  const at = Date.parse(run.scheduledAt);
  if (f.scheduledAfter && !(at > Date.parse(f.scheduledAfter))) return false;
  if (f.scheduledBefore && !(at < Date.parse(f.scheduledBefore))) return false;
  return true;
}

/**
 * A page of runs (newest scheduledAt first) after a batch of live changes: listed runs take
 * their new state (or leave, when they no longer match); on the first page, new matching runs
 * come in at their place; the page keeps its size. `added`/`removed` adjust the total.
 */
export function mergeRuns(rows: RunRow[], batch: RunRow[], filter: RunFilter, firstPage: boolean, size: number, known: Set<string>): { rows: RunRow[]; added: number; removed: number } {
  const index = new Map(rows.map((r, i) => [r.id, i]));
  let next: (RunRow | null)[] | null = null;
  const incoming: RunRow[] = [];
  let added = 0;
  let removed = 0;
  for (const change of batch) {
    const i = index.get(change.id);
    if (i !== undefined) {
      next ??= rows.slice();
      const merged = { ...(next[i] ?? rows[i]!), ...change };
      if (runMatches(merged, filter)) next[i] = merged;
      else if (next[i]) {
        next[i] = null;
        removed += 1;
      }
    } else if (runMatches(change, filter)) {
      if (!known.has(change.id)) {
        known.add(change.id);
        added += 1;
      }
      if (firstPage) incoming.push(change);
    }
  }
  if (!next && incoming.length === 0) return { rows, added, removed };
  const kept = (next ?? rows).filter((r): r is RunRow => r !== null);
  if (incoming.length === 0) return { rows: kept, added, removed };
  const last = kept.at(-1);
  const fits = incoming.filter((r) => kept.length < size || !last || r.scheduledAt >= last.scheduledAt);
  const all = [...fits, ...kept].sort((a, b) => (a.scheduledAt < b.scheduledAt ? 1 : a.scheduledAt > b.scheduledAt ? -1 : a.id < b.id ? 1 : -1));
  return { rows: all.slice(0, size), added, removed };
}
