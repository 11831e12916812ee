import { describe, expect, test } from 'vitest';
import { canonical, changedFields, sameValue, specDefinition, type JobSpec } from '../../src/cli/jobs-file.js';

/**
 * `cronql apply` compares every job of a file with the server's without writing either as text
 * (`sameValue`): it must say "the same" exactly when `canonical` writes both the same. Generated
 * values of every shape a definition holds: scalars, null and undefined, lists, mappings in any
 * key order, nested.
 */
function generator(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  const value = (depth: number): unknown => {
    const kind = pick(depth > 2 ? ['scalar', 'scalar'] : ['scalar', 'list', 'map']);
    if (kind === 'scalar') return pick([null, undefined, 0, 1, 2.5, -1, '', 'a', 'b', '1', true, false]);
    if (kind === 'list') return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
    const entries = Array.from({ length: Math.floor(next() * 3) }, () => [pick(['a', 'b', 'c']), value(depth + 1)] as const);
    return Object.fromEntries(entries);
  };
  /** The same value with every mapping's keys in another order. */
  const shuffled = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(shuffled);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).reverse().map(([k, x]) => [k, shuffled(x)]));
    return v;
  };
  return { value, shuffled, next };
}

describe('sameValue', () => {
  test('agrees with canonical on 20,000 generated pairs (equal ones reordered, and unrelated ones)', () => {
    const g = generator(42);
    let equal = 0;
    for (let i = 0; i < 10_000; i++) {
      const a = g.value(0);
      const b = g.value(0);
      for (const [x, y] of [[a, g.shuffled(a)], [a, b]] as const) {
        const same = canonical(x) === canonical(y);
        if (same) equal++;
        expect(sameValue(x, y), `${canonical(x)} vs ${canonical(y)}`).toBe(same);
      }
    }
    expect(equal).toBeGreaterThan(10_000); // every reordered pair, and some unrelated ones
  });

  test('changedFields names exactly the fields whose canonical forms differ', () => {
    const spec: JobSpec = { key: 'k', target: 'log', cron: '0 3 * * *', payload: { a: 1, b: [1, { c: 2 }] }, labels: { team: 'x' } };
    const live = { ...specDefinition(spec), payload: { b: [1, { c: 2 }], a: 1 } };
    expect(changedFields(live, specDefinition(spec))).toEqual([]);
    expect(changedFields({ ...live, timezone: 'Europe/Paris', labels: { team: 'y' } }, specDefinition(spec))).toEqual(['timezone', 'labels']);
  });
});
