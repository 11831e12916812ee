import { describe, expect, it } from 'vitest';
import {
  BUILTIN_TARGET_NAMES,
  createTargetRegistry,
  TargetRegistry,
  validateTargetMap,
} from '../../src/runtime/targets/registry.js';
import type { TargetMap } from '../../src/runtime/targets/target.js';

const noop = async (): Promise<null> => null;

describe('TargetRegistry', () => {
  it('holds the built-ins with descriptions', () => {
    const registry = createTargetRegistry();
    expect(registry).toBeInstanceOf(TargetRegistry);
    for (const name of ['http', 'log', 'sleep']) {
      expect(registry.has(name)).toBe(true);
      expect(typeof registry.get(name)?.handler).toBe('function');
    }
    expect(registry.list().map((t) => t.name)).toEqual(['http', 'log', 'sleep']);
    expect(registry.list().every((t) => typeof t.description === 'string')).toBe(true);
    expect([...BUILTIN_TARGET_NAMES].sort()).toEqual(['http', 'log', 'sleep']);
  });

  it('adds custom targets given as functions or definitions, listed by name', () => {
    const closeDay = async (): Promise<string> => 'closed';
    const registry = createTargetRegistry({
      'billing.close-day': closeDay,
      'a:report_v2': { handler: noop, description: 'Daily report.' },
      Zeta: noop,
    });
    expect(registry.get('billing.close-day')).toEqual({ handler: closeDay, description: undefined });
    expect(registry.list()).toEqual([
      { name: 'Zeta', description: null },
      { name: 'a:report_v2', description: 'Daily report.' },
      { name: 'billing.close-day', description: null },
      { name: 'http', description: expect.any(String) },
      { name: 'log', description: expect.any(String) },
      { name: 'sleep', description: expect.any(String) },
    ]);
  });

  it('knows nothing else, including Object.prototype names', () => {
    const registry = createTargetRegistry({ known: noop });
    for (const name of ['unknown', 'constructor', 'toString', '__proto__', '']) {
      expect(registry.has(name)).toBe(false);
      expect(registry.get(name)).toBeUndefined();
    }
  });

  it('does not see later changes to the map it was built from', () => {
    const custom: TargetMap = { first: noop };
    const registry = createTargetRegistry(custom);
    custom.second = noop;
    expect(registry.has('second')).toBe(false);
  });

  it.each(['http', 'log', 'sleep'])('refuses to let a custom target override the built-in %s', (name) => {
    expect(() => createTargetRegistry({ [name]: noop })).toThrow(
      `TargetRegistry: target "${name}" is built in and cannot be overridden`,
    );
  });

  it.each(['', 'has space', 'slash/name', 'émoji', 'x'.repeat(201)])('rejects the name %j', (name) => {
    expect(() => createTargetRegistry({ [name]: noop })).toThrow(/TargetRegistry: invalid target name/);
  });

  it('accepts a name of 200 characters', () => {
    expect(createTargetRegistry({ ['x'.repeat(200)]: noop }).has('x'.repeat(200))).toBe(true);
  });

  it.each([
    ['a string', 'not a function'],
    ['null', null],
    ['an object without handler', { description: 'no handler' }],
    ['a non-function handler', { handler: 'nope' }],
  ])('rejects %s as a target', (_label, value) => {
    expect(() => createTargetRegistry({ bad: value } as unknown as TargetMap)).toThrow(
      /TargetRegistry: target "bad" must be a function/,
    );
  });

  it('rejects a non-string description', () => {
    expect(() => createTargetRegistry({ bad: { handler: noop, description: 42 } } as unknown as TargetMap)).toThrow(
      'TargetRegistry: target "bad": description must be a string',
    );
  });

  it.each([
    ['null', null],
    ['an array', [noop]],
    ['a Map', new Map([['a', noop]])],
    ['a function', noop],
  ])('rejects %s as the map', (_label, map) => {
    expect(() => validateTargetMap(map)).toThrow('TargetRegistry: targets must be a plain object');
  });
});
