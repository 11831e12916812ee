import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';

/**
 * What the repository's text cites must be in the repository: a reader (or a new engineer)
 * following a comment or a doc must find what it points at. Three kinds of citation are checked:
 * relative markdown links (with their `#anchor`), `docs/…` paths, and `*.md` names; and the
 * names of documents that were never part of the repository must not occur at all.
 */

/** The repository's root. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Where citations are looked for (relative to the root). */
export const CITING = ['src', 'test', 'docs', 'bench', 'scripts', 'migrations', 'README.md', 'BENCHMARKS.md'];

const TEXT = /\.(ts|tsx|mts|js|mjs|md|graphql|json|ya?ml)$/;
/**
 * Not checked: generated files (built from sources that are checked), and the checker's own
 * test, whose fixtures cite missing documents on purpose.
 */
const SKIPPED = /bundle\.generated\.ts$|src\/client\/generated\/|^test\/docs\.test\.ts$/;

/**
 * Documents outside the repository, named as they were cited: the product brief, the API and
 * stack notes, the product's decision record and its definition of done, an issue tracker. The
 * patterns are written so that they do not match their own source text.
 */
const FOREIGN: { pattern: RegExp; what: string }[] = [
  { pattern: /\b(PRODUCT|API|STACK|STYLE)\.md\b/, what: 'a document outside the repository' },
  { pattern: /\bP[D]R\b/, what: "the product's decision record (its substance is docs/product.md)" },
  { pattern: /\bD[o]D\b/, what: 'a definition of done outside the repository (docs/product.md)' },
  { pattern: /\bissues? #\d+/i, what: 'an issue of a tracker outside the repository' },
  { pattern: /\/work\/|\.\.\/shared\//, what: 'a path outside the repository' },
];

export interface Problem {
  file: string;
  line: number;
  text: string;
  why: string;
}

/** Every file under `CITING` that may cite something, as paths relative to the root. */
export function citingFiles(root = ROOT): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const name of readdirSync(abs).sort()) if (name !== 'node_modules') walk(join(rel, name));
    } else if (TEXT.test(rel) && !SKIPPED.test(rel)) out.push(rel);
  };
  for (const entry of CITING) walk(entry);
  return out;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a markdown text defines (its headings, numbered like GitHub's when repeated). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** How a checked file reads another (the real file system, or a fixture's). */
export interface Files {
  exists(relPath: string): boolean;
  read(relPath: string): string;
}

export const repositoryFiles = (root = ROOT): Files => ({
  exists: (p) => existsSync(join(root, p)),
  read: (p) => readFileSync(join(root, p), 'utf8'),
});

/** A path relative to the root, normalised; null when it leaves the repository. */
function inside(p: string): string | null {
  const rel = normalize(p);
  return rel === '..' || rel.startsWith('../') || rel.startsWith('/') ? null : rel;
}

/** The problems of one file's citations. `file` is relative to the root. */
export function problemsIn(file: string, text: string, files: Files): Problem[] {
  const problems: Problem[] = [];
  const dir = dirname(file);
  const isMarkdown = file.endsWith('.md');
  const lines = text.split('\n');
  const anchorsCache = new Map<string, Set<string>>();
  const anchors = (p: string) => {
    if (!anchorsCache.has(p)) anchorsCache.set(p, anchorsOf(files.read(p)));
    return anchorsCache.get(p)!;
  };
  lines.forEach((line, i) => {
    const report = (why: string) => problems.push({ file, line: i + 1, text: line.trim(), why });
    for (const { pattern, what } of FOREIGN) if (pattern.test(line)) report(`cites ${what}`);

    if (isMarkdown) {
      for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const rel = path === '' ? file : inside(join(dir, path));
        if (rel === null || !files.exists(rel)) {
          report(`links to ${target}, which is not in the repository`);
          continue;
        }
        if (anchor !== undefined && rel.endsWith('.md') && !anchors(rel).has(anchor)) {
          report(`links to ${target}: ${rel} has no heading with the anchor #${anchor}`);
        }
      }
    }

    // Link targets were checked above; the names below are those in the text.
    const plain = isMarkdown ? line.replace(/\]\([^)\s]*\)/g, ']') : line;
    for (const m of plain.matchAll(/(?<![\w/.:@-])(docs\/[\w./-]*)/g)) {
      const path = m[1]!.replace(/[.-]+$/, '');
      if (!files.exists(path)) report(`names ${path}, which is not in the repository`);
    }

    for (const m of plain.matchAll(/(?<![\w/.:@-])((?:\.{1,2}\/)?[\w./-]*[\w-]\.md)\b/g)) {
      const name = m[1]!;
      if (name.startsWith('docs/')) continue; // checked above
      const candidates = [join(dir, name), name, join('docs', name)].map(inside);
      if (!candidates.some((c) => c !== null && files.exists(c))) report(`names ${name}, which is not in the repository`);
    }
  });
  return problems;
}

/** Every problem in the repository. */
export function repositoryProblems(root = ROOT): Problem[] {
  const files = repositoryFiles(root);
  return citingFiles(root).flatMap((f) => problemsIn(f, files.read(f), files));
}

export const describeProblems = (problems: Problem[]): string =>
  problems.map((p) => `${p.file}:${p.line}: ${p.why}\n    ${p.text}`).join('\n');
