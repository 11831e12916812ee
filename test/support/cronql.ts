import 'reflect-metadata';
import { createCronql, type Cronql, type CronqlOptions } from '../../src/app.js';
import { isTerminal } from '../../src/domain/enums.js';
import type { RunChange } from '../../src/runtime/run-events.js';
import type { RunRecord } from '../../src/domain/run.js';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase } from './db.js';

/** A cronql on a fresh database of its own (one per test file; share it with `startCronql`). */
export async function testDatabase() {
  return createTestDatabase();
}

export async function startCronql(databaseUrl: string, options: Omit<CronqlOptions, 'databaseUrl'> = {}): Promise<Cronql> {
  const cronql = createCronql({ databaseUrl, shutdownGraceMs: 2_000, ...options });
  await cronql.start();
  return cronql;
}

/** Resolves with the first run change matching `predicate` (no polling, no fixed sleeps). */
export function nextChange(cronql: Cronql, predicate: (c: RunChange) => boolean, timeoutMs = 10_000): Promise<RunChange> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no matching run change within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = cronql.events.on((c) => {
      if (!predicate(c)) return;
      clearTimeout(timer);
      off();
      resolve(c);
    });
  });
}

/** Collects every run change from now on. */
export function recordChanges(cronql: Cronql): RunChange[] & { stop: () => void } {
  const changes = [] as unknown as RunChange[] & { stop: () => void };
  changes.stop = cronql.events.on((c) => changes.push(c));
  return changes;
}

export async function runsOf(cronql: Cronql, jobId: string): Promise<RunRecord[]> {
  const page = await cronql.runs.list({ jobId }, 500);
  return page.nodes.slice().reverse();
}

/** Polls a condition that depends on another instance (notifications); bounded. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const terminal = (c: RunChange) => isTerminal(c.run.status);

/**
 * A cronql on a fresh database for the tests of one `describe`: started before them, stopped and
 * its database dropped after them. Read `.cronql` inside the tests.
 */
export function useCronql(options: Omit<CronqlOptions, 'databaseUrl'> = {}): { readonly cronql: Cronql; readonly url: string } {
  let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  let cronql: Cronql | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    cronql = await startCronql(db.url, options);
  });
  afterAll(async () => {
    await cronql?.stop();
    await db?.drop();
  });
  return {
    get cronql() {
      if (!cronql) throw new Error('useCronql: not started yet');
      return cronql;
    },
    get url() {
      return db!.url;
    },
  };
}
