import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { RunRow, TypedDocumentString } from './queries.js';
import { useSession } from './session-context.js';

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/**
 * A query's result, loaded again when `key` changes or `reload()` is called. The previous data
 * stays on screen while the next one loads (no flicker under live reloads), and an answer that
 * arrives after a newer request was made is dropped.
 */
export function useQuery<T, V>(query: TypedDocumentString<T, V>, variables: V | null, key: string): Loaded<T> {
  const { api } = useSession();
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  const vars = useRef(variables);
  vars.current = variables;
  useEffect(() => {
    if (vars.current === null) return;
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    api.request(query, vars.current).then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: unknown) => mine === seq.current && setState((s) => ({ data: s.data, error, loading: false })),
    );
  }, [api, query, key, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/**
 * What a form or button does when used: `busy` while `action` runs (its button disabled), its error
 * kept for the form to show (cleared on the next try). One place for what every dialog did by hand.
 */
export function useSubmit(action: () => Promise<void>): { busy: boolean; error: unknown; submit(e?: Event): Promise<void> } {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

/** Calls `listener` with each batch of live run changes (at most one batch per frame). */
export function useLiveRuns(listener: (runs: RunRow[]) => void): void {
  const { live } = useSession();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => live.onChanges((runs) => latest.current(runs)), [live]);
}

/** Calls `listener` after the live connection came back: changes may have been missed. */
export function useResync(listener: () => void): void {
  const { live } = useSession();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => live.onResync(() => latest.current()), [live]);
}

/**
 * `fn`, called at most once per `ms` (the last call of a burst always runs): for reloading a
 * page of jobs when their runs change, whatever the rate of changes.
 */
export function useThrottled(fn: () => void, ms: number): () => void {
  const latest = useRef(fn);
  latest.current = fn;
  const state = useRef<{ timer?: ReturnType<typeof setTimeout>; last: number; queued: boolean }>({ last: 0, queued: false });
  useEffect(() => () => clearTimeout(state.current.timer), []);
  return useCallback(() => {
    const s = state.current;
    if (s.timer) {
      s.queued = true;
      return;
    }
    const run = () => {
      s.last = Date.now();
      s.queued = false;
      latest.current();
      s.timer = setTimeout(() => {
        s.timer = undefined;
        if (s.queued) run();
      }, ms);
    };
    run();
  }, [ms]);
}

/** The current time, updated every `ms` (relative times such as "in 5 s"). */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}
