import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import { localDateText, parseLocalDate } from '../schedule/calendar.js';

/**
 * ISO-8601 date-time (seconds optional) with an explicit offset (`Z` or `±hh:mm`): a time
 * without an offset names no instant, so it is rejected rather than read in the server's zone.
 */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseDateTime(value: unknown): Date {
  if (typeof value !== 'string' || !DATE_TIME.test(value)) {
    throw new GraphQLError('DateTime must be an ISO-8601 string with an offset, e.g. "2030-01-01T09:00:00Z"');
  }
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(value);
  // Date would roll 2030-02-31 over into March.
  if (Number.isNaN(date.getTime()) || month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) {
    throw new GraphQLError(`DateTime "${value}" is not a valid instant`);
  }
  return date;
}

/** An instant. Input: ISO-8601 with an offset. Output: always UTC with a trailing `Z`. */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant as an ISO-8601 string; output is always UTC with a trailing Z.',
  serialize(value) {
    const date = value instanceof Date ? value : new Date(value as string);
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime cannot represent an invalid date');
    return date.toISOString();
  },
  parseValue: parseDateTime,
  parseLiteral(ast: ValueNode) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { nodes: ast });
    return parseDateTime(ast.value);
  },
});

/** Any JSON value (payloads, outputs, failure details). */
export const JSONScalar = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  name: 'JSON',
  description: 'Any JSON value.',
});

/** A local day, "YYYY-MM-DD" (a calendar's, in its own zone): checked on input, as stored on output. */
function parseLocalDay(value: unknown): string {
  try {
    return localDateText(parseLocalDate(value, 'LocalDate'));
  } catch (err) {
    throw new GraphQLError((err as Error).message);
  }
}

export const LocalDateScalar = new GraphQLScalarType<string, string>({
  name: 'LocalDate',
  description: 'A day, "YYYY-MM-DD" (1970–9999), in the zone of what it belongs to (a calendar\'s own zone).',
  serialize: (value) => String(value),
  parseValue: parseLocalDay,
  parseLiteral(ast: ValueNode) {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('LocalDate must be a string', { nodes: ast });
    return parseLocalDay(ast.value);
  },
});
