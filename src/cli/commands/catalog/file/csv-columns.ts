/**
 * The CSV catalog format: one row per product, in these columns (any order; the header row names
 * them). The category of each product is described by the `category_*` columns of its rows.
 */
export const CSV_COLUMNS = [
  'external_id',
  'name',
  'category_external_id',
  'category_name',
  'category_position',
  'category_active',
  'price',
  'description',
  'sku',
  'position',
  'active',
  'available',
  'image_url',
  'option_groups',
] as const;

/** Accepted but not written by `catalog pull`. */
export const CSV_OPTIONAL_COLUMNS = ['image_mode', 'source_updated_at'] as const;

export const CSV_REQUIRED_COLUMNS = ['external_id', 'name', 'category_external_id', 'category_name', 'price'] as const;

/** Product fields that hold a boolean, and how a cell spells one (any letter case). */
export const BOOLEAN_FIELDS = new Set(['active', 'available']);
export const TRUE_WORDS = new Set(['true', 'yes', '1']);
export const FALSE_WORDS = new Set(['false', 'no', '0']);
