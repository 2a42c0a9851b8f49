/**
 * The `option_groups` column of the CSV format: a product's option groups in one spreadsheet cell.
 *
 *   cell    = group *( "|" group )
 *   group   = code "=" name [ "[" min "-" max "]" ] [ ":" option *( ";" option ) ]
 *   option  = code "=" name [ "=" price ] [ "=" "unavailable" ]
 *
 * Example: `PIZ-MUZZA.tam = Tamaño [1-1]: PIZ-MUZZA.tam.med = Mediana; PIZ-MUZZA.tam.gde = Grande = 20000`.
 * Spaces around the separators are ignored; a backslash makes the next character literal
 * (`\|`, `\;`, `\=`, `\[`, `\]`, `\:`, `\\`) for names that contain one, and for codes with `:`.
 */

export interface CellOption {
  external_id: string;
  name: string;
  price?: string;
  available?: boolean;
}

export interface CellGroup {
  external_id: string;
  name: string;
  min_select?: number;
  max_select?: number;
  options: CellOption[];
}

export class OptionSyntaxError extends Error {}

const SPECIAL = '|;=[]:\\';

/** Splits on an unescaped separator, keeping escapes in the parts (they are resolved last). */
function split(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\' && i + 1 < text.length) {
      current += text[i] + text[i + 1];
      i++;
    } else if (text[i] === separator) {
      parts.push(current);
      current = '';
    } else current += text[i];
  }
  parts.push(current);
  return parts;
}

/** The index of the first unescaped `char`, or -1. */
function indexOf(text: string, char: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === char) return i;
  }
  return -1;
}

const unescape = (text: string) => text.trim().replace(/\\(.)/g, '$1');

/** Parses the cell; throws `OptionSyntaxError` with an English message naming the group or option. */
export function parseOptionGroups(cell: string): CellGroup[] {
  if (cell.trim() === '') return [];
  return split(cell, '|').map((text, g) => parseGroup(text, g + 1));
}

function parseGroup(text: string, n: number): CellGroup {
  const colon = indexOf(text, ':');
  const head = colon === -1 ? text : text.slice(0, colon);
  const body = colon === -1 ? '' : text.slice(colon + 1);
  const bracket = /\[\s*(\d+)\s*-\s*(\d+)\s*\]\s*$/.exec(head);
  const [code, ...rest] = split(bracket ? head.slice(0, bracket.index) : head, '=');
  if (rest.length !== 1 || unescape(code) === '') {
    throw new OptionSyntaxError(`group ${n}: expected "code = name [min-max]: options" (got "${text.trim()}")`);
  }
  if (indexOf(rest[0], '[') !== -1 || indexOf(rest[0], ']') !== -1) {
    throw new OptionSyntaxError(`group ${n}: the selection bounds go as [min-max] at the end of the group's name, e.g. [0-2]`);
  }
  const group: CellGroup = { external_id: unescape(code), name: unescape(rest[0]), options: [] };
  if (bracket) {
    group.min_select = Number(bracket[1]);
    group.max_select = Number(bracket[2]);
  }
  if (body.trim() !== '') group.options = split(body, ';').map((o, i) => parseOption(o, n, i + 1));
  return group;
}

function parseOption(text: string, group: number, n: number): CellOption {
  const parts = split(text, '=').map(unescape);
  const unavailable = parts.length > 2 && parts[parts.length - 1].toLowerCase() === 'unavailable';
  if (unavailable) parts.pop();
  if (parts.length < 2 || parts.length > 3 || parts[0] === '') {
    throw new OptionSyntaxError(`group ${group}, option ${n}: expected "code = name [= price] [= unavailable]" (got "${text.trim()}")`);
  }
  const option: CellOption = { external_id: parts[0], name: parts[1] };
  if (parts.length === 3 && parts[2] !== '') option.price = parts[2];
  if (unavailable) option.available = false;
  return option;
}

const escape = (text: string) => [...text].map((c) => (SPECIAL.includes(c) ? `\\${c}` : c)).join('');

/** Writes option groups in the cell syntax (what `catalog pull --out x.csv` writes). */
export function formatOptionGroups(groups: readonly CellGroup[]): string {
  return groups
    .map((g) => {
      const bounds = `[${g.min_select ?? 0}-${g.max_select ?? 1}]`;
      const options = g.options.map((o) => {
        const price = o.price !== undefined && o.price !== '0' ? ` = ${o.price}` : '';
        const sold = o.available === false ? ' = unavailable' : '';
        return `${escape(o.external_id)} = ${escape(o.name)}${price}${sold}`;
      });
      return `${escape(g.external_id)} = ${escape(g.name)} ${bounds}${options.length ? `: ${options.join('; ')}` : ''}`;
    })
    .join(' | ');
}
