/**
 * `npm run bench`: every scenario, each in its own process (a fresh heap, with --expose-gc), one
 * after another. Every figure is printed beside a baseline measured in the same run, and the
 * ratio; the results and the machine go in BENCHMARKS.md.
 *
 *   npm run bench                       # all
 *   BENCH_ONLY=co-due,startup npm run bench
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { machine } from './lib/bench.js';

const SCENARIOS = ['co-due', 'tracing', 'lifecycle', 'startup', 'job-writes', 'reads', 'fanout', 'operate', 'scale', 'slots', 'dashboard', 'upcoming', 'labels'];
const only = process.env.BENCH_ONLY?.split(',');
console.log(`cronql benchmarks — ${machine()}; PostgreSQL: ${process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded'}\n`);
let failed = false;
for (const name of SCENARIOS.filter((s) => !only || only.includes(s))) {
  console.log(`# ${name}`);
  const script = fileURLToPath(new URL(`./${name}.js`, import.meta.url));
  const res = spawnSync(process.execPath, ['--expose-gc', script], { stdio: 'inherit' });
  if (res.status !== 0) failed = true;
  console.log('');
}
process.exitCode = failed ? 1 : 0;
