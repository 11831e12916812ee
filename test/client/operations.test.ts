import { readFile } from 'node:fs/promises';
import { buildSchema, Kind, parse, specifiedRules, validate, type OperationDefinitionNode } from 'graphql';
import { expect, test } from 'vitest';
import * as client from '../../src/client/index.js';
import { LIMIT_RULES, LIMITS, costError } from '../../src/graphql/limits.js';
import { MAX_PAGE_SIZE } from '../../src/services/pagination.js';

/**
 * The operations of `cronql/client` (generated from the SDL by scripts/generate-client-operations.mjs):
 * one per root field, exported as a typed document, and each one accepted by the server's own
 * validation and limits — a page of the largest size included, and a subscription's selection
 * within the per-event ceiling — so no generated document is refused for its shape.
 */
const root = new URL('../..', import.meta.url);
const schema = buildSchema(await readFile(new URL('schema/schema.graphql', root), 'utf8'));
const document = parse(await readFile(new URL('src/client/operations/operations.graphql', root), 'utf8'));
const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
const pascal = (name: string) => name[0].toUpperCase() + name.slice(1);

test('every root field of Query, Mutation and Subscription has its named operation and typed document', () => {
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const) {
    for (const field of Object.values(type!.getFields())) {
      const name = pascal(field.name);
      const op = operations.find((o) => o.name?.value === name);
      expect(op?.operation, `${kind} ${name}`).toBe(kind);
      // Every argument is a variable of the same name and type.
      expect(op!.variableDefinitions?.map((v) => v.variable.name.value).sort()).toEqual(field.args.map((a) => a.name).sort());
      const exported = (client as Record<string, unknown>)[`${name}Document`];
      expect(String(exported), `${name}Document`).toContain(`${kind} ${name}`);
    }
  }
});

test('each operation passes the server validation and limits, at the largest page size', () => {
  expect(validate(schema, document, [...specifiedRules, ...LIMIT_RULES])).toEqual([]);
  for (const op of operations) {
    const variables = Object.fromEntries((op.variableDefinitions ?? []).filter((v) => v.variable.name.value === 'first').map(() => ['first', MAX_PAGE_SIZE]));
    const ceiling = op.operation === 'subscription' ? LIMITS.maxEventCost : LIMITS.maxCost;
    expect(costError(schema, document, variables, op.name!.value, ceiling)?.message, op.name!.value).toBeUndefined();
  }
});

test('a connection is read by its nodes, with totalCount and pageInfo; fields with arguments are left to their own query', () => {
  const jobs = operations.find((o) => o.name?.value === 'Jobs')!;
  const field = jobs.selectionSet.selections[0];
  expect(field.kind === Kind.FIELD && field.selectionSet?.selections.map((s) => (s.kind === Kind.FIELD ? s.name.value : '')).sort()).toEqual(['nodes', 'pageInfo', 'totalCount']);
  expect(String(client.JobDocument)).not.toMatch(/\bruns\b/);
});
