// spec: Limits — every number of the table, in one place.
export const LIMITS = {
  requestsPerMinute: 120,
  authFailuresPerMinute: 30,
  // "5 MB" read as the stricter 5,000,000 bytes (DESIGN: Limits in bytes), for bodies and images alike.
  bodyBytes: 5_000_000,
  batchOperations: 500,
  batchesPerMinute: 10,
  optionGroupsPerProduct: 20,
  optionsPerGroup: 50,
  pageSizeMax: 200,
  feedPageDefault: 100,
  listPageDefault: 50,
  idempotencyRetentionMs: 7 * 24 * 3600_000,
  idempotencyKeyMin: 8,
  idempotencyKeyMax: 100,
  eventRetentionMs: 30 * 24 * 3600_000,
  snapshotLifetimeMs: 2 * 3600_000,
  webhookTimeoutMs: 10_000,
  webhookAttempts: 9,
  webhookRetryDelaysMs: [60, 300, 900, 3600, 10800, 21600, 43200, 86400].map((s) => s * 1000),
  webhookPauseAfterMs: 72 * 3600_000,
  signatureToleranceSeconds: 300,
  webhookSecretOverlapHours: 24,
  credentialOverlapDefaultHours: 24,
  credentialOverlapMaxHours: 72,
  imageBytes: 5_000_000,
  text: {
    categoryName: 120,
    productName: 150,
    description: 1000,
    sku: 64,
    imageUrl: 500,
    webhookUrl: 500,
    importFailureMessage: 500,
    reasonMin: 3,
    reasonMax: 255,
    externalNumber: 64,
    externalId: 64,
  },
  bounds: {
    position: [0, 100_000],
    minSelect: [0, 50],
    maxSelect: [1, 50],
    estimatedMinutes: [1, 600],
    ackAlertMinutes: [1, 1440],
  },
} as const;

/** The observed homologation's watch, in seconds (DESIGN: Homologation; the CLI's --timeout too). */
export const HOMOLOGATION_TIMEOUT = { default: 120, min: 5, max: 3600 } as const;

/** How many API requests the emulator's request log keeps, the oldest going first (`emulator logs tail`). */
export const REQUEST_LOG_SIZE = 1000;

export const API_VERSION = '1.0';
export const OPENAPI_VERSION = '1.0.4';
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{8,100}$/;
export const EXTERNAL_ID_PATTERN = /^[A-Za-z0-9._:-]{1,64}$/;
