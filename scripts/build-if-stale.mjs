// `npm start` runs this first: it builds dist/ with TypeScript only when a source changed since the
// last build, so a start with nothing changed does not rebuild, and a production install with a
// prebuilt dist/ (`npm ci --omit=dev`) starts without TypeScript, a dev dependency.
// `npm install` / `npm ci` run it too (`prepare`, with --prepare): a fresh clone and an install
// from git get a built dist/. There, no TypeScript (`npm ci --omit=dev` in a clone) is not an error:
// the install goes on, and `npm start` says what is missing.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'src', 'main.js');
const prepare = process.argv.includes('--prepare');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = Math.max(newest(join(root, 'src')), newest(join(root, 'migrations')), statSync(join(root, 'package.json')).mtimeMs);
if (existsSync(built) && statSync(built).mtimeMs >= sources) {
  console.log('cronql: dist/ is up to date');
  process.exit(0);
}
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error(existsSync(built)
    ? 'cronql: sources changed since dist/ was built, and TypeScript is not installed: run "npm install" then "npm run build"'
    : 'cronql: dist/ is missing and TypeScript is not installed: run "npm install" then "npm run build"');
  process.exit(existsSync(built) || prepare ? 0 : 1);
}
console.log('cronql: building dist/ (sources changed)');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
// tsc leaves unchanged outputs untouched: mark the build as newer than the sources.
const now = new Date();
const { utimesSync } = await import('node:fs');
utimesSync(built, now, now);
