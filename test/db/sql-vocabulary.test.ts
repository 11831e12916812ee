import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as enums from '../../src/domain/enums.js';

/**
 * Every status, policy and code a statement compares with is spelt once, in `src/domain/enums.ts`,
 * and reaches SQL text through the vocabulary (`src/db/runs/vocabulary.ts`, `lit` of
 * `src/db/sql.ts`). A value quoted by hand in a statement (`status = 'RUNNING'`) would drift from
 * the enum unnoticed; this finds any in src/db.
 */

/** Every value of the domain's vocabulary: the enums' and the failure codes'. */
const VOCABULARY = new Set<string>(
  (Object.values(enums) as unknown[])
    .filter((v) => typeof v === 'object' && v !== null && !Array.isArray(v))
    .flatMap((e) => Object.values(e as object).filter((v): v is string => typeof v === 'string')),
);

/**
 * The vocabulary values quoted as SQL string literals (`'VALUE'`) inside the string and template
 * literals of TypeScript `source`: `file:line 'VALUE'` each. A JavaScript literal `'RUNNING'` is not
 * SQL text (its text has no quotes) and is not reported.
 */
function quotedVocabulary(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const text = node.text;
      for (const m of text.matchAll(/'([A-Z][A-Z0-9_]*)'/g)) {
        if (!VOCABULARY.has(m[1])) continue;
        const offset = node.getStart(sf) + 1 + (text.slice(0, m.index).length);
        const { line } = sf.getLineAndCharacterOfPosition(Math.min(offset, node.getEnd()));
        found.push(`${file}:${line + 1} '${m[1]}'`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

describe('SQL vocabulary', () => {
  it('no status, policy or code is quoted by hand in the SQL text of src/db', () => {
    const found = tsFiles(join('src', 'db')).flatMap((f) => quotedVocabulary(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds a quoted value in a template or a string, and leaves JavaScript literals and user text alone', () => {
    const source = [
      "const a = `SELECT 1 FROM cron_job_runs",
      "  WHERE status = 'RUNNING' AND trigger_type = ${t}`;",
      "const b = \"UPDATE cron_job_definitions SET status = 'PAUSED'\";",
      "const c = `${x} AND failure_code IN ('OVERLAP', 'MISSED')`;",
      "const d = 'RUNNING';",
      "const e = `SELECT format('%s', 'not vocabulary'), 'UTC', 'cronql'`;",
    ].join('\n');
    expect(quotedVocabulary('x.ts', source)).toEqual(["x.ts:2 'RUNNING'", "x.ts:3 'PAUSED'", "x.ts:4 'OVERLAP'", "x.ts:4 'MISSED'"]);
  });

  it('knows every value of the domain enums', () => {
    for (const v of ['RUNNING', 'SUCCEEDED', 'ACTIVE', 'SCHEDULED', 'BUFFER_ONE', 'EXPONENTIAL', 'ONE_TIME', 'OVERLAP', 'STALE_TIMEOUT', 'CLOCK_JUMP']) {
      expect(VOCABULARY.has(v), v).toBe(true);
    }
  });
});
