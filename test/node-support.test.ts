import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE, describeRange, unsupportedNodeLine } from '../src/node-support.js';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };

/** Every version from 16.0.0 to 27.x, minors and patches spread over what Node has released. */
function versions(): string[] {
  const out: string[] = [];
  for (let major = 16; major <= 27; major++) {
    for (const minor of [0, 1, 9, 12, 13, 14, 15, 16, 19, 23, 40]) for (const patch of [0, 1, 7]) out.push(`v${major}.${minor}.${patch}`);
  }
  return out;
}

describe('the supported Node versions', () => {
  it("are package.json's engines.node, read at run time (one place says them)", () => {
    expect(SUPPORTED_NODE).toBe(pkg.engines.node);
  });

  it('with the range of this release: 22 from 22.15 and every 24 pass; every other version gets the one line', () => {
    const range = '^22.15.0 || ^24.0.0';
    for (const v of versions()) {
      const [major, minor] = v.slice(1).split('.').map(Number);
      const supported = (major === 22 && minor >= 15) || major === 24;
      expect(unsupportedNodeLine(v, range), v).toBe(supported ? undefined : `cronql: Node ${v.slice(1)} is not supported; use Node 22 (>=22.15) or 24`);
    }
  });

  it('a nightly or an unreadable version is not supported, and says so in the same line', () => {
    expect(unsupportedNodeLine('v24.0.0-nightly20250101abc', '^22.15.0 || ^24.0.0')).toBe('cronql: Node 24.0.0-nightly20250101abc is not supported; use Node 22 (>=22.15) or 24');
    expect(unsupportedNodeLine('not-a-version', '^24.0.0')).toBe('cronql: Node not-a-version is not supported; use Node 24');
  });

  it('ranges are named the way a person reads them', () => {
    expect(describeRange('^22.15.0 || ^24.0.0')).toBe('22 (>=22.15) or 24');
    expect(describeRange('^22.15.3 || ^24.1.0 || ^26.0.0')).toBe('22 (>=22.15.3) or 24 (>=24.1) or 26');
    expect(describeRange('>=24')).toBe('24 or later');
    expect(describeRange(pkg.engines.node)).toMatch(/^\d+/);
  });
});
