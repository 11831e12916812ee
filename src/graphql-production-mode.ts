import { createRequire } from 'node:module';

/**
 * Loads graphql-js in its production mode, for cronql's own process (`npm start`): imported by
 * main.ts before anything else, so before any module that imports graphql.
 *
 * graphql 16 chooses its `instanceOf` when its module loads, from `process.env.NODE_ENV`: outside
 * "production" every failed `instanceof` (graphql-js asks several per field it executes) also
 * compares class names to warn about two copies of graphql, about a tenth of a page read's CPU.
 * cronql ships one copy (a dependency of its own), so the check can never fire.
 *
 * NODE_ENV is set only while graphql loads, then put back: Express, Apollo Server (configured
 * explicitly in http/graphql.ts: introspection on, no stack traces, its implicit plugins decided
 * there), target modules and everything else see the environment the operator gave. graphql is a
 * CommonJS package (no "exports" map), so the `import` of every other module finds this same
 * instance in the module cache.
 */
const previous = process.env.NODE_ENV;
process.env.NODE_ENV = 'production';
try {
  createRequire(import.meta.url)('graphql');
} finally {
  if (previous === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = previous;
}
