/**
 * What every benchmark scenario shares: the database (DATABASE_URL, else an embedded PostgreSQL),
 * a fresh database per scenario, percentiles, and one way to print a figure beside its
 * same-run baseline and the ratio.
 */
import 'reflect-metadata';
import { arch, cpus, totalmem } from 'node:os';
import pg from 'pg';
import { createLogger } from '../../src/logger.js';

export const log = createLogger();
log.level = 'silent';

export function pct(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export const ms = (x: number) => (x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`);

/** A new, empty database on the bench server, dropped by `drop`. */
export async function freshDatabase(serverUrl: string, name: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

export interface Figure {
  scenario: string;
  figure: string;
  value: number;
  baselineName: string;
  baseline: number;
  /** The goal, as a ratio to the baseline (value / baseline ≤ goal) or an absolute bound, said in words. */
  goal?: string;
  met?: boolean;
  unit?: string;
}

/** Prints one line per figure: value, baseline, ratio, goal. */
export function report(f: Figure): void {
  const unit = f.unit ?? 'ms';
  const fmt = (x: number) => (unit === 'ms' ? ms(x) : `${Math.round(x).toLocaleString('en')} ${unit}`);
  const ratio = f.value / f.baseline;
  const goal = f.goal ? ` — goal ${f.goal}: ${f.met ? 'met' : 'NOT MET'}` : '';
  console.log(`${f.scenario} | ${f.figure} ${fmt(f.value)} | ${f.baselineName} ${fmt(f.baseline)} | ${ratio.toFixed(2)}×${goal}`);
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model ?? 'cpu'} (${arch()}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.versions.node}`;
}

/** Resolves at `at` (a wall-clock instant), on a plain timer. */
export function until(at: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
}

/** A full garbage collection, when node runs with --expose-gc. */
export function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}
