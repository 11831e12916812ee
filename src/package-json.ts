import { readFileSync } from 'node:fs';

export interface OwnPackageJson {
  name: string;
  version?: string;
  engines?: { node?: string };
}

/**
 * cronql's own package.json, read at run time: src/ runs from the repository (tests), dist/src/
 * one level deeper (npm start, an installed package). Undefined if neither is there.
 */
export function readOwnPackageJson(): OwnPackageJson | undefined {
  for (const rel of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as OwnPackageJson;
      if (pkg.name === 'cronql') return pkg;
    } catch {
      // not this one
    }
  }
  return undefined;
}
