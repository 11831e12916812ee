import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded-postgres.js';
import { createLogger } from '../../src/logger.js';
import { createTemplateDatabase, type TemplateDatabase } from './template-database.js';

/**
 * One PostgreSQL server for the whole run: `DATABASE_URL` if set, else an embedded one in a
 * temporary directory. The schema is migrated once, into a template (test/support/template-database.ts);
 * each test file then creates a database of its own as a copy of it (test/support/db.ts).
 */
let embedded: EmbeddedDatabase | undefined;
let dir: string | undefined;
let template: TemplateDatabase | undefined;

/** The repository root, and where the process tests' build of cronql goes (git-ignored). */
const root = fileURLToPath(new URL('../../', import.meta.url));
export const TEST_BUILD_DIR = '.test-dist';

/**
 * Builds cronql as `npm start` runs it (tsc → JavaScript), for the tests that spawn real
 * processes (test/process), in parallel with the database's start. Incremental: a run after an
 * earlier one re-checks and re-emits only what changed since (a few seconds of CPU rather than
 * the whole program's ten, before any test can start); tsc's build info records each file's hash.
 */
async function buildForProcessTests(): Promise<string> {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const out = join(root, TEST_BUILD_DIR);
  await promisify(execFile)(
    process.execPath,
    [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', out, '--incremental', '--tsBuildInfoFile', join(out, 'build.tsbuildinfo')],
    { cwd: root },
  );
  return join(root, TEST_BUILD_DIR, 'src', 'main.js');
}

export async function setup(project: TestProject): Promise<void> {
  const build = buildForProcessTests();
  build.catch(() => {});
  let url = process.env.DATABASE_URL;
  if (!url) {
    // A private (0700) directory, like a clone under /root: as root the embedded server runs as
    // the `postgres` user, and cronql keeps the cluster where that user can reach it.
    dir = await mkdtemp(join(tmpdir(), 'cronql-test-'));
    embedded = await startEmbeddedPostgres({ dataDir: dir, log: createLogger(), ephemeral: true, database: 'cronql_test' });
    url = embedded.url;
  }
  template = await createTemplateDatabase(url);
  project.provide('databaseUrl', url);
  project.provide('templateDatabase', template.name);
  project.provide('cronqlMain', await build);
}

export async function teardown(): Promise<void> {
  // An embedded server goes with its directory; a DATABASE_URL server keeps nothing of the run.
  if (!embedded) await template?.drop();
  await embedded?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    /** The database migrated once for the run, that each test file's database copies. */
    templateDatabase: string;
    /** `main.js` of a fresh build of cronql, for spawning real processes. */
    cronqlMain: string;
  }
}
