import {
  GraphQLError,
  Kind,
  MaxIntrospectionDepthRule,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_PAGE_SIZE } from '../services/pagination.js';

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
   * Estimated cost: each field costs 1 plus its children's cost, multiplied by `first` on
   * paged fields. Measured: a page of 500 runs with every Run field 13,501; a 50-run page with
   * `job { key lastRun { id } }` 401; GraphiQL's introspection query 220.
   */
  maxCost: 25_000,
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

/** Each field costs 1 plus its children, times `first` where the field is paged. */
const costEstimator: ComplexityEstimator = ({ args, childComplexity }) => {
  const first = args.first;
  const factor = typeof first === 'number' && first >= 0 ? Math.min(first, MAX_PAGE_SIZE) : 1;
  return 1 + factor * childComplexity;
};

/** Field nodes visited (fragments expanded) before the estimate gives up: a fragment fan-out guard. */
const MAX_COST_NODES = 5_000;

/**
 * The cost error of an operation, or null when it is within `maxCost`. Needs the variables (a
 * `first: $n`), so it runs after validation, once the operation is known: as an Apollo plugin
 * on HTTP, in `onSubscribe` on the WebSocket.
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
    cost = getComplexity({
      schema,
      query: document,
      variables: variables ?? {},
      operationName: operationName ?? undefined,
      estimators: [costEstimator],
      maxQueryNodes: MAX_COST_NODES,
    });
  } catch (err) {
    if (err instanceof GraphQLError && /maximum allowed number of nodes/.test(err.message)) {
      return limitError(`Operation selects more than the limit of ${MAX_COST_NODES} fields`);
    }
    // Variables that do not coerce: execution reports them as BAD_USER_INPUT.
    return null;
  }
  return cost > maxCost ? limitError(`Operation cost ${cost} exceeds the limit of ${maxCost}`) : null;
}
