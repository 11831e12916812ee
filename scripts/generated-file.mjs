// The one rule of every committed generated file (the dashboard's and GraphiQL's bundles, the
// client's operations): the script writes it, and with `--check` writes nothing and fails when the
// committed file differs from what it would write — the drift check a test runs.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Writes `text` to `file` (relative to `root`), or with `--check` on the command line compares.
 * Messages: `<tool>: wrote <file>[; <details>]`, `<tool>: up to date[; <details>]`, and on drift
 * `<tool>: <file> differs from <source>: run "<fix>" and commit it` on stderr with exit 1.
 */
export function writeOrCheck({ tool, root, file, text, source, fix, details }) {
  const target = join(root, file);
  const suffix = details ? `; ${details}` : '';
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(target, 'utf8');
    } catch {
      // missing: reported below
    }
    if (committed !== text) {
      console.error(`${tool}: ${file} differs from ${source}: run "${fix}" and commit it`);
      process.exit(1);
    }
    console.log(`${tool}: up to date${suffix}`);
  } else {
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
    console.log(`${tool}: wrote ${file}${suffix}`);
  }
}
