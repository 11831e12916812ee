import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * GraphiQL is GraphiQL's own build, bundled into cronql (scripts/build-graphiql.mjs): serving it
 * installs no second GraphQL server and no browser library at run time.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, unknown> };

/** Packages that are a GraphQL server of their own, or exist to serve one's GraphiQL. */
const SECOND_SERVER = /^(graphql-yoga|@graphql-yoga\/render-graphiql|@graphql-yoga\/graphiql)$/;
/** What the page is made of: bundled at build time, never needed by a running cronql. */
const PAGE_LIBRARIES = /^(graphiql|@graphiql\/.*|react|react-dom|monaco-editor|monaco-graphql)$/;

const nameOf = (lockPath: string) => lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx|mts|js|mjs)$/.test(e.name) && !e.name.endsWith('.generated.ts') ? [rel] : [];
  });
}

describe('GraphiQL without a second GraphQL server', () => {
  it('graphql-yoga is neither declared, locked nor installed', () => {
    const declared = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies });
    expect(declared.filter((n) => SECOND_SERVER.test(n))).toEqual([]);
    // The lock file is what `npm ci` installs, as any package's dependency at any depth.
    const locked = Object.keys(lock.packages).filter((p) => p.includes('node_modules/') && SECOND_SERVER.test(nameOf(p)));
    expect(locked).toEqual([]);
    expect(existsSync(join(root, 'node_modules', 'graphql-yoga'))).toBe(false);
  });

  it('no source file imports graphql-yoga or its GraphiQL renderer', () => {
    const files = [...sourceFiles('src'), ...sourceFiles('scripts')];
    expect(files).toContain('src/http/graphiql.ts'); // the scan does see the sources
    const offenders: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(root, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"]+)['"]/g)) {
        const name = specifier!.startsWith('@') ? specifier!.split('/').slice(0, 2).join('/') : specifier!.split('/')[0]!;
        if (SECOND_SERVER.test(name)) offenders.push(`${file}: ${specifier}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the page’s libraries are dev dependencies only: a production install has none of them', () => {
    expect(Object.keys(manifest.dependencies).filter((n) => PAGE_LIBRARIES.test(n))).toEqual([]);
    expect(manifest.devDependencies).toHaveProperty('graphiql');
    // Nothing a production install gets pulls them in either.
    const runtime = Object.entries(lock.packages).filter(([p, meta]) => p.includes('node_modules/') && !(meta as { dev?: boolean }).dev);
    expect(runtime.map(([p]) => nameOf(p)).filter((n) => PAGE_LIBRARIES.test(n) || SECOND_SERVER.test(n))).toEqual([]);
  });
});

describe('the committed GraphiQL build', () => {
  it('is what `npm run build:graphiql` makes of src/graphiql/app and the locked packages (it has not drifted)', async () => {
    // esbuild bundles React, Monaco and the workers: seconds, more on a busy machine.
    const { stdout } = await promisify(execFile)(process.execPath, ['scripts/build-graphiql.mjs', '--check'], { cwd: root, maxBuffer: 1 << 20 }).catch(
      (err: { stderr?: string }) => {
        throw new Error(err.stderr || String(err));
      },
    );
    expect(stdout).toContain('up to date');
  }, 180_000);
});
