import { readOwnPackageJson } from './package-json.js';

/** cronql's version, from its package.json (shown in the instances list). */
export const VERSION: string = readOwnPackageJson()?.version ?? 'unknown';
