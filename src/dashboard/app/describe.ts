import cronstrue from 'cronstrue';

const cache = new Map<string, string>();

/**
 * An English description of a cron expression (cronstrue: 5 fields, or 6 with seconds first;
 * L, W and # understood), or null when cronstrue cannot read it. Only a label: whether an
 * expression is valid is the API's decision (INVALID_CRON_EXPRESSION).
 */
export function describeCron(expression: string | null | undefined): string | null {
  if (!expression) return null;
  let text = cache.get(expression);
  if (text === undefined) {
    try {
      text = cronstrue.toString(expression, { use24HourTimeFormat: true, throwExceptionOnParseError: true, verbose: false });
    } catch {
      text = '';
    }
    if (cache.size > 5_000) cache.clear();
    cache.set(expression, text);
  }
  return text || null;
}
