import { ApiError } from '../../src/contract/errors.js';
import { externalId } from '../../src/contract/common.js';
import { parseOrThrow } from '../../src/contract/validation.js';
import { parseDate } from '../../src/contract/dates.js';
import type { IntegrationRecord } from '../stores/repository.js';

/** spec: Integration settings, catalog_mode — with `manual` every catalog write answers 403. */
export function assertCatalogManaged(integration: IntegrationRecord): void {
  if (integration.settings.catalog_mode !== 'erp_managed') throw ApiError.of('field_not_managed');
}

/** spec: Conventions, External codes — 422 on `external_id` when the code breaks the pattern. */
export function checkExternalId(code: string): string {
  return parseOrThrow(externalId, code, 'external_id');
}

/** `source_updated_at` as milliseconds (already validated by the contract). */
export function sourceTime(text: string | undefined): number | undefined {
  return text === undefined ? undefined : parseDate(text);
}
