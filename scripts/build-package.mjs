// `npm pack` / `npm publish` run this first (`prepack`): a clean build of what the package ships
// (dist/src, dist/migrations). Clean, because tsc never deletes the output of a source that was
// removed or renamed, and such a leftover would be shipped.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const dir of ['src', 'migrations']) rmSync(join(root, 'dist', dir), { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
