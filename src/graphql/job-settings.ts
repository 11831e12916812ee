import { Field, Int } from 'type-graphql';
import { settingEntries, type JobSettingSpec } from '../domain/job-fields.js';
import { JSONScalar } from './scalars.js';
import './enums.js';

/**
 * The GraphQL fields of a job's settings, from the settings table (domain/job-fields.ts): on the
 * `Job` type as stored (non-null unless null is a value of its own), on the job inputs all
 * optional (omitted: the default, or on a new version the replaced version's value).
 */
export function settingFields(prototype: object, side: 'output' | 'input', retryType: Function, dependencyType?: Function): void {
  for (const [name, spec] of settingEntries()) {
    // The `Job` type's upstreams are resolved to jobs (job.resolver.ts declares the field).
    if (spec.kind === 'dependencies' && !dependencyType) continue;
    const nullable = side === 'input' || isNullable(spec);
    const description = spec.description[side === 'output' ? 'job' : 'input'];
    Field(() => graphqlType(spec, retryType, dependencyType) as never, { nullable, ...(description ? { description } : {}) })(prototype, name);
  }
}

function isNullable(spec: JobSettingSpec): boolean {
  // A list of names is never null, but the contract writes it `[String!]` (docs/api.md); labels,
  // never null either, are `JSON` as the contract writes them.
  if (spec.kind === 'names' || spec.kind === 'dependencies' || spec.kind === 'labels') return true;
  return spec.kind === 'enum' ? false : spec.nullable;
}

function graphqlType(spec: JobSettingSpec, retryType: Function, dependencyType?: Function): unknown {
  switch (spec.kind) {
    case 'int':
      return Int;
    case 'enum':
      // The domain enums are the registered GraphQL enums (enums.ts).
      return spec.values;
    case 'json':
      return JSONScalar;
    case 'names':
      return [String];
    case 'name':
      return String;
    case 'retry':
      return retryType;
    case 'dependencies':
      return [dependencyType];
    case 'labels':
      return JSONScalar;
    case 'text':
      return String;
  }
}
