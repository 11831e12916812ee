import { readFileSync } from 'node:fs';

/** cronql's version, from its package.json (shown in the instances list). */
export const VERSION: string = (() => {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'cronql' && pkg.version) return pkg.version;
    } catch {
      // not this one: src/ runs from the repository, dist/src/ one level deeper
    }
  }
  return 'unknown';
})();
