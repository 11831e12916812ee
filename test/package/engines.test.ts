import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

/**
 * package.json's `engines.node` is what deploy targets read to pick a Node major: it must admit
 * no Node that an installed package (production or dev) refuses in its own `engines.node`.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const ours = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;

interface Installed {
  path: string;
  name: string;
  version: string;
  node: string;
}

/** Every package under node_modules, nested ones included, with the engines.node it declares. */
function installedEngines(dir: string, found: Installed[] = []): Installed[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return found;
  }
  for (const e of entries) {
    // .bin and .cache are npm's; symbolic links (workspaces, .bin targets) point at packages found anyway.
    if (!e.isDirectory() || e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.name.startsWith('@')) {
      installedEngines(path, found);
      continue;
    }
    try {
      const pkg = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { name?: string; version?: string; engines?: { node?: unknown } };
      if (typeof pkg.engines?.node === 'string') found.push({ path: path.slice(root.length), name: pkg.name ?? e.name, version: pkg.version ?? '?', node: pkg.engines.node });
    } catch {
      // not a package (no package.json): nothing to check
    }
    installedEngines(join(path, 'node_modules'), found);
  }
  return found;
}

describe("package.json's engines.node", () => {
  const installed = installedEngines(join(root, 'node_modules'));

  it('names Node versions that every installed dependency accepts', () => {
    // Sanity: the walk did find the dependencies (hundreds of them declare engines).
    expect(installed.length).toBeGreaterThan(100);
    expect(installed.map((p) => p.name)).toEqual(expect.arrayContaining(['undici', 'pg', '@mikro-orm/core']));
    const refusing = installed.filter((p) => !semver.subset(ours, p.node)).map((p) => `${p.path} (${p.name}@${p.version}) wants node ${p.node}`);
    expect(refusing, `package.json says node ${ours}; these refuse part of it`).toEqual([]);
  });
});
