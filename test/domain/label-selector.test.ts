import { describe, expect, it } from 'vitest';
import {
  MAX_LABELS,
  MAX_SELECTOR_LENGTH,
  MAX_SELECTOR_TERMS,
  MAX_SELECTOR_VALUES,
  formatSelector,
  matchesSelector,
  parseLabelSelector,
  validateLabels,
} from '../../src/domain/label-selector.js';
import { CronqlError } from '../../src/errors.js';

const thrown = (f: () => unknown): CronqlError => {
  try {
    f();
  } catch (error) {
    if (error instanceof CronqlError) return error;
    throw error;
  }
  throw new Error('did not throw');
};

describe('parseLabelSelector', () => {
  it('reads every form of term of the grammar', () => {
    expect(parseLabelSelector('team=billing, env == prod,tier!=dev, zone in (a, b), x notin (c),legacy,!old').terms).toEqual([
      { op: 'eq', key: 'team', value: 'billing' },
      { op: 'eq', key: 'env', value: 'prod' },
      { op: 'neq', key: 'tier', value: 'dev' },
      { op: 'in', key: 'zone', values: ['a', 'b'] },
      { op: 'notin', key: 'x', values: ['c'] },
      { op: 'exists', key: 'legacy' },
      { op: 'notexists', key: 'old' },
    ]);
    expect(parseLabelSelector('team=').terms).toEqual([{ op: 'eq', key: 'team', value: '' }]);
    expect(parseLabelSelector('in').terms).toEqual([{ op: 'exists', key: 'in' }]);
  });

  it('an empty or blank selector has no terms and matches everything', () => {
    for (const text of ['', '   ']) {
      const selector = parseLabelSelector(text);
      expect(selector.terms).toEqual([]);
      expect(matchesSelector(selector, {})).toBe(true);
    }
  });

  it.each([
    ['team=billing,', 'does not end with ","'],
    [',team', 'expected a label key'],
    ['Team=a', 'is not a label key'],
    ['team=a b', 'expected "," or the end'],
    ['team in ()', 'expected a value'],
    ['team in (a', 'expected "," or ")"'],
    ['team in a', 'expected "("'],
    ['team>1', 'unexpected character ">"'],
    ['team=a=b', 'expected "," or the end'],
    ['team===a', 'expected a value'],
    ['!team=a', 'expected "," or the end'],
    ['team is a', 'expected =, ==, !=, in, notin'],
    ['team=(a)', 'expected a value'],
    ['team=' + 'v'.repeat(64), 'is not a label value'],
    ['k'.repeat(64), 'is not a label key'],
  ])('refuses %j with INVALID_SELECTOR naming the position and term', (text, message) => {
    const error = thrown(() => parseLabelSelector(text));
    expect(error.code).toBe('INVALID_SELECTOR');
    expect(error.message).toContain(message);
    expect(error.message).toMatch(/at position \d+/);
  });

  it('bounds the length, the terms and the values of a list', () => {
    expect(thrown(() => parseLabelSelector('a'.repeat(MAX_SELECTOR_LENGTH + 1))).code).toBe('INVALID_SELECTOR');
    const terms = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`).join(',');
    expect(parseLabelSelector(terms(MAX_SELECTOR_TERMS)).terms).toHaveLength(MAX_SELECTOR_TERMS);
    expect(thrown(() => parseLabelSelector(terms(MAX_SELECTOR_TERMS + 1))).message).toContain(`at most ${MAX_SELECTOR_TERMS} terms`);
    const list = (n: number) => `k in (${Array.from({ length: n }, (_, i) => `v${i}`).join(',')})`;
    expect(parseLabelSelector(list(MAX_SELECTOR_VALUES)).terms).toHaveLength(1);
    expect(thrown(() => parseLabelSelector(list(MAX_SELECTOR_VALUES + 1))).message).toContain(`at most ${MAX_SELECTOR_VALUES} values`);
  });

  it('the canonical form parses to the same terms', () => {
    const selector = parseLabelSelector(' team = billing ,zone in ( a ,b ),!old ');
    expect(formatSelector(selector)).toBe('team=billing,zone in (a,b),!old');
    expect(parseLabelSelector(formatSelector(selector))).toEqual(selector);
  });
});

describe('matchesSelector', () => {
  const labels = { team: 'billing', env: 'prod' };
  it.each([
    ['team=billing', true],
    ['team=ops', false],
    ['team!=ops', true],
    ['owner!=x', true],
    ['env in (dev,prod)', true],
    ['owner in (x)', false],
    ['env notin (prod)', false],
    ['owner notin (x)', true],
    ['team', true],
    ['owner', false],
    ['!owner', true],
    ['!team', false],
    ['team=billing,env=dev', false],
  ])('%s → %s', (text, expected) => {
    expect(matchesSelector(parseLabelSelector(text), labels)).toBe(expected);
  });
});

describe('validateLabels', () => {
  it('keeps a valid object', () => {
    expect(validateLabels({ team: 'billing', 'app.io/tier': 'Gold-1', flag: '' })).toEqual({ team: 'billing', 'app.io/tier': 'Gold-1', flag: '' });
  });
  it.each([
    [null],
    [[]],
    ['team=billing'],
    [{ Team: 'a' }],
    [{ '': 'a' }],
    [{ _x: 'a' }],
    [{ ['k'.repeat(64)]: 'a' }],
    [{ team: 3 }],
    [{ team: null }],
    [{ team: { nested: 'x' } }],
    [{ team: 'a b' }],
    [{ team: 'v'.repeat(64) }],
    [Object.fromEntries(Array.from({ length: MAX_LABELS + 1 }, (_, i) => [`k${i}`, 'v']))],
  ])('refuses %j with INVALID_LABELS', (value) => {
    expect(thrown(() => validateLabels(value)).code).toBe('INVALID_LABELS');
  });
});
