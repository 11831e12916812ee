import semver from 'semver';
import { readOwnPackageJson } from './package-json.js';

/**
 * The Node versions cronql supports: package.json's `engines.node`, the one place that says it
 * (deploy targets pick their Node from it, and test/package/engines.test.ts checks it against
 * every installed dependency's own `engines`).
 */
export const SUPPORTED_NODE: string = readOwnPackageJson()?.engines?.node ?? '*';

/**
 * The line `npm start` prints when the running Node is outside `range`, or undefined when it is
 * inside. cronql still starts on such a Node (it may well work), but nothing has been tested
 * there, and some dependencies already refuse it.
 */
export function unsupportedNodeLine(version: string, range: string = SUPPORTED_NODE): string | undefined {
  const bare = version.replace(/^v/, '');
  // A version semver cannot read (or a nightly's prerelease) is not one of the supported lines.
  if (semver.valid(bare) && semver.satisfies(bare, range)) return undefined;
  return `cronql: Node ${bare} is not supported; use Node ${describeRange(range)}`;
}

/**
 * A range as a person reads it: `^22.15.0 || ^24.0.0` → `22 (>=22.15) or 24`. Each alternative
 * of the range is named by the major line of its lowest version, with the minor (and patch) it
 * needs when that is not the line's first release, and "or later" when it has no upper bound.
 */
export function describeRange(range: string): string {
  return new semver.Range(range).set
    .map((alternative) => {
      const low = semver.minVersion(new semver.Range(alternative.map((c) => c.value).join(' ')))!;
      const from = low.minor === 0 && low.patch === 0 ? '' : ` (>=${low.major}.${low.minor}${low.patch > 0 ? `.${low.patch}` : ''})`;
      const open = alternative.every((c) => !c.operator.startsWith('<'));
      return `${low.major}${from}${open ? ' or later' : ''}`;
    })
    .join(' or ');
}
