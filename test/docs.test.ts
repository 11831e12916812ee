import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Kind, buildSchema, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TUNABLES } from '../src/config.js';
import { FailureCode } from '../src/domain/enums.js';
import { type Files, ROOT, anchorsOf, citingFiles, describeProblems, problemsIn, repositoryProblems, slug } from './support/doc-references.js';

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

/** The text of every file under `dirs` (relative to the root) whose name matches `ext`. */
function texts(dirs: string[], ext = /\.(ts|tsx|mjs|md)$/): string {
  return citingFiles()
    .filter((f) => dirs.some((d) => f === d || f.startsWith(`${d}/`)) && ext.test(f))
    .map((f) => readFileSync(join(ROOT, f), 'utf8'))
    .join('\n');
}
const DOCS = ['docs', 'README.md', 'BENCHMARKS.md'];
const unique = (matches: IterableIterator<RegExpMatchArray>, group = 1) => [...new Set([...matches].map((m) => m[group]!))].sort();

describe('the names the docs use are the code’s', () => {
  it('every metric a doc names is registered, and every registered metric is in docs/operations.md', () => {
    const code = texts(['src']);
    const docs = texts(DOCS);
    const named = unique(docs.matchAll(/\b(cronql_[a-z0-9_]*[a-z0-9])\b(?!_\*)/g));
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((n) => !code.includes(`'${n}'`))).toEqual([]);
    // `cronql_process_*`, `cronql_nodejs_*`: prom-client's default metrics, under cronql's prefix.
    if (/cronql_(process|nodejs)_\*/.test(docs)) expect(code).toMatch(/collectDefaultMetrics\(\{[^}]*prefix: 'cronql_'/);
    const registered = unique(readFileSync(join(ROOT, 'src/metrics/metrics.ts'), 'utf8').matchAll(/name: '(cronql_[a-z0-9_]+)'/g));
    expect(registered.length).toBeGreaterThan(5);
    const operations = readFileSync(join(ROOT, 'docs/operations.md'), 'utf8');
    expect(registered.filter((n) => !operations.includes(`\`${n}\``))).toEqual([]);
  });

  it('every environment variable a doc names is read by the code, and every one the code reads is in docs/configuration.md', () => {
    const code = texts(['src', 'test', 'bench', 'scripts']);
    const named = unique(texts(DOCS).matchAll(/\b(CRONQL_[A-Z0-9_]*[A-Z0-9])\b/g));
    expect(named.length).toBeGreaterThan(10);
    expect(named.filter((n) => !code.includes(n))).toEqual([]);
    const read = unique(texts(['src']).matchAll(/\b(CRONQL_[A-Z0-9_]*[A-Z0-9]|DATABASE_URL|LOG_LEVEL)\b/g));
    const configuration = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    expect(read.filter((n) => !configuration.includes(`\`${n}\``))).toEqual([]);
  });

  it('docs/configuration.md gives each tunable its default and bounds as src/config.ts has them', () => {
    const configuration = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
    const wrong = Object.values(TUNABLES).flatMap((t) => {
      const problems: string[] = [];
      if (!configuration.includes(`| \`${t.env}\` | ${t.default} |`)) problems.push(`${t.env}: default ${t.default}`);
      const bounds = `${t.min.toLocaleString('en-US')}–${t.max.toLocaleString('en-US')}`;
      if (!configuration.replace(/\s+/g, ' ').includes(`\`${t.env}\` ${bounds}`)) problems.push(`${t.env}: bounds ${bounds}`);
      return problems;
    });
    expect(wrong).toEqual([]);
  });

  it('every run failure code the code records is in docs/api.md', () => {
    const api = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
    const codes = Object.values(FailureCode);
    expect(codes.length).toBeGreaterThan(10);
    expect(codes.filter((c) => !api.includes(`\`${c}\``))).toEqual([]);
  });

  it('every `cronql …` command and option the docs show exists in the command line', () => {
    const cli = readFileSync(join(ROOT, 'src/cli/commands.ts'), 'utf8');
    // `program.command('x')`, `jobs.command('get <id>')`, and chains `.command('list')` under `jobs`/`runs`.
    const commands = new Set([...cli.matchAll(/(\w+)\s*\.command\('([\w-]+)/g)].map(([, parent, name]) => (['jobs', 'runs'].includes(parent!) ? `${parent} ${name}` : name!)));
    for (const m of cli.matchAll(/^(jobs|runs)\n\s+\.command\('([\w-]+)/gm)) commands.add(`${m[1]} ${m[2]}`);
    const options = new Set([...cli.matchAll(/Option\('(--[\w-]+)|option\('(--[\w-]+)/g)].map((m) => m[1] ?? m[2]!));
    const shown = DOCS.flatMap((d) => citingFiles().filter((f) => (f === d || f.startsWith(`${d}/`)) && f.endsWith('.md')))
      .flatMap((f) => [...readFileSync(join(ROOT, f), 'utf8').matchAll(/`cronql ([^`]+)`/g)].map((m) => m[1]!.replace(/\\\|/g, '|')));
    expect(shown.length).toBeGreaterThan(5);
    const missing: string[] = [];
    for (const usage of shown) {
      const [command, second] = usage.split(/\s+/);
      const subs = ['jobs', 'runs'].includes(command!) ? second!.split('|').map((s) => `${command} ${s}`) : [command!];
      for (const c of subs) if (!commands.has(c)) missing.push(`cronql ${c}`);
      for (const [o] of usage.matchAll(/--[\w-]+/g)) if (!options.has(o)) missing.push(`${usage}: ${o}`);
    }
    expect(missing).toEqual([]);
  });

  it('the README’s layout names every folder of src/', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const layout = readme.slice(readme.indexOf('## Layout'));
    const folders: string[] = [];
    const walk = (rel: string) => {
      folders.push(rel);
      for (const e of readdirSync(join(ROOT, rel), { withFileTypes: true })) if (e.isDirectory()) walk(`${rel}/${e.name}`);
    };
    walk('src');
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((f) => !layout.includes(`\`${f}/\``))).toEqual([]);
  });
});

describe('the GraphQL the docs show is valid against the schema', () => {
  const schema = buildSchema(readFileSync(join(ROOT, 'schema/schema.graphql'), 'utf8'));
  const docs = DOCS.flatMap((d) => citingFiles().filter((f) => (f === d || f.startsWith(`${d}/`)) && f.endsWith('.md')));

  /** Operations in ```graphql blocks and in inline code (`query { … }`), with `…` standing for any selection. */
  const operations = (text: string): string[] => [
    ...[...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^\s*(query|mutation|subscription|\{)/.test(b)),
    ...[...text.matchAll(/`((?:query|mutation|subscription)\s*\{[^`]*)`/g)].map((m) => m[1]!),
  ].map((op) => op.replace(/…/g, '__typename'));

  /** The problems of each operation in `text`, each definition validated on its own. */
  const problems = (text: string): string[] =>
    operations(text).flatMap((op) => parse(op).definitions.flatMap((d) => validate(schema, { kind: Kind.DOCUMENT, definitions: [d] }).map((e) => `${e.message}\n    in: ${op.replace(/\s+/g, ' ')}`)));

  it('every operation in README.md and docs/ validates', () => {
    const found = docs.flatMap((f) => operations(readFileSync(join(ROOT, f), 'utf8')));
    expect(found.length).toBeGreaterThan(3);
    expect(docs.flatMap((f) => problems(readFileSync(join(ROOT, f), 'utf8')).map((p) => `${f}: ${p}`))).toEqual([]);
  });

  it('every Type.field the docs name exists', () => {
    const missing = docs.flatMap((f) =>
      [...readFileSync(join(ROOT, f), 'utf8').matchAll(/`([A-Z][A-Za-z]+)\.([a-z][A-Za-z]*)`/g)]
        .filter(([, type, field]) => {
          const t = schema.getType(type!);
          return t && 'getFields' in t && !(field! in t.getFields());
        })
        .map(([m]) => `${f}: ${m}`),
    );
    expect(missing).toEqual([]);
  });

  it('reports an operation that does not validate', () => {
    expect(problems('`query { instances { id nosuchfield } }`')).toHaveLength(1);
    expect(problems('```graphql\nmutation { pauseJob(id: "x") { id } }\n```\n')).toHaveLength(1); // the reason is required
    expect(problems('`query { stats(window: 24) { … } }`')).toEqual([]);
  });
});
