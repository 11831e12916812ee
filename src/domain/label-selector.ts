import { CronqlError } from '../errors.js';

/**
 * Labels and label selectors (docs/api.md, "Label selectors"): a job's labels are a flat object
 * of string → string; a selector picks jobs by them with Kubernetes' grammar. This module is pure:
 * it parses and checks text, and evaluates a selector over one job's labels in memory. The same
 * selector as a SQL condition is db/label-selector-sql.ts; the two must agree (test/graphql/labels.test.ts
 * compares them over generated selectors).
 */

/** A label key: lower-case letters, digits and `._/-`, starting with a letter or digit, at most 63 characters. */
export const LABEL_KEY = /^[a-z0-9][a-z0-9._/-]{0,62}$/;
/**
 * A label value: at most 63 characters of letters, digits and `._/:@+-`, possibly empty. Narrower
 * than "any string" on purpose: every value a job can hold can then be written in a selector
 * (no space, comma, parenthesis, `=` or `!` to escape).
 */
export const LABEL_VALUE = /^[A-Za-z0-9._/:@+-]{0,63}$/;
/** The most labels one job holds (AWS allows 50 tags; a job needs a handful: team, env, tier …). */
export const MAX_LABELS = 32;

/** The longest selector, in characters. */
export const MAX_SELECTOR_LENGTH = 1_024;
/** The most terms (comma-separated requirements) in one selector. */
export const MAX_SELECTOR_TERMS = 20;
/** The most values in one `in (…)` / `notin (…)` list. */
export const MAX_SELECTOR_VALUES = 50;

/** One requirement of a selector; a selector is their conjunction. */
export type SelectorTerm =
  | { op: 'eq'; key: string; value: string }
  | { op: 'neq'; key: string; value: string }
  | { op: 'in'; key: string; values: string[] }
  | { op: 'notin'; key: string; values: string[] }
  | { op: 'exists'; key: string }
  | { op: 'notexists'; key: string };

export interface LabelSelector {
  /** The requirements, in the order written; none: the selector matches every job. */
  terms: SelectorTerm[];
}

/** A job's labels, valid. */
export type Labels = Record<string, string>;

const invalidLabels = (message: string, details: Record<string, unknown>): CronqlError =>
  new CronqlError('INVALID_LABELS', message, { field: 'labels', ...details });

/**
 * Checks a job's labels: a flat JSON object of at most MAX_LABELS keys (LABEL_KEY) to string
 * values (LABEL_VALUE). Returns a copy holding exactly those keys.
 * @throws CronqlError INVALID_LABELS naming the first key or value at fault
 */
export function validateLabels(value: unknown): Labels {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidLabels('labels must be a JSON object of string keys to string values, e.g. {"team": "billing"}', {});
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_LABELS) {
    throw invalidLabels(`a job holds at most ${MAX_LABELS} labels; got ${entries.length}`, { count: entries.length, max: MAX_LABELS });
  }
  const labels: Labels = {};
  for (const [key, v] of entries) {
    if (!LABEL_KEY.test(key)) {
      throw invalidLabels(
        `label key ${JSON.stringify(key.slice(0, 80))} must be 1–63 lower-case letters, digits, '.', '_', '/' or '-', starting with a letter or digit ([a-z0-9][a-z0-9._/-]{0,62})`,
        { key: key.slice(0, 80) },
      );
    }
    if (typeof v !== 'string') {
      throw invalidLabels(`label ${key}: values are strings (write "${String(JSON.stringify(v)).slice(0, 40)}" in quotes); got ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`, { key });
    }
    if (!LABEL_VALUE.test(v)) {
      throw invalidLabels(`label ${key}: its value must be at most 63 characters of letters, digits and . _ / : @ + - (so that a selector can name it)`, { key });
    }
    labels[key] = v;
  }
  return labels;
}

// ---- The selector's grammar -------------------------------------------------------------------

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '(' | ')' | ','; at: number }
  | { kind: 'end'; at: number };

/** Characters a key or value is made of (each is then checked against LABEL_KEY or LABEL_VALUE). */
const WORD_CHAR = /[A-Za-z0-9._/:@+-]/;

const invalidSelector = (message: string, at: number | null, term?: string): CronqlError =>
  new CronqlError('INVALID_SELECTOR', at === null ? message : `${message} (at position ${at})`, {
    field: 'labelSelector',
    ...(at === null ? {} : { position: at }),
    ...(term === undefined ? {} : { term }),
  });

/** Positions are 1-based, as an editor counts columns. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    const at = i + 1;
    if (c === '=' && text[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '==', at });
      i += 2;
    } else if (c === '!' && text[i + 1] === '=') {
      tokens.push({ kind: 'op', text: '!=', at });
      i += 2;
    } else if (c === '=' || c === '!' || c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: 'op', text: c, at });
      i++;
    } else if (WORD_CHAR.test(c)) {
      let j = i;
      while (j < text.length && WORD_CHAR.test(text[j])) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j), at });
      i = j;
    } else {
      throw invalidSelector(`unexpected character ${JSON.stringify(c)}; a selector is terms like team=billing, env!=dev, tier in (a,b), !legacy, joined by commas`, at);
    }
  }
  tokens.push({ kind: 'end', at: text.length + 1 });
  return tokens;
}

const describe = (t: Token): string => (t.kind === 'end' ? 'the end' : JSON.stringify(t.text));

/**
 * Parses a selector: terms joined by commas (all must hold), each one of
 * `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k` (has the label), `!k` (has it not).
 * An empty (or blank) selector has no terms and matches every job (as in Kubernetes); bulk actions
 * refuse it (services/bulk-actions.service.ts). `k!=v` and `k notin (…)` match jobs without `k`
 * too, as in Kubernetes.
 * @throws CronqlError INVALID_SELECTOR naming the position and the term at fault
 */
export function parseLabelSelector(text: string): LabelSelector {
  if (typeof text !== 'string') throw invalidSelector('a label selector is a string', null);
  if (text.length > MAX_SELECTOR_LENGTH) {
    throw invalidSelector(`a label selector is at most ${MAX_SELECTOR_LENGTH} characters; got ${text.length}`, null);
  }
  const tokens = tokenize(text);
  let p = 0;
  const peek = () => tokens[p];
  const next = () => tokens[p++];
  const terms: SelectorTerm[] = [];
  if (peek().kind === 'end') return { terms };

  const key = (t: Token, termStart: number): string => {
    if (t.kind !== 'word') throw invalidSelector(`expected a label key, found ${describe(t)}`, t.at, termText(termStart));
    if (!LABEL_KEY.test(t.text)) {
      throw invalidSelector(`${JSON.stringify(t.text)} is not a label key ([a-z0-9][a-z0-9._/-]{0,62})`, t.at, termText(termStart));
    }
    return t.text;
  };
  const value = (t: Token, termStart: number): string => {
    if (t.kind !== 'word' || !LABEL_VALUE.test(t.text)) {
      throw invalidSelector(
        t.kind === 'word' ? `${JSON.stringify(t.text)} is not a label value (at most 63 of A-Z a-z 0-9 . _ / : @ + -)` : `expected a value, found ${describe(t)}`,
        t.at,
        termText(termStart),
      );
    }
    return t.text;
  };
  // The text of the term being read, from its first token to the next comma at depth 0 (for messages).
  const termText = (start: number): string => {
    let depth = 0;
    let end = start;
    for (; end < tokens.length; end++) {
      const t = tokens[end];
      if (t.kind === 'end' || (t.kind === 'op' && t.text === ',' && depth === 0)) break;
      if (t.kind === 'op' && t.text === '(') depth++;
      if (t.kind === 'op' && t.text === ')') depth--;
    }
    const from = tokens[start].at - 1;
    const to = tokens[end].at - 1;
    return text.slice(from, to).trim();
  };
  const list = (termStart: number): string[] => {
    const open = next();
    if (open.kind !== 'op' || open.text !== '(') throw invalidSelector(`expected "(" after in/notin, found ${describe(open)}`, open.at, termText(termStart));
    const values: string[] = [value(next(), termStart)];
    for (;;) {
      const t = next();
      if (t.kind === 'op' && t.text === ')') break;
      if (t.kind !== 'op' || t.text !== ',') throw invalidSelector(`expected "," or ")" in a list of values, found ${describe(t)}`, t.at, termText(termStart));
      values.push(value(next(), termStart));
      if (values.length > MAX_SELECTOR_VALUES) {
        throw invalidSelector(`a list holds at most ${MAX_SELECTOR_VALUES} values`, tokens[termStart].at, termText(termStart));
      }
    }
    return values;
  };

  for (;;) {
    const termStart = p;
    const first = next();
    if (first.kind === 'op' && first.text === '!') {
      terms.push({ op: 'notexists', key: key(next(), termStart) });
    } else {
      const k = key(first, termStart);
      const t = peek();
      if (t.kind === 'op' && (t.text === '=' || t.text === '==' || t.text === '!=')) {
        next();
        // `k=` names the empty value, as in Kubernetes.
        const after = peek();
        const v = after.kind === 'word' ? value(next(), termStart) : '';
        if (after.kind === 'op' && after.text !== ',') throw invalidSelector(`expected a value, found ${describe(after)}`, after.at, termText(termStart));
        terms.push(t.text === '!=' ? { op: 'neq', key: k, value: v } : { op: 'eq', key: k, value: v });
      } else if (t.kind === 'word' && (t.text === 'in' || t.text === 'notin')) {
        next();
        terms.push({ op: t.text, key: k, values: list(termStart) });
      } else if (t.kind === 'word') {
        throw invalidSelector(`expected =, ==, !=, in, notin, "," or the end after ${JSON.stringify(k)}, found ${describe(t)}`, t.at, termText(termStart));
      } else {
        terms.push({ op: 'exists', key: k });
      }
    }
    if (terms.length > MAX_SELECTOR_TERMS) {
      throw invalidSelector(`a selector holds at most ${MAX_SELECTOR_TERMS} terms`, tokens[termStart].at, termText(termStart));
    }
    const sep = next();
    if (sep.kind === 'end') return { terms };
    if (sep.kind !== 'op' || sep.text !== ',') {
      throw invalidSelector(`expected "," or the end after a term, found ${describe(sep)}`, sep.at, termText(termStart));
    }
    if (peek().kind === 'end') throw invalidSelector('a selector does not end with ","', sep.at);
  }
}

/** Whether a selector has no terms (matches every job). */
export const isEmptySelector = (selector: LabelSelector): boolean => selector.terms.length === 0;

/** The in-memory evaluation: whether a job with `labels` matches `selector`. */
export function matchesSelector(selector: LabelSelector, labels: Readonly<Labels>): boolean {
  return selector.terms.every((term) => {
    const has = Object.hasOwn(labels, term.key);
    const v = has ? labels[term.key] : undefined;
    switch (term.op) {
      case 'eq':
        return v === term.value;
      case 'neq':
        return v !== term.value;
      case 'in':
        return v !== undefined && term.values.includes(v);
      case 'notin':
        return v === undefined || !term.values.includes(v);
      case 'exists':
        return has;
      case 'notexists':
        return !has;
    }
  });
}

/** A selector written back in its canonical form (`k=v`, `k in (a,b)` …, joined by ","), which parses to the same terms. */
export function formatSelector(selector: LabelSelector): string {
  return selector.terms
    .map((t) => {
      switch (t.op) {
        case 'eq':
          return `${t.key}=${t.value}`;
        case 'neq':
          return `${t.key}!=${t.value}`;
        case 'in':
          return `${t.key} in (${t.values.join(',')})`;
        case 'notin':
          return `${t.key} notin (${t.values.join(',')})`;
        case 'exists':
          return t.key;
        case 'notexists':
          return `!${t.key}`;
      }
    })
    .join(',');
}
