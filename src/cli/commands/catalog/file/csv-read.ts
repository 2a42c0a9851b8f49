import { parse } from 'csv-parse/sync';
import { BOOLEAN_FIELDS, CSV_COLUMNS, CSV_OPTIONAL_COLUMNS, CSV_REQUIRED_COLUMNS, FALSE_WORDS, TRUE_WORDS } from './csv-columns.js';
import { CatalogFileError, fileIssue, itemLabel, type FileIssue, type RawEntry, type Where } from './model.js';
import { OptionSyntaxError, parseOptionGroups } from './option-syntax.js';

const KNOWN = new Set<string>([...CSV_COLUMNS, ...CSV_OPTIONAL_COLUMNS]);

interface Row {
  /** 1 for the first row after the header. */
  n: number;
  cells: Record<string, string>;
  where: Where;
}

/**
 * Reads the CSV catalog format: a header row, then one row per product. Categories come from the
 * `category_*` columns (the first row of a category defines it; a later row that disagrees is an
 * error). Cells are text: booleans and integers are converted here, everything else is left to the
 * contract so that its messages name the problem.
 */
export function readCsvCatalog(file: string, text: string): { entries: RawEntry[]; issues: FileIssue[]; missingColumns: string[] } {
  const { rows, issues, missingColumns } = parseRows(file, text);
  const categories = new Map<string, { entry: RawEntry; described: string; row: number }>();
  const products: RawEntry[] = [];
  for (const row of rows) {
    const c = row.cells;
    const code = c.category_external_id ?? '';
    const known = categories.get(code);
    const described = [c.category_name, c.category_position, c.category_active].map((v) => v ?? '').join('\u0000');
    if (code !== '' && !known) {
      const value = compact({ external_id: code, name: c.category_name, position: integer(c.category_position), active: boolean(c.category_active) });
      const where = { ...row.where, label: `row ${row.n} category (${code})` };
      categories.set(code, { entry: { kind: 'category', value, where, fields: CATEGORY_FIELDS }, described, row: row.n });
    } else if (known && described !== known.described) {
      issues.push({
        where: row.where, field: 'category_name', code: 'conflict',
        message: `category ${code} is described differently on row ${known.row}: every row of a category needs the same category_name, category_position and category_active`,
      });
    }
    const product = productValue(row, issues);
    products.push({ kind: 'product', value: product, where: row.where });
  }
  return { entries: [...[...categories.values()].map((c) => c.entry), ...products], issues, missingColumns };
}

/** How a category's contract fields are named in the CSV. */
const CATEGORY_FIELDS: Record<string, string> = { external_id: 'category_external_id', name: 'category_name', position: 'category_position', active: 'category_active' };

function productValue(row: Row, issues: FileIssue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, cell] of Object.entries(row.cells)) {
    if (column.startsWith('category_') && column !== 'category_external_id') continue;
    // An unknown column is reported once, for the header, not again for every row.
    if (cell === '' || !KNOWN.has(column)) continue;
    if (column === 'option_groups') {
      try {
        out.option_groups = parseOptionGroups(cell);
      } catch (error) {
        if (!(error instanceof OptionSyntaxError)) throw error;
        issues.push({ where: row.where, field: 'option_groups', code: 'invalid', message: error.message });
      }
    } else if (BOOLEAN_FIELDS.has(column)) out[column] = boolean(cell);
    else if (column === 'position') out[column] = integer(cell);
    else out[column] = cell;
  }
  return out;
}

function boolean(cell: string | undefined): unknown {
  if (cell === undefined || cell === '') return undefined;
  const word = cell.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return cell;
}

function integer(cell: string | undefined): unknown {
  if (cell === undefined || cell === '') return undefined;
  return /^\s*\d+\s*$/.test(cell) ? Number(cell) : cell;
}

const compact = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

/**
 * Rows as column → cell, with their line, and the header's problems; CSV syntax errors end the
 * read. Header problems do not: the rows are still checked, so one run lists everything to fix.
 */
function parseRows(file: string, text: string): { rows: Row[]; issues: FileIssue[]; missingColumns: string[] } {
  const firstLine = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  // Spreadsheets in locales with a decimal comma save CSV with ";" between cells.
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  let records: { record: string[]; info: { lines: number }; raw: string }[];
  try {
    records = parse(text, { bom: true, delimiter, info: true, raw: true, skip_empty_lines: true, relax_column_count: false }) as never;
  } catch (error) {
    const e = error as Error & { lines?: number };
    throw new CatalogFileError(file, [fileIssue(file, e.lines ?? null, `not valid CSV: ${e.message}`, 'malformed_csv')]);
  }
  if (records.length === 0) throw new CatalogFileError(file, [fileIssue(file, 1, 'the file is empty: expected a header row')]);
  const header = records[0].record.map((h) => h.trim());
  const { issues, missingColumns } = checkHeader(file, header);
  const rows = records.slice(1).map(({ record, info, raw }, i) => {
    const body = raw.replace(/^(\r?\n)+/, '').replace(/\r?\n$/, '');
    const line = info.lines - (body.match(/\n/g)?.length ?? 0);
    const cells: Record<string, string> = {};
    header.forEach((column, c) => (cells[column] = record[c].trim()));
    return { n: i + 1, cells, where: { file, line, label: itemLabel(`row ${i + 1}`, cells) } };
  });
  return { rows, issues, missingColumns };
}

function checkHeader(file: string, header: string[]): { issues: FileIssue[]; missingColumns: string[] } {
  const issues: FileIssue[] = [];
  const missingColumns: string[] = [];
  const seen = new Set<string>();
  for (const column of header) {
    if (!KNOWN.has(column)) issues.push(fileIssue(file, 1, `unknown column "${column}"; the columns are ${[...KNOWN].join(', ')}`, 'unknown_field', column));
    if (seen.has(column)) issues.push(fileIssue(file, 1, `column "${column}" appears twice`, 'duplicate', column));
    seen.add(column);
  }
  for (const column of CSV_REQUIRED_COLUMNS) {
    if (seen.has(column)) continue;
    issues.push(fileIssue(file, 1, `missing column "${column}"`, 'required', column));
    missingColumns.push(column);
  }
  return { issues, missingColumns };
}
