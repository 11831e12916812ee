/**
 * Preloaded into a process the bench spawns (`node --import …`): at exit, the CPU time the
 * process used (user + system, ms) is written to BENCH_CPU_FILE — a load-independent measure of a
 * CLI run, beside its wall time.
 */
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.BENCH_CPU_FILE;
  if (!file) return;
  const { user, system } = process.cpuUsage();
  writeFileSync(file, String((user + system) / 1000));
});
