import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  resolve: {
    // graphql 16 ships CommonJS (`main`) and ESM (`module`) builds. Node loads the CommonJS one for
    // every dependency (type-graphql, Apollo, graphql-ws); vite would give our sources the ESM one,
    // and two copies of graphql reject each other's types ("Cannot determine GraphQL output type").
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Each test file gets its own database (see test/support/db.ts); files run in parallel
    // processes. Three at a time even on two cores: the process tests (test/process) mostly wait
    // for real time to pass (heartbeats, partitions), so they overlap well with the others; more
    // would starve the processes they time.
    pool: 'forks',
    maxWorkers: 3,
    // The files of a worker share one module graph: the app's modules (GraphQL schema, MikroORM,
    // Apollo) are imported once per worker, not once per file — importing them again for each of
    // ~150 files was more CPU than any one file's tests. This holds because a test file shares
    // nothing else: each has its own database and its own cronql (`createCronql` keeps no
    // module-level state but caches of pure results), and a file that sets an environment variable
    // puts it back.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    globalSetup: ['test/support/global-setup.ts'],
    // A safety net, not a goal: on a busy machine (CI beside other work) a process test can take
    // twice its idle time. Speed goals live in `npm run bench`.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
