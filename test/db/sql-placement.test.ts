import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * SQL lives in src/db/ only: every statement cronql sends is written in a file of the data layer,
 * named by table or operation, so a change of schema, index or vocabulary has one place to look.
 * The check reads the TypeScript syntax tree: string and template literals are examined,
 * comments and identifiers are not, so prose about SQL is fine and SQL in code is not.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * Files outside src/db/ still holding SQL, until the work moving it lands. Each entry must still
 * hold SQL (the test says so when it no longer does, so the exception is removed with the move).
 */
const KNOWN_EXCEPTIONS: Record<string, string> = {};

/**
 * What makes a literal a SQL statement (or a clause of one): statement keywords in the shape SQL
 * gives them. Keywords in capitals, as the project writes SQL, anywhere in the literal; in lower
 * case only when they begin it (`select 1`, `insert into t`), so that English words ("select a
 * job", "update the page") in user-facing text do not count.
 */
const STATEMENT = [
  /\bSELECT\b[^;]{0,400}?\bFROM\b/,
  /\bSELECT\s+(?:\d|\*|[a-z_][a-z0-9_.]*\s*\()/,
  /\bINSERT\s+INTO\b/,
  /\bUPDATE\s+[a-z_][a-z0-9_]*(?:\s+(?:AS\s+)?[a-z_]\w*)?\s+SET\b/,
  /\bDELETE\s+FROM\b/,
  /\bWITH\s+(?:RECURSIVE\s+)?[a-z_]\w*(?:\s*\([^)]*\))?\s+AS\s+(?:(?:NOT\s+)?MATERIALIZED\s+)?\(/,
  /\bON\s+CONFLICT\b/,
  /\bRETURNING\s+(?:\*|[a-z_])/,
  /\b(?:LISTEN|UNLISTEN|NOTIFY|TRUNCATE|VACUUM|ANALYZE)\s+[a-z_*"]/,
  /\b(?:CREATE|ALTER|DROP)\s+(?:TABLE|INDEX|UNIQUE\s+INDEX|SCHEMA|DATABASE|TRIGGER|FUNCTION|EXTENSION|TYPE|VIEW)\b/,
  /\bWHERE\s+[a-z_][a-z0-9_.]*\s*(?:=|<>|!=|<|>|\bIN\b|\bIS\b|\bLIKE\b|\bILIKE\b|\bANY\b)/,
  // Lower case, at the start, in SQL's own shape.
  /^\s*select\s+(?:\*|count\(\*\)|[a-z_][\w.]*(?:\s*,\s*[a-z_][\w.]*)*)\s+from\s+[a-z_]\w*/,
  /^\s*select\s+(?:\d+\s*$|[a-z_]\w*\s*\()/,
  /^\s*insert\s+into\s+[a-z_][\w.]*\s*\(/,
  /^\s*update\s+[a-z_][\w.]*\s+set\s+[a-z_]\w*\s*=/,
  /^\s*delete\s+from\s+[a-z_][\w.]*\s*(?:$|where\b)/,
  /^\s*with\s+[a-z_]\w*\s+as\s*\(/,
];

/** The literals of a source file that look like SQL, with their line numbers (1-based). */
export function sqlLiterals(fileName: string, text: string): { line: number; sql: string }[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: { line: number; sql: string }[] = [];
  const visit = (node: ts.Node) => {
    let texts: string[] | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts = [node.text];
    // A template is read whole, its placeholders standing for a value (`SELECT ${cols} FROM t` is
    // one statement), and part by part (`${prefix}select …` begins a statement after the placeholder).
    else if (ts.isTemplateExpression(node)) {
      const parts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
      texts = [parts.join(' x '), ...parts];
    }
    const sql = texts?.find((text) => STATEMENT.some((re) => re.test(text)));
    if (sql !== undefined) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, sql: texts![0].replace(/\s+/g, ' ').trim().slice(0, 80) });
      return; // the spans of a template are its own parts
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

describe('SQL lives in src/db/', () => {
  it('no file of src/ outside src/db/ holds a SQL statement in a string or template literal', async () => {
    const offenders: string[] = [];
    const excepted = new Set<string>();
    for (const path of await sourceFiles(SRC)) {
      const file = relative(ROOT, path).split('\\').join('/');
      if (file.startsWith('src/db/')) continue;
      const hits = sqlLiterals(file, await readFile(path, 'utf8'));
      if (hits.length === 0) continue;
      if (file in KNOWN_EXCEPTIONS) {
        excepted.add(file);
        continue;
      }
      for (const hit of hits) offenders.push(`${file}:${hit.line}: ${hit.sql}`);
    }
    expect(offenders, 'move these statements into a file of src/db/ named by table or operation').toEqual([]);
    // An exception whose file no longer holds SQL is stale: remove it from KNOWN_EXCEPTIONS.
    expect([...excepted].sort()).toEqual(Object.keys(KNOWN_EXCEPTIONS).sort());
  });

  it('src/db/ itself holds the statements (the check finds SQL where there is SQL)', async () => {
    const hits = sqlLiterals('run-queries.ts', await readFile(join(SRC, 'db/run-queries.ts'), 'utf8'));
    expect(hits.length).toBeGreaterThanOrEqual(5);
  });

  // The detector itself, on sources made up for it: statements of each kind and shape are found
  // (with their line), prose and code that merely mention SQL words are not.
  const statements = [
    `SELECT id FROM cron_job_runs WHERE id = $1`,
    `select count(*) from cron_job_definitions`,
    `SELECT pg_notify($1, $2)`,
    `SELECT 1`,
    `INSERT INTO cron_job_runs (id) VALUES ($1)`,
    `insert into t (a) values (1)`,
    `UPDATE cron_job_definitions SET status = 'PAUSED' WHERE id = $1`,
    `UPDATE cron_job_runs AS r SET status = $2`,
    `DELETE FROM cron_job_runs WHERE scheduled_at < $1`,
    `WITH done AS (UPDATE x SET y = 1 RETURNING id) SELECT count(*) FROM done`,
    `with w as (select 1) select * from w`,
    `LISTEN cronql_job_changed`,
    `job_definition_id IN (SELECT id FROM cron_job_definitions WHERE job_key = ?)`,
    `... ON CONFLICT (job_definition_id, scheduled_at) DO NOTHING`,
    `  WHERE status = ANY($1::text[])`,
  ];
  /** How a literal is written, and the line (of the made-up file below) it begins on. */
  const shapes: [string, (sql: string) => string, number][] = [
    ['single-quoted string', (sql) => `const q = '${sql.replace(/'/g, "\\'")}';`, 3],
    ['double-quoted string', (sql) => `const q = "${sql}";`, 3],
    ['template literal', (sql) => `const q = \`${sql}\`;`, 3],
    ['template with a placeholder', (sql) => `const q = \`\${prefix}${sql.replace(/\$/g, '\\$')}\`;`, 3],
    ['argument of a call, on a later line', (sql) => `await pool.query(\n  \`${sql.replace(/\$/g, '\\$')}\`,\n  [id],\n);`, 4],
  ];
  for (const sql of statements) {
    for (const [shape, write, line] of shapes) {
      it(`finds ${JSON.stringify(sql.slice(0, 40))} as a ${shape}`, () => {
        const code = `// a comment first\nconst prefix = 'x';\n${write(sql)}\n`;
        const hits = sqlLiterals('made-up.ts', code);
        expect(hits, code).toHaveLength(1);
        expect(hits[0].line).toBe(line);
      });
    }
  }

  const notSql = [
    `// SELECT id FROM cron_job_runs: a comment about the statement`,
    `/** INSERT INTO cron_job_runs happens in run-store.ts */ const x = 1;`,
    `const label = 'Select a job from the list';`,
    `const hint = "Update the page to see new runs";`,
    `const tag = el.tagName === 'SELECT';`,
    `const msg = \`Delete from the dashboard: \${name}\`;`,
    `const help = 'With a payload as JSON';`,
    `const doc = 'when the statement times out, the connection is dropped';`,
    `const q = 'query Runs($filter: RunFilter) { runs(filter: $filter) { nodes { id } } }';`,
    `const d = 'Runs scheduled longer ago than this many days are deleted';`,
  ];
  for (const code of notSql) {
    it(`leaves alone: ${code.slice(0, 60)}`, () => {
      expect(sqlLiterals('made-up.ts', code)).toEqual([]);
    });
  }
});
