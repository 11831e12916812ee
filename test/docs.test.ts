import { describe, expect, it } from 'vitest';
import { type Files, anchorsOf, citingFiles, describeProblems, problemsIn, repositoryProblems, slug } from './support/doc-references.js';

/** A small repository in memory: the checker must find what is wrong in it. */
const fixture = (tree: Record<string, string>): Files => ({
  exists: (p) => p in tree || Object.keys(tree).some((f) => f.startsWith(`${p}/`)),
  read: (p) => tree[p] ?? '',
});

// Spelled in pieces so that this file does not cite them itself.
const FOREIGN_NAMES = ['PRO' + 'DUCT.md', 'A' + 'PI.md', 'STA' + 'CK.md', 'the P' + 'DR', 'the Do' + 'D check', 'issue ' + '#6', '../sha' + 'red/API.md'];

describe('what the repository cites is in the repository', () => {
  it('finds nothing missing in src/, test/, docs/, bench/, scripts/, migrations/, README.md, BENCHMARKS.md', () => {
    // It reads what it claims to read …
    expect(citingFiles()).toEqual(expect.arrayContaining(['README.md', 'BENCHMARKS.md', 'docs/product.md', 'src/config.ts', 'test/graphql/contract.graphql', 'migrations/Migration20261122000000_initial.ts']));
    // … and finds every citation there.
    const problems = repositoryProblems();
    expect(problems, describeProblems(problems)).toEqual([]);
  });

  it('reports each name of a document outside the repository', () => {
    const files = fixture({ 'src/a.ts': '' });
    for (const name of FOREIGN_NAMES) {
      const problems = problemsIn('src/a.ts', `// see ${name} for why`, files);
      expect(problems.length, name).toBeGreaterThan(0);
      expect(problems[0]).toMatchObject({ file: 'src/a.ts', line: 1 });
    }
  });

  it('reports docs/ paths and .md names that do not exist, and accepts those that do', () => {
    const files = fixture({ 'docs/behaviour.md': '# B\n', 'README.md': '', 'src/x/a.ts': '' });
    const problems = problemsIn(
      'src/x/a.ts',
      ['// docs/behaviour.md says so', '// docs/ledger.md says so', '// see README.md', '// see NOTES.md', '// (see behaviour.md)', '// https://example.com/other.md'].join('\n'),
      files,
    );
    expect(problems.map((p) => p.line)).toEqual([2, 4]);
    expect(problems[0]!.why).toContain('docs/ledger.md');
    expect(problems[1]!.why).toContain('NOTES.md');
  });

  it('reports markdown links to missing files and missing anchors', () => {
    const files = fixture({
      'docs/a.md': '',
      'docs/b.md': '# B\n## Run failure codes (`Run.failureCode`)\n## Twice\n## Twice\n',
      'src/index.ts': '',
    });
    const text = [
      '[ok](b.md)',
      '[ok](b.md#run-failure-codes-runfailurecode)',
      '[ok](b.md#twice-1)',
      '[ok](../src/index.ts)',
      '[ok](https://example.com/missing.md)',
      '[missing file](c.md)',
      '[missing anchor](b.md#no-such-heading)',
      '[outside](../../elsewhere.md)',
    ].join('\n');
    const problems = problemsIn('docs/a.md', text, files);
    expect(problems.map((p) => p.line)).toEqual([6, 7, 8]);
  });

  it('computes anchors as GitHub does', () => {
    expect(slug('Run failure codes (`Run.failureCode`)')).toBe('run-failure-codes-runfailurecode');
    expect(slug('Every slot is a row: the ledger')).toBe('every-slot-is-a-row-the-ledger');
    expect([...anchorsOf('# A\n```\n# not a heading\n```\n## A\n')]).toEqual(['a', 'a-1']);
  });
});
