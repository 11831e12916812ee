// `npm run codegen` (first step): writes src/client/operations/operations.graphql, one named
// operation per root field of schema/schema.graphql, which graphql-codegen then turns into the
// typed documents of `cronql/client` (codegen.yml). Generated from the SDL, so an operation cannot
// be missing or drift from the schema; `--check` writes nothing and fails when the committed file
// differs (test/graphql/codegen.test.ts runs it). Offline: it reads only the committed SDL.
//
// What each operation selects (docs/client.md says the same to users):
// - the root field's arguments are the operation's variables, named and typed as the arguments;
// - of the returned type, every field that takes no argument (a field with arguments, such as
//   `Job.runs`, is a query of its own: `runs(filter: { jobId })`);
// - a connection: `totalCount` (when it has one), `pageInfo` and `nodes` (not `edges`, which repeat the nodes);
// - an object without `id` (a value such as `RetryPolicy` or `HealthCheck`): all of it, by the
//   same rules;
// - an object with `id` (an entity such as `Job` or `Run`): all of it when it is what the
//   operation returns (the root's type, a connection's node, `RunChange.run`); below another
//   entity, or in a list below a value, only its brief fields (BRIEF) — so a run does not drag its
//   job's job along;
// - a connection's node: its own fields, without its relations to other entities (a page of jobs
//   without each one's lastRun, supersedes, supersededBy: the operation of one asks for them) —
//   so a page of 500 rows stays within the server's cost limit as entities gain fields.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  buildSchema,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import { writeOrCheck } from './generated-file.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const schemaPath = join(root, 'schema', 'schema.graphql');

/** The fields an entity shows when it is only referred to (by another entity, or in a list of a value). */
const BRIEF = {
  Job: ['id', 'key', 'version'],
  Run: ['id', 'status'],
};

const isEntity = (type) => isObjectType(type) && 'id' in type.getFields();
const isConnection = (type) => isObjectType(type) && type.name.endsWith('Connection') && 'nodes' in type.getFields();
const isList = (type) => isListType(isNonNullType(type) ? type.ofType : type);

function brief(type, indent) {
  const fields = type.getFields();
  const names = BRIEF[type.name] ?? ['id'];
  for (const name of names) {
    if (!fields[name] || !isLeafType(getNamedType(fields[name].type))) {
      throw new Error(`generate-client-operations: BRIEF.${type.name} names "${name}", which is not a leaf field of ${type.name}`);
    }
  }
  return names.map((n) => `${indent}${n}`).join('\n');
}

/**
 * The selection of an object type; `insideEntity`: it is selected as part of an entity; `row`: it
 * is a connection's node (its relations to other entities are left out).
 */
function selection(type, indent, insideEntity, path, row = false) {
  if (path.includes(type.name) && !isEntity(type)) throw new Error(`generate-client-operations: ${path.join('.')} loops through ${type.name}`);
  if (isConnection(type)) {
    const node = getNamedType(type.getFields().nodes.type);
    const pageInfo = getNamedType(type.getFields().pageInfo.type);
    return [
      // A timeline (upcoming) has no total: the window may hold any number of slots.
      ...('totalCount' in type.getFields() ? [`${indent}totalCount`] : []),
      `${indent}pageInfo {\n${selection(pageInfo, `${indent}  `, false, [...path, type.name])}\n${indent}}`,
      `${indent}nodes {\n${selection(node, `${indent}  `, false, [...path, type.name], true)}\n${indent}}`,
    ].join('\n');
  }
  const entity = isEntity(type);
  const lines = [];
  for (const field of Object.values(type.getFields()).sort((a, b) => a.name.localeCompare(b.name))) {
    if (field.args.length > 0) continue;
    const named = getNamedType(field.type);
    if (isLeafType(named)) {
      lines.push(`${indent}${field.name}`);
      continue;
    }
    if (row && isEntity(named)) continue;
    const inner = `${indent}  `;
    const referred = isEntity(named) && (entity || insideEntity || isList(field.type));
    const body = referred ? brief(named, inner) : selection(named, inner, entity || insideEntity, [...path, type.name]);
    lines.push(`${indent}${field.name} {\n${body}\n${indent}}`);
  }
  return lines.join('\n');
}

const pascal = (name) => name[0].toUpperCase() + name.slice(1);

function operation(kind, field) {
  const name = pascal(field.name);
  const variables = field.args.map((a) => `$${a.name}: ${a.type}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const named = getNamedType(field.type);
  const head = `${kind} ${name}${variables ? `(${variables})` : ''} {\n  ${field.name}${args ? `(${args})` : ''}`;
  if (isLeafType(named)) return `${head}\n}\n`;
  return `${head} {\n${selection(named, '    ', false, [])}\n  }\n}\n`;
}

export function generateOperations(sdl) {
  const schema = buildSchema(sdl);
  const parts = [
    '# Generated by `npm run codegen` (scripts/generate-client-operations.mjs) from schema/schema.graphql:',
    '# do not edit. One operation per root field; the typed documents of `cronql/client` are made from it.',
    '',
  ];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields()).sort((a, b) => a.name.localeCompare(b.name))) {
      parts.push(operation(kind, field));
    }
  }
  return parts.join('\n');
}

const text = generateOperations(readFileSync(schemaPath, 'utf8'));
writeOrCheck({
  tool: 'generate-client-operations',
  root,
  file: 'src/client/operations/operations.graphql',
  text,
  source: 'schema/schema.graphql',
  fix: 'npm run codegen',
});
