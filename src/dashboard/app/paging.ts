import { useEffect, useState } from 'preact/hooks';

export interface Paging {
  page: number;
  after: string | null;
  size: number;
  next(endCursor: string | null | undefined): void;
  previous(): void;
  setSize(size: number): void;
}

/**
 * Forward cursor paging with a way back: the cursors of the pages passed are kept. Back to the
 * first page whenever `resetKey` (the filter) changes.
 */
export function usePaging(resetKey: string, initialSize = 50): Paging {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [size, setSize] = useState(initialSize);
  useEffect(() => setCursors([null]), [resetKey, size]);
  return {
    page: cursors.length - 1,
    after: cursors[cursors.length - 1] ?? null,
    size,
    next: (endCursor) => endCursor && setCursors((c) => [...c, endCursor]),
    previous: () => setCursors((c) => (c.length > 1 ? c.slice(0, -1) : c)),
    setSize,
  };
}
