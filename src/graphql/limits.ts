import {
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  MaxIntrospectionDepthRule,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { pageSize } from '../services/pagination.js';

/**
 * Limits on what one operation may ask for, applied on HTTP (Apollo) and on the WebSocket
 * (graphql-ws bypasses Apollo, so src/http/graphql.ts applies them there itself).
 */
export const LIMITS = {
  /** Nesting of fields, root fields at depth 1; `ofType` wrappers of introspection do not count. */
  maxDepth: 10,
  /** Aliased fields in one operation, counted through fragments. */
  maxAliases: 30,
  /**
   * Estimated cost (see operationCost): each field costs 1 plus its children (the argument-less
   * leaves of one selection: 1 together); a page's rows are
   * counted with the page size its resolver will use (`first` omitted or null → the field's default: 20, `Run.logs` 100), and its
   * `totalCount` / `pageInfo` once each.
   */
  maxCost: 25_000,
  /**
   * Cost of a subscription's selection, executed again for every event it receives (a run with
   * its job and the job's last run is about 20).
   */
  maxEventCost: 500,
  /** Lexical tokens per document: bounds parsing and validation work before anything else. */
  maxTokens: 10_000,
  /** Instants `previewSchedule` returns at most, whatever `count` asks for. */
  maxPreviewCount: 100,
} as const;

/** A limit violation: a validation error (`GRAPHQL_VALIDATION_FAILED` on both paths). */
function limitError(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400 } } });
}

/**
 * Reports an operation nested deeper than `maxDepth` or with more than `maxAliases` aliases.
 * Walks the operation with fragments expanded, and stops as soon as a limit is passed, so a
 * bomb costs no more to reject than the limit itself. Fragment cycles are left to the standard
 * NoFragmentCyclesRule (the walk just does not re-enter a fragment on its own path).
 */
export function operationShapeRule(maxDepth: number = LIMITS.maxDepth, maxAliases: number = LIMITS.maxAliases): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const def of context.getDocument().definitions) {
      if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
    }
    return {
      OperationDefinition(operation) {
        let aliases = 0;
        let tooDeep = false;
        const walk = (set: SelectionSetNode, depth: number, path: Set<string>): void => {
          for (const selection of set.selections) {
            if (tooDeep || aliases > maxAliases) return;
            if (selection.kind === Kind.FIELD) {
              if (selection.alias) aliases += 1;
              const counted = selection.name.value === 'ofType' ? depth : depth + 1;
              if (counted > maxDepth) {
                tooDeep = true;
                return;
              }
              if (selection.selectionSet) walk(selection.selectionSet, counted, path);
            } else if (selection.kind === Kind.INLINE_FRAGMENT) {
              walk(selection.selectionSet, depth, path);
            } else {
              const name = selection.name.value;
              const fragment = fragments.get(name);
              if (!fragment || path.has(name)) continue;
              path.add(name);
              walk(fragment.selectionSet, depth, path);
              path.delete(name);
            }
          }
        };
        walk(operation.selectionSet, 0, new Set());
        if (tooDeep) context.reportError(limitError(`Operation is nested deeper than the limit of ${maxDepth} levels`));
        if (aliases > maxAliases) context.reportError(limitError(`Operation uses more than the limit of ${maxAliases} aliases`));
      },
    };
  };
}

/**
 * The rules added to graphql-js's standard ones on both paths. MaxIntrospectionDepthRule stops
 * the introspection bomb (`fields { type { fields { type { fields … } } } }`), which a depth
 * limit alone lets through at modest depths.
 */
export const LIMIT_RULES: readonly ValidationRule[] = [operationShapeRule(), MaxIntrospectionDepthRule];

/** Field nodes visited (fragments expanded) before the estimate gives up: a fragment fan-out guard. */
const MAX_COST_NODES = 5_000;

class TooManyNodes extends Error {}

/**
 * The cost of an operation, modelled on what the resolvers do: each field costs 1 plus its
 * children, except the argument-less leaves of one selection, which cost 1 together (they are the
 * columns of the object in hand). A connection (`…Connection` type) costs 1, plus `totalCount` and `pageInfo` once
 * each (their own queries, whatever the page size — so `first: 0` does not make them free),
 * plus `nodes`/`edges` times the page size the resolver will fetch: `pageSize(first)`, the same
 * function the services call (omitted or null → the field's declared default, capped at 500). A
 * list answering one object per input (`createJobs`, `createJobVersions`) costs its selection
 * once per input (`answersOf`).
 */
function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  operationName: string | null | undefined,
): number {
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  );
  if (!operation) return 0;
  const root = schema.getRootType(operation.operation);
  if (!root) return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  let nodes = 0;

  const costOf = (set: SelectionSetNode, parent: GraphQLNamedType, path: Set<string>): number => {
    let total = 0;
    // The leaves of a selection (scalar and enum fields without arguments) come with the object in
    // hand — a row's columns, read once: together they cost 1, however many (so a job gaining a
    // field does not make a page of jobs dearer). Fields with arguments or a selection cost their own.
    let leaves = 0;
    for (const selection of set.selections) {
      if (!shouldInclude(selection, variables)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        total += costOf(selection.selectionSet, on ?? parent, path);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || path.has(fragment.name.value)) continue;
        path.add(fragment.name.value);
        total += costOf(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? parent, path);
        path.delete(fragment.name.value);
      } else {
        if (++nodes > MAX_COST_NODES) throw new TooManyNodes();
        if (!selection.selectionSet && !selection.arguments?.length) leaves = 1;
        else total += fieldCost(selection, parent, path);
      }
    }
    return total + leaves;
  };

  const fieldCost = (field: FieldNode, parent: GraphQLNamedType, path: Set<string>): number => {
    const def = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[field.name.value] : undefined;
    if (!def || !field.selectionSet) return 1;
    const type = getNamedType(def.type);
    if (!type.name.endsWith('Connection') || !isObjectType(type)) return answersOf(def, field, variables) * (1 + costOf(field.selectionSet, type, path));
    // A connection: the page is fetched once, its parts priced apart.
    const args = getArgumentValues(def, field, variables);
    // `first: null` is the field's own default, as its resolver reads it (Run.logs: 100; the others: 20).
    const declared = def.args.find((a) => a.name === 'first')?.defaultValue;
    const page = pageSize(typeof args.first === 'number' ? args.first : null, typeof declared === 'number' ? declared : undefined);
    let total = 1;
    for (const part of collectFields(field.selectionSet, fragments, variables)) {
      if (++nodes > MAX_COST_NODES) throw new TooManyNodes();
      const partDef = type.getFields()[part.name.value];
      const inner = part.selectionSet && partDef ? costOf(part.selectionSet, getNamedType(partDef.type), path) : 0;
      if (part.name.value === 'nodes' || part.name.value === 'edges') total += page * (1 + inner);
      else total += 1 + inner;
    }
    return total;
  };

  return costOf(operation.selectionSet, root, new Set());
}

/**
 * How many objects a field answers for its selection: one per item of its `inputs` list when it
 * is a list of them (createJobs, createJobVersions: a new job per input), else one. The list is
 * counted as sent (a literal or a variable), not coerced: coercion comes later, once.
 */
function answersOf(def: GraphQLField<unknown, unknown>, field: FieldNode, variables: Record<string, unknown>): number {
  if (!isListType(getNullableType(def.type)) || !def.args.some((a) => a.name === 'inputs')) return 1;
  const arg = field.arguments?.find((a) => a.name.value === 'inputs')?.value;
  const items = arg?.kind === Kind.LIST ? arg.values.length : arg?.kind === Kind.VARIABLE ? (Array.isArray(variables[arg.name.value]) ? (variables[arg.name.value] as unknown[]).length : 1) : 1;
  return Math.max(1, items);
}

/** The fields selected directly in a set, through fragments (what a connection's parts are). */
function collectFields(set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, variables: Record<string, unknown>, seen = new Set<string>()): FieldNode[] {
  const out: FieldNode[] = [];
  for (const selection of set.selections) {
    if (!shouldInclude(selection, variables)) continue;
    if (selection.kind === Kind.FIELD) out.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) out.push(...collectFields(selection.selectionSet, fragments, variables, seen));
    else if (!seen.has(selection.name.value)) {
      const fragment = fragments.get(selection.name.value);
      if (fragment) out.push(...collectFields(fragment.selectionSet, fragments, variables, new Set([...seen, selection.name.value])));
    }
  }
  return out;
}

/** `@skip` / `@include`, as execution will apply them. */
function shouldInclude(node: SelectionNode, variables: Record<string, unknown>): boolean {
  const skip = getDirectiveValues(GraphQLSkipDirective, node, variables);
  if (skip?.if === true) return false;
  const include = getDirectiveValues(GraphQLIncludeDirective, node, variables);
  return include?.if !== false;
}

/**
 * The cost error of an operation, or null when it is within `maxCost`. Needs the variables (a
 * `first: $n`), so it runs after validation, once the operation is known: as an Apollo plugin
 * on HTTP, in `onSubscribe` on the WebSocket — one function for both.
 */
export function costError(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
  maxCost: number = LIMITS.maxCost,
): GraphQLError | null {
  let cost: number;
  try {
    cost = operationCost(schema, document, variables ?? {}, operationName);
  } catch (err) {
    if (err instanceof TooManyNodes) return limitError(`Operation selects more than the limit of ${MAX_COST_NODES} fields`);
    // Variables or arguments that do not coerce: execution reports them as BAD_USER_INPUT.
    return null;
  }
  return cost > maxCost ? limitError(`Operation cost ${cost} exceeds the limit of ${maxCost}`) : null;
}

/** The cost of an operation (tests, and the measurements in LIMITS' comment). */
export function operationCostOf(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}): number {
  return operationCost(schema, document, variables, undefined);
}
