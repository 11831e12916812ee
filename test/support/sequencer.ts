import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The longest test files start first, so that the last files to finish are short ones (three
 * workers: a long file started last would run alone at the end). vitest orders by the durations
 * of the last run it cached, which a fresh checkout (CI) does not have: it then runs the largest
 * files first, and size says little here (a process test is short and slow). Longest first, as
 * measured (seconds of each file's tests on a loaded machine, one module graph per worker,
 * 2026-11-26; an out-of-date entry only changes the order):
 */
const LONGEST = [
  'test/process/cli.test.ts', // 107
  'test/process/crash.test.ts', // 93
  'test/dashboard/dashboard.browser.test.ts', // 64
  'test/db/embedded-postgres.test.ts', // 62
  'test/process/pools.test.ts', // 60
  'test/process/partition.test.ts', // 47
  'test/process/scale-out.test.ts', // 37
  'test/process/policies.test.ts', // 34
  'test/graphql/scopes.test.ts', // 26
  'test/schedule/day-rules.test.ts', // 24
  'test/policies/policies.test.ts', // 22
  'test/process/down.test.ts', // 20
  'test/runtime/instances.test.ts', // 19
  'test/graphiql/graphiql.browser.test.ts', // 18
  'test/process/maintenance.test.ts', // 18
  'test/process/embedded.test.ts', // 16
  'test/process/backfill-crash.test.ts', // 16
  'test/runtime/outage.test.ts', // 15
  'test/runtime/heartbeats.test.ts', // 14
  'test/graphql/roles.test.ts', // 14
  'test/graphiql/packaging.test.ts', // 14
  'test/process/dependency-crash.test.ts', // 13
  'test/runtime/execution.test.ts', // 13
  'test/http/errors.test.ts', // 13
  'test/runtime/missed-slots.test.ts', // 12
  'test/runtime/calendars.test.ts', // 12
  'test/process/startup.test.ts', // 12
  'test/process/notifications.test.ts', // 11
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => LONGEST.findIndex((p) => f.moduleId.endsWith(`/${p}`));
    const known = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...known, ...(await super.sort(files.filter((f) => rank(f) < 0)))];
  }
}
