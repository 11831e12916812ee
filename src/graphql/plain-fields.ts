import { isObjectType, type GraphQLSchema } from 'graphql';
import { getMetadataStorage, type BuildSchemaOptions } from 'type-graphql';

/**
 * Takes type-graphql's wrapper off the fields that are a property of their object and nothing
 * more, so that graphql-js's default resolver (and graphql-jit, which then reads the property
 * inline) answers them. type-graphql gives every `@Field` a resolver that runs the field's
 * middlewares and auth check and then reads `root[name]`: for a field without either it is a
 * closure and an object per field per row — on a page of 50 runs, about a thousand calls that
 * only read a property.
 *
 * Decided from type-graphql's own metadata, field by field, rather than by declaring object types
 * `simpleResolvers` (which would also drop an `@Authorized` or `@UseMiddleware` later put on one of
 * their fields, silently): a field keeps its wrapper if it has roles, middlewares, arguments, a
 * `@FieldResolver` (type-graphql's own matching: same object class, same method name), a schema
 * name other than its property, or if the schema has global middlewares. A field whose value may
 * be a promise (a lazy getter, as a connection's `totalCount`) is declared `simple: false`: graphql-js
 * awaits such a property, but the compiled execution (compiled-execution.ts) awaits only what a
 * resolver returns.
 */
export function withPlainFields(schema: GraphQLSchema, options: Pick<BuildSchemaOptions, 'globalMiddlewares'>): GraphQLSchema {
  if (options.globalMiddlewares?.length) return schema;
  const storage = getMetadataStorage();
  for (const objectType of storage.objectTypes) {
    const type = schema.getType(objectType.name);
    // A class named in metadata but not in this schema, or a name another kind of type took.
    if (!isObjectType(type)) continue;
    const defs = type.getFields();
    for (const field of objectType.fields ?? []) {
      const def = defs[field.schemaName];
      if (!def || def.args.length > 0) continue;
      if (field.simple === false || field.roles !== undefined || field.middlewares?.length || field.params?.length || field.name !== field.schemaName) continue;
      if (storage.fieldResolvers.some((r) => r.methodName === field.name && r.getObjectType?.() === field.target)) continue;
      def.resolve = undefined;
    }
  }
  return schema;
}
