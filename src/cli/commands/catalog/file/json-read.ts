import { CATALOG_FORMAT, CATALOG_VERSION, CatalogFileError, fileIssue, itemLabel, type FileIssue, type RawEntry } from './model.js';

const KEYS = new Set(['format', 'version', 'categories', 'products']);

/**
 * Reads the JSON catalog format (what `catalog pull` writes) into raw entries, each with the line
 * where it starts so that problems point into the file, and the problems of the document itself
 * (format, version, unknown fields). Those do not stop the items' own checks, so that one run lists
 * everything to fix; only text that is not a JSON object throws `CatalogFileError`. Item fields are
 * checked later, against the contract.
 */
export function readJsonCatalog(file: string, text: string): { entries: RawEntry[]; issues: FileIssue[] } {
  const doc = parseJson(file, text);
  const issues: FileIssue[] = [];
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new CatalogFileError(file, [fileIssue(file, 1, `expected a JSON object with "format": "${CATALOG_FORMAT}"`)]);
  }
  const root = doc as Record<string, unknown>;
  if (root.format !== CATALOG_FORMAT) issues.push(fileIssue(file, null, `"format" must be "${CATALOG_FORMAT}"`, 'invalid_value', 'format'));
  if (root.version !== CATALOG_VERSION) issues.push(fileIssue(file, null, `"version" must be ${CATALOG_VERSION}`, 'invalid_value', 'version'));
  for (const key of Object.keys(root)) {
    if (!KEYS.has(key)) issues.push(fileIssue(file, null, `unknown top-level field "${key}"`, 'unknown_field', key));
  }
  const lists = { categories: [] as unknown[], products: [] as unknown[] };
  for (const key of ['categories', 'products'] as const) {
    if (Array.isArray(root[key])) lists[key] = root[key];
    else if (root[key] !== undefined) issues.push(fileIssue(file, null, `"${key}" must be a list`, 'invalid_type', key));
  }
  const lines = elementLines(text);
  const entries = (key: 'categories' | 'products', kind: RawEntry['kind']): RawEntry[] =>
    lists[key].map((value, i) => ({
      kind,
      value,
      where: { file, line: lines[key]?.[i] ?? null, label: itemLabel(`${key}[${i}]`, value) },
    }));
  return { entries: [...entries('categories', 'category'), ...entries('products', 'product')], issues };
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const message = (error as Error).message;
    throw new CatalogFileError(file, [fileIssue(file, errorLine(text, message), `not valid JSON: ${message}`, 'malformed_json')]);
  }
}

/**
 * The line of a JSON.parse error. V8 gives a position for some errors, an excerpt of the text around
 * the bad token for others (`Unexpected token '}', ..."gories": [}" is not valid JSON`).
 */
function errorLine(text: string, message: string): number | null {
  const at = /position (\d+)/.exec(message);
  if (at) return lineOf(text, Number(at[1]));
  if (/end of JSON input/.test(message)) return lineOf(text, text.trimEnd().length);
  const excerpt = /, (?:\.\.\.)?"([\s\S]*)"(?:\.\.\.)? is not valid JSON$/.exec(message)?.[1];
  const offset = excerpt ? text.indexOf(excerpt) : -1;
  return offset === -1 || text.indexOf(excerpt!, offset + 1) !== -1 ? null : lineOf(text, offset + excerpt!.length - 1);
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * The starting line of each element of the root object's arrays (`categories`, `products`), found
 * by one scan of the text that follows strings and nesting. JSON.parse gives values, not positions.
 */
export function elementLines(text: string): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  let depth = 0;
  let line = 1;
  let lastKey: string | null = null;
  let current: number[] | null = null;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') line++;
    else if (c === '"') {
      const end = stringEnd(text, i);
      if (depth === 1) lastKey = JSON.parse(text.slice(i, end + 1)) as string;
      if (depth === 2 && current && expectValue) current.push(line);
      expectValue = false;
      i = end;
    } else if (c === '[' || c === '{') {
      if (depth === 2 && current && expectValue) current.push(line);
      expectValue = false;
      depth++;
      if (depth === 2 && c === '[' && lastKey !== null) {
        current = out[lastKey] = [];
        expectValue = true;
      }
    } else if (c === ']' || c === '}') {
      depth--;
      if (depth < 2) current = null;
    } else if (c === ',') {
      if (depth === 2 && current) expectValue = true;
    } else if (depth === 2 && current && expectValue && !/\s/.test(c)) {
      current.push(line);
      expectValue = false;
    }
  }
  return out;
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length - 1;
}
