import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files start first, so that the last files to finish are short ones (three
 * workers: a long file started last would run alone at the end). vitest orders by the durations
 * of the last run it cached, which a fresh checkout (CI) does not have: it then runs the largest
 * files first, and size says little here (a process test is short and slow). Longest first, as
 * measured (seconds on a loaded machine, 2026-11-26; an out-of-date entry only changes the order):
 */
const LONGEST = [
  'test/dashboard/dashboard.browser.test.ts', // 166
  'test/process/scale-out.test.ts', // 120
  'test/process/crash.test.ts', // 120
  'test/process/pools.test.ts', // 112
  'test/process/cli.test.ts', // 101
  'test/db/embedded-postgres.test.ts', // 77
  'test/policies/policies.test.ts', // 61
  'test/graphql/scopes.test.ts', // 55
  'test/process/policies.test.ts', // 50
  'test/process/partition.test.ts', // 50
  'test/process/notifications.test.ts', // 46
  'test/process/startup.test.ts', // 37
  'test/process/backfill-crash.test.ts', // 33
  'test/process/maintenance.test.ts', // 30
  'test/process/embedded.test.ts', // 28
  'test/runtime/missed-slots.test.ts', // 26
  'test/process/listen.test.ts', // 26
  'test/process/down.test.ts', // 25
  'test/runtime/heartbeats.test.ts', // 25
  'test/graphiql/graphiql.browser.test.ts', // 24
  'test/runtime/instances.test.ts', // 24
  'test/db/connections.test.ts', // 24
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => LONGEST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
    const known = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...known, ...(await super.sort(files.filter((f) => rank(f) < 0)))];
  }
}
