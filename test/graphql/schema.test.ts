import { readFile } from 'node:fs/promises';
import {
  buildSchema,
  findBreakingChanges,
  findDangerousChanges,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, test } from 'vitest';
import { cronqlSchema, printCronqlSchema } from '../../src/graphql/schema.js';

/**
 * The SDL committed in schema/schema.graphql is what the code builds (regenerate with
 * `npm run schema`), and the served schema provides the core contract (contract.graphql) exactly.
 */
const read = (path: string) => readFile(new URL(path, import.meta.url), 'utf8');

test('schema/schema.graphql matches the code (run `npm run schema` after changing the schema)', async () => {
  const committed = await read('../../schema/schema.graphql');
  expect(printCronqlSchema(await cronqlSchema())).toBe(committed);
});

describe('the API contract', async () => {
  const contract = buildSchema(await read('./contract.graphql'));
  const served = await cronqlSchema();

  test('no breaking or dangerous difference from the contract', () => {
    expect(findBreakingChanges(contract, served)).toEqual([]);
    expect(findDangerousChanges(contract, served)).toEqual([]);
  });

  test('every field and argument has exactly the contract\'s type and default', () => {
    expect(signatures(served, contract)).toEqual(signatures(contract, contract));
  });
});

/** `Type.field(arg: T = default): T` for every field and input field the contract names. */
function signatures(schema: GraphQLSchema, contract: GraphQLSchema): string[] {
  const out: string[] = [];
  for (const name of Object.keys(contract.getTypeMap()).filter((n) => !n.startsWith('__'))) {
    const type = schema.getType(name);
    const wanted = contract.getType(name);
    if (isObjectType(wanted) || isInterfaceType(wanted)) {
      if (!isObjectType(type) && !isInterfaceType(type)) {
        out.push(`${name}: missing`);
        continue;
      }
      const fields = type.getFields();
      for (const fieldName of Object.keys(wanted.getFields())) {
        const field = fields[fieldName];
        if (!field) {
          out.push(`${name}.${fieldName}: missing`);
          continue;
        }
        const wantedArgs = wanted.getFields()[fieldName].args.map((a) => a.name);
        const args = field.args
          .filter((a) => wantedArgs.includes(a.name))
          .sort((a, b) => a.name.localeCompare(b.name))
          .map((a) => `${a.name}: ${a.type}${a.defaultValue !== undefined ? ` = ${JSON.stringify(a.defaultValue)}` : ''}`);
        out.push(`${name}.${fieldName}(${args.join(', ')}): ${field.type}`);
      }
    } else if (isInputObjectType(wanted)) {
      const fields = isInputObjectType(type) ? type.getFields() : {};
      for (const fieldName of Object.keys(wanted.getFields())) {
        const field = fields[fieldName];
        out.push(field ? `${name}.${fieldName}: ${field.type}${field.defaultValue !== undefined ? ` = ${JSON.stringify(field.defaultValue)}` : ''}` : `${name}.${fieldName}: missing`);
      }
    } else {
      out.push(`${name}: ${type ? type.constructor.name : 'missing'}`);
    }
  }
  return out.sort();
}
